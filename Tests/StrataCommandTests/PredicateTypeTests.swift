import Foundation
import Testing
import TestSupport

/// Comparisons whose constant cannot be compared with the field's type fail before anything
/// runs: the command exits 1 with the error, and `delete` deletes nothing.
@Suite struct PredicateTypeTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws {
        dir = try TemporaryDirectory("strata-cli-types")
        let users = (1...40).map { id in
            #"{"id": \#(id), "name": "user\#(id)", "lucky_number": \#(id % 10), "active": \#(id % 2 == 0), "#
                + #""score": \#(Double(id) * 12.5), "created_at": "2020-12-\#(String(format: "%02d", id % 28 + 1))T10:00:00Z"}"#
        }
        let file = dir.path("users.json")
        try Data(("[" + users.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: file))
        let imported = try StrataCLI.run(["import", store, file, "--entity", "User"])
        #expect(imported.status == 0, "\(imported.error)")
    }

    func count() throws -> String { try StrataCLI.run(["query", store, "User", "--count"]).output }

    @Test func deletingWithANumberComparedToAStringFailsAndDeletesNothing() throws {
        let result = try StrataCLI.run(["delete", store, "User", #"luckyNumber != "7""#])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("luckyNumber (integer)"), "\(result.error)")
        #expect(result.error.contains(#"the string "7""#), "\(result.error)")
        #expect(result.error.contains("at column 16"), "\(result.error)")
        #expect(result.error.contains("luckyNumber != 7"), "\(result.error)")
        #expect(try count() == "40\n")
        // Written as the field's type, the same deletion runs.
        #expect(try StrataCLI.run(["delete", store, "User", "luckyNumber != 7"]).output == "deleted 36 records\n")
        #expect(try count() == "4\n")
    }

    @Test(arguments: [
        (#"createdAt > "2021-01-01""#, "createdAt (date)", #"CAST("2021-01-01", "NSDate")"#),
        ("createdAt > 1609459200", "createdAt (date)", "CAST("),
        (#"luckyNumber > "90""#, "luckyNumber (integer)", "luckyNumber > 90"),
        ("active > 5", "active (bool)", "=="),
        ("active == 1", "active (bool)", "true or false"),
        (#"score > "500""#, "score (double)", "score > 500"),
    ])
    func queriesOfAnotherTypeFailWithAHint(predicate: String, field: String, hint: String) throws {
        for command in ["query", "explain"] {
            let result = try StrataCLI.run([command, store, "User", predicate])
            #expect(result.status == 1, "\(command) \(predicate): \(result.output)")
            #expect(result.error.contains(field), "\(result.error)")
            #expect(result.error.contains(hint), "\(result.error)")
        }
    }

    @Test func theSameConditionsWrittenWithTheirTypesRun() throws {
        let dated = try StrataCLI.run(["query", store, "User", #"createdAt >= CAST("2020-12-20T00:00:00Z", "NSDate")"#, "--count"])
        #expect(dated.status == 0 && dated.output != "0\n", "\(dated.error)")
        #expect(try StrataCLI.run(["query", store, "User", "active == true", "--count"]).output == "20\n")
        #expect(try StrataCLI.run(["query", store, "User", "score > 250", "--count"]).output == "20\n")
    }
}
