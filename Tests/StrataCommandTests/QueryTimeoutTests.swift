import Foundation
import Testing
import TestSupport

/// `--timeout SECONDS|none` on `query`, `export`, `delete` and `explain` (30 seconds by default):
/// a query past its limit stops with the timeout error and exit status 1 (a delete then deletes
/// nothing); linear patterns answer well within a limit; a hostile expression on a huge field
/// meets the match's cost cap instead.
@Suite struct QueryTimeoutTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }
    /// The issue's hostile expression: over the million `a`s, past the cost cap of a match.
    static let hostileRegex = ".*(a?){1000}(a?){1000}b"
    /// Slow on the million `a`s (tens of millions of steps) yet within the cost cap.
    static let slowRegex = ".*(a?){20}b"

    /// A store of three documents, the last with a body of a million `a`s.
    init() throws {
        dir = try TemporaryDirectory("strata-timeout")
        let json = #"[{"id": 1, "body": "ab"}, {"id": 2, "body": "aab"}, {"id": 3, "body": ""# + String(repeating: "a", count: 1_000_000) + #""}]"#
        let file = dir.path("documents.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        let imported = try StrataCLI.run(["import", store, file, "--entity", "Document"])
        #expect(imported.status == 0, "\(imported.error)")
    }

    /// Runs the tool. No elapsed time is checked (no test depends on the machine's speed): a
    /// limit that did not apply shows as a command that succeeds where the tests expect the
    /// timeout error.
    func run(_ arguments: [String]) throws -> StrataCLI.Result {
        try StrataCLI.run(arguments)
    }

    @Test func aQueryPastItsTimeoutExitsWithTheTimeoutError() throws {
        let result = try run(["query", store, "Document", "body MATCHES '\(Self.slowRegex)'", "--timeout", "0.001", "--count"])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("error: Document: the query ran longer than its time limit of 0.001 s and was stopped after"), "\(result.error)")
    }

    /// The match's cost cap (program states × text characters) stops the issue's expression on
    /// the million-character body at once, whatever the time limit: deterministic, no clock.
    @Test func aHostileExpressionOnAHugeFieldIsRefusedByTheCostCap() throws {
        let result = try run(["query", store, "Document", "body MATCHES '\(Self.hostileRegex)'", "--timeout", "none", "--count"])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("error: Document: body MATCHES '.*(a?){1000}(a?){1000}b': the pattern's "), "\(result.error)")
        #expect(result.error.contains("states over a text of 1000000 characters exceed the cost limit of 134217728 states × characters"), "\(result.error)")
    }

    /// Every query command has a time limit unless told otherwise: 30 seconds, `none` for none.
    @Test(arguments: ["query", "export", "delete", "explain"])
    func queryCommandsHaveADefaultTimeLimitThatNoneLifts(command: String) throws {
        let help = try StrataCLI.run([command, "--help"])
        #expect(help.output.contains("--timeout <seconds|none>"), "\(help.output)")
        #expect(help.output.contains("'none' for no limit") && help.output.contains("(default: 30)"), "\(help.output)")
    }

    @Test func noneLiftsTheTimeLimit() throws {
        let result = try run(["query", store, "Document", "body ENDSWITH 'b'", "--timeout", "none", "--count"])
        #expect(result.status == 0 && result.output == "2\n", "\(result.error)")
    }

    @Test func aDeletePastItsTimeoutDeletesNothing() throws {
        let result = try run(["delete", store, "Document", "body MATCHES '\(Self.slowRegex)'", "--timeout", "0.001"])
        #expect(result.status == 1)
        #expect(result.error.contains("time limit of 0.001 s"), "\(result.error)")
        #expect(try StrataCLI.run(["query", store, "Document", "--count"]).output == "3\n")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    @Test func linearPatternsAndExportsFinishWithinTheirTimeout() throws {
        let needle = String(repeating: "a", count: 10_239) + "b"
        let contains = try run(["query", store, "Document", "body CONTAINS '\(needle)'", "--timeout", "30", "--count"])
        #expect(contains.status == 0 && contains.output == "0\n", "\(contains.error)")
        let like = try run(["query", store, "Document", "body LIKE '*" + String(repeating: "?*", count: 30_000) + "'", "--timeout", "30", "--count"])
        #expect(like.status == 0 && like.output == "1\n", "\(like.error)")
        let export = try run(["export", store, "Document", "--format", "jsonl", "--timeout", "30"])
        #expect(export.status == 0 && export.output.split(separator: "\n").count == 3, "\(export.error)")
        let deleted = try run(["delete", store, "Document", "body ENDSWITH 'b'", "--timeout", "30"])
        #expect(deleted.output == "deleted 2 records\n", "\(deleted.error)")
    }

    @Test(arguments: ["0", "-1", "soon"])
    func aTimeoutMustBeAPositiveNumber(value: String) throws {
        let result = try StrataCLI.run(["query", store, "Document", "--timeout", value])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("--timeout"), "\(result.error)")
    }
}
