import Foundation
import Testing
import TestSupport
import Strata

/// A record whose optional field only the last of many records sets.
private struct LateRecord: Record {
    var id: Int64
    var late: Int?
    static let primaryKey = \LateRecord.id
    static let entityName = "Late"
}

/// The small things a new user meets: usage errors printed whole, progress bars that finish,
/// index sizes that count duplicate pages, prefix queries on string keys, SQL-style lists.
@Suite struct CommandDetailTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-details") }

    func importRecords(_ records: [[String: Any]], entity: String) throws {
        let path = dir.path("\(entity).json")
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store, path, "--entity", entity])
        try #require(result.status == 0, "\(result.error)")
    }

    /// The fixture's countries keyed by a string `id` (their `alpha_2`), imported as any version
    /// of the tool takes them: no root key, no --primary-key.
    func importCountries() throws {
        try importRecords(try ISO3166Fixture.records.values.map { ["id": $0["alpha_2"]!, "name": $0["name"]!] }, entity: "Country")
    }

    @Test func aBadFieldsListPrintsTheErrorWithoutAHelpFragment() throws {
        let path = dir.path("t.json")
        try Data(#"[{"id": 1, "name": "a"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        try #require(try StrataCLI.run(["import", store, path, "--entity", "T"]).status == 0)
        let result = try StrataCLI.run(["query", store, "T", "--fields", "id,nmae"])
        #expect(result.status == 1)
        #expect(result.error == "error: --fields: unknown field 'nmae' in T (did you mean 'name'?)\n", "\(result.error)")
    }

    /// `--fields` checks names against every field the entity has (its field table), as a
    /// condition does, not against a sample of its records: a field only the 1,001st record
    /// holds can be printed, as the query finds it.
    @Test func fieldsNamesAFieldThatOnlyALateRecordHolds() throws {
        // Written by a Swift type, so the store has no imported schema: only its field table
        // knows `late`, which the first 1,000 records do not hold.
        try Store(path: store).write { tx in try tx.insert((1...1_001).map { LateRecord(id: $0, late: $0 == 1_001 ? 7 : nil) }) }
        let result = try StrataCLI.run(["query", store, "Late", "late == 7", "--fields", "id,late", "--format", "csv"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "id,late\n1001,7\n", "\(result.output)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func theProgressBarEndsAtAHundredPercentAndTheResultHasItsOwnLine() throws {
        try importRecords((0..<3_000).map { ["id": $0, "group": $0 % 5] }, entity: "T")
        let (status, text) = try StrataCLI.runInTerminal(["index", "add", store, "T", "group"])
        #expect(status == 0, "\(text)")
        // Each redraw starts with a carriage return, which splits lines here too.
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let bar = try #require(lines.last { $0.contains("indexing T") }, "no progress bar drawn: \(text.debugDescription)")
        #expect(bar.contains("100%"), "the bar ends at 100 %: \(text.debugDescription)")
        #expect(lines.contains("built index on group of T (3000 records)"), "the result on a line of its own: \(text.debugDescription)")
    }

    @Test func statsCountsThePagesOfAnIndexsDuplicates() throws {
        try importRecords((0..<30_000).map { ["id": $0, "group": $0 % 3] }, entity: "T")
        func stats() throws -> [String: Any] {
            let result = try StrataCLI.run(["stats", store, "--format", "json"])
            return try #require(try StrataCLI.json(result.output) as? [String: Any], "\(result.output) \(result.error)")
        }
        let before = try #require(try stats()["usedBytes"] as? Int)
        try #require(try StrataCLI.run(["index", "add", store, "T", "group"]).status == 0)
        let after = try stats()
        let grown = try #require(after["usedBytes"] as? Int) - before
        let entity = try #require((after["entities"] as? [[String: Any]])?.first)
        let index = try #require((entity["indexes"] as? [[String: Any]])?.first)
        let bytes = try #require(index["bytes"] as? Int)
        // Three keys of 10,000 primary keys each: sub-databases LMDB's mdb_stat leaves out.
        #expect(Double(bytes) > Double(grown) * 0.8 && Double(bytes) < Double(grown) * 1.2, "index \(bytes) bytes, the map grew \(grown)")
        #expect(index["duplicateBytes"] as? Int ?? 0 > 0)
    }

    @Test func beginsWithOnAStringPrimaryKeyIsAKeyRange() throws {
        try importCountries()
        let plan = try StrataCLI.run(["explain", store, "Country", #"id BEGINSWITH "A""#])
        #expect(plan.output.hasPrefix(#"KeyRange(Country.id ["A", "B"))"#), "\(plan.output)")
        let found = try StrataCLI.run(["query", store, "Country", #"id BEGINSWITH "A""#, "--format", "csv", "--fields", "id"])
        #expect(found.output == "id\nAF\nAW\n", "\(found.output)")
    }

    @Test func aListInParenthesesGetsAHintToUseBraces() throws {
        try importCountries()
        let result = try StrataCLI.run(["query", store, "Country", #"name IN ("Germany", "Aruba")"#])
        #expect(result.status == 1)
        #expect(result.error.contains(#"a list is written in braces: IN {"a", "b"}"#), "\(result.error)")
        let braces = try StrataCLI.run(["query", store, "Country", #"name IN {"Germany", "Aruba"}"#, "--count"])
        #expect(braces.output == "2\n")
    }

    @Test func aUniqueViolationNamesTheValueAndTheRecordHoldingIt() throws {
        try importRecords([["id": 1, "email": "ann@example.com"], ["id": 2, "email": "bob@example.com"], ["id": 3, "email": "ann@example.com"]],
                          entity: "T")
        let result = try StrataCLI.run(["index", "add", store, "T", "email", "--unique"])
        #expect(result.status == 1)
        #expect(result.error.contains("already holds the value 'ann@example.com', for the record with key 1"), "\(result.error)")
    }
}
