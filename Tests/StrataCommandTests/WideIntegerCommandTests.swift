import Foundation
import Testing
import TestSupport

/// The tool on integers beyond 64 bits: imported from JSON literals, indexed, queried with
/// literals of 128 bits, and printed digit for digit in every output format.
@Suite struct WideIntegerCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-wide") }

    static let json = #"""
    [{"id": 1, "amount": 340282366920938463463374607431768211455},
     {"id": 2, "amount": -170141183460469231731687303715884105728},
     {"id": 3, "amount": 18446744073709551616},
     {"id": 4, "amount": 42}]
    """#

    func imported() throws {
        let path = dir.path("ledger.json")
        try Data(Self.json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store, path, "--entity", "Ledger"])
        try #require(result.status == 0, "\(result.error)")
        let index = try StrataCLI.run(["index", "add", store, "Ledger", "amount"])
        try #require(index.status == 0, "\(index.error)")
    }

    @Test func importQueryAndExportKeepEveryDigit() throws {
        try imported()
        let query = try StrataCLI.run(["query", store, "Ledger", "amount > 18446744073709551615", "--format", "jsonl"])
        #expect(query.status == 0, "\(query.error)")
        #expect(query.output == """
            {"id":1,"amount":340282366920938463463374607431768211455}
            {"id":3,"amount":18446744073709551616}

            """, "\(query.output)")
        let negative = try StrataCLI.run(["query", store, "Ledger", "amount == -170141183460469231731687303715884105728", "--format", "csv"])
        #expect(negative.output.contains("2,-170141183460469231731687303715884105728"), "\(negative.output)")
        let table = try StrataCLI.run(["query", store, "Ledger", "amount < 100", "--format", "table"])
        #expect(table.output.contains("-170141183460469231731687303715884105728"), "\(table.output)")
        let export = try StrataCLI.run(["export", store, "Ledger"])
        #expect(export.output.contains("340282366920938463463374607431768211455"), "\(export.output)")
        let get = try StrataCLI.run(["get", store, "Ledger", "3"])
        #expect(get.output.contains("18446744073709551616"), "\(get.output)")
        let verify = try StrataCLI.run(["verify", store])
        #expect(verify.status == 0, "\(verify.output) \(verify.error)")
    }

    @Test func rangesAndPlansShowTheLiteralsExactly() throws {
        try imported()
        let explain = try StrataCLI.run(["explain", store, "Ledger", "amount > 18446744073709551615"])
        #expect(explain.output.contains("amount > 18446744073709551615"), "\(explain.output) \(explain.error)")
        let count = try StrataCLI.run(["query", store, "Ledger", "amount BETWEEN {-170141183460469231731687303715884105728, 42}",
                                       "--format", "jsonl", "--fields", "id"])
        #expect(count.output == "{\"id\":2}\n{\"id\":4}\n", "\(count.output) \(count.error)")
    }

    @Test func aLiteralBeyond128BitsIsAnErrorWithItsColumn() throws {
        try imported()
        let result = try StrataCLI.run(["query", store, "Ledger", "amount > 340282366920938463463374607431768211456"])
        #expect(result.status == 1)
        #expect(result.error.contains("too large") && result.error.contains("column 10"), "\(result.error)")
    }
}
