import Foundation
import Testing
import TestSupport

/// Every number a user gives the tool (options, the predicate's LIMIT and OFFSET, keys,
/// `STRATA_WRITE_LOCK_TIMEOUT`) at its extremes: each answers or is refused with a message that
/// names the option and the value; none stops the tool with a signal, and a negative number is
/// read as the option's value, not as another option ("Missing value").
@Suite struct NumericOptionTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }
    var input: String { dir.path("records.json") }

    /// The options that take a number, by subcommand; every other option with a value takes text
    /// (``textOptions``). A test below keeps both lists complete against the tool's help.
    static let numericOptions: [String: [String]] = [
        "import": ["--batch-size"], "query": ["--limit", "--offset", "--timeout"], "explain": ["--limit", "--offset", "--timeout"],
        "delete": ["--timeout"], "export": ["--timeout"], "changelog": ["--keep-commits", "--keep-seconds"],
        "changes": ["--after"], "demo": ["--records"],
    ]
    static let textOptions: Set<String> = [
        "--entity", "--format", "--key", "--sort", "--fields", "--schema", "--root-key", "--primary-key", "--scope",
        "--on-error", "--collation", "--store", "--stemming", "--stop-words", "--name",
    ]
    static let extremes = ["-1", "0", "\(Int.max)", "9223372036854775808", "\(Int.min)", "\(UInt64.max)", "-18446744073709551616",
                           "1e400", "-1e400", "nan", "inf", "0.0000001", "abc", ""]

    init() throws {
        dir = try TemporaryDirectory("strata-numbers")
        try Data(#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]"#.utf8).write(to: URL(fileURLWithPath: input))
        let imported = try StrataCLI.run(["import", store, input, "--entity", "T"])
        try #require(imported.status == 0, "\(imported.error)")
        let enabled = try StrataCLI.run(["changelog", store, "--enable"])
        try #require(enabled.status == 0, "\(enabled.error)")
    }

    /// Runs the tool and checks that it answered (0), failed with a message (1) or refused its
    /// arguments (2), and that a refusal is no "Missing value".
    @discardableResult
    func expectAnswerOrRefusal(_ arguments: [String], environment: [String: String] = [:],
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> StrataCLI.Result {
        let result = try StrataCLI.run(arguments, environment: environment)
        let shown = "strata \(arguments.map { $0 == store ? "STORE" : $0 }.joined(separator: " ")) \(environment)"
        #expect([0, 1, 2].contains(result.status) && !result.error.contains("Program crashed"),
                "\(shown): status \(result.status) \(result.error.prefix(300))", sourceLocation: sourceLocation)
        #expect(!result.error.contains("Missing value"), "\(shown): \(result.error.prefix(300))", sourceLocation: sourceLocation)
        if result.status != 0 {
            #expect(!result.error.isEmpty, "\(shown): refused without a message", sourceLocation: sourceLocation)
        }
        return result
    }

    /// The arguments that give `option` of `command` the value `value`.
    func arguments(_ command: String, _ option: String, _ value: String) -> [String] {
        switch command {
        case "import": ["import", store, input, "--entity", "T", option, value]
        case "query", "explain", "export": [command, store, "T", option, value]
        case "delete": ["delete", store, "T", "id > 100", option, value]
        case "changelog": ["changelog", store, "--enable", option, value]
        case "demo": ["demo", "--store", dir.path("demo-\(UUID().uuidString)"), option, value]
        default: [command, store, option, value]
        }
    }

    @Test func everyNumericOptionAtItsExtremesAnswersOrIsRefusedByName() throws {
        for (command, options) in Self.numericOptions.sorted(by: { $0.key < $1.key }) {
            for option in options {
                for value in Self.extremes {
                    // The demo runs for real with a valid count: only the refused ones here.
                    if command == "demo", let count = Int(value), (1...10_000_000).contains(count) { continue }
                    let result = try expectAnswerOrRefusal(arguments(command, option, value))
                    if result.status == 2 {
                        #expect(result.error.contains(option), "\(command) \(option) \(value): \(result.error.prefix(300))")
                    }
                }
            }
        }
    }

    @Test func negativeNumbersAreRefusedAsValuesWithTheRangeNamed() throws {
        let cases: [([String], String)] = [
            (["query", store, "T", "--limit", "-5"], "--limit must not be negative (it is -5)"),
            (["query", store, "T", "--offset", "-5"], "--offset must not be negative (it is -5)"),
            (["query", store, "T", "--timeout", "-5"], "--timeout must be a number of seconds above 0"),
            (["import", store, input, "--entity", "T", "--batch-size", "-5"], "--batch-size must be at least 1 (it is -5)"),
            (["changelog", store, "--enable", "--keep-commits", "-5"], "--keep-commits must be at least 1 (it is -5)"),
            (["changelog", store, "--enable", "--keep-seconds", "-5"], "--keep-seconds must be a positive, finite number"),
            (["changes", store, "--after", "-5"], "'-5' is invalid for '--after"),
            (["demo", "--records", "-5"], "--records must be from 1 to 10000000 (it is -5)"),
        ]
        for (arguments, message) in cases {
            let result = try expectAnswerOrRefusal(arguments)
            #expect(result.status == 2 && result.error.contains(message), "\(arguments[0]) \(arguments.suffix(2)): \(result.error)")
        }
    }

    @Test func largeWindowsAndSequencesAnswerEmpty() throws {
        let max = "\(Int.max)"
        for arguments in [["query", store, "T", "--limit", max, "--offset", max, "--format", "jsonl"],
                          ["query", store, "T", "--sort", "name desc", "--limit", max, "--offset", max, "--format", "jsonl"],
                          ["changes", store, "--after", "\(UInt64.max)"]] {
            let result = try expectAnswerOrRefusal(arguments)
            #expect(result.status == 0 && result.output.isEmpty, "\(arguments): \(result.output) \(result.error)")
        }
        let count = try expectAnswerOrRefusal(["query", store, "T", "--limit", max, "--count"])
        #expect(count.status == 0 && count.output.contains("3"), "\(count.output) \(count.error)")
        let explained = try expectAnswerOrRefusal(["explain", store, "T", "id == 1 OR name == 'b'", "--limit", max, "--offset", max])
        #expect(explained.status == 0, "\(explained.error)")
        // The predicate's own LIMIT and OFFSET, and keys past every integer type.
        for predicate in ["name != 'x' LIMIT \(max) OFFSET \(max)", "name != 'x' LIMIT 99999999999999999999999", "name != 'x' LIMIT -1",
                          "id == 99999999999999999999999", "id == -99999999999999999999999 OR id < \(Int.min)"] {
            try expectAnswerOrRefusal(["query", store, "T", predicate, "--format", "jsonl"])
        }
        for key in ["99999999999999999999999", "\(UInt64.max)", "\(Int.min)", "-1"] {
            try expectAnswerOrRefusal(["get", store, "T", key])
            try expectAnswerOrRefusal(["delete", store, "T", "--key", key])
        }
    }

    @Test func largeRetentionsKeepWorking() throws {
        let kept = try expectAnswerOrRefusal(["changelog", store, "--enable", "--keep-commits", "\(Int.max)"])
        #expect(kept.status == 0, "\(kept.error)")
        try expectAnswerOrRefusal(["import", store, input, "--entity", "T", "--batch-size", "\(Int.max)"])
        let seconds = try expectAnswerOrRefusal(["changelog", store, "--enable", "--keep-seconds", "1e300"])
        #expect(seconds.status == 0, "\(seconds.error)")
        try Data(#"[{"id": 4, "name": "d"}]"#.utf8).write(to: URL(fileURLWithPath: input))
        let imported = try expectAnswerOrRefusal(["import", store, input, "--entity", "T"])
        #expect(imported.status == 0, "\(imported.error)")
        for seconds in ["inf", "nan", "1e400"] {
            let result = try expectAnswerOrRefusal(["changelog", store, "--enable", "--keep-seconds", seconds])
            #expect(result.status == 2 && result.error.contains("--keep-seconds"), "--keep-seconds \(seconds): \(result.error)")
        }
    }

    @Test func theWriteLockTimeoutVariableIsANumberOfSecondsOrRefused() throws {
        for value in ["inf", "1e400", "\(UInt64.max)", "0", "2.5"] {
            let result = try expectAnswerOrRefusal(["import", store, input, "--entity", "T"], environment: ["STRATA_WRITE_LOCK_TIMEOUT": value])
            #expect(result.status == 0, "STRATA_WRITE_LOCK_TIMEOUT=\(value): \(result.error)")
        }
        for value in ["-1", "nan", "abc", "", "-inf"] {
            let result = try expectAnswerOrRefusal(["import", store, input, "--entity", "T"], environment: ["STRATA_WRITE_LOCK_TIMEOUT": value])
            #expect(result.status == 1 && result.error.contains("STRATA_WRITE_LOCK_TIMEOUT must be a number of seconds"),
                    "STRATA_WRITE_LOCK_TIMEOUT=\(value): \(result.error)")
        }
    }

    /// The lists above name every option of the tool that takes a value: a new numeric option
    /// cannot miss the extremes.
    @Test func theListsNameEveryOptionThatTakesAValue() throws {
        let commands = ["import", "query", "explain", "get", "delete", "export", "schema show", "schema diff", "index add", "index drop",
                        "index list", "stats", "verify", "backup", "migrate", "changelog", "changes", "replicate", "demo"]
        let valued = try #require(try Regex("--([a-z-]+) <"))
        for command in commands {
            let help = try StrataCLI.run(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(help.status == 0, "\(command): \(help.error)")
            let usage = help.output.components(separatedBy: "ARGUMENTS:").first ?? help.output
            for match in usage.matches(of: valued) {
                let option = "--" + String(match.output[1].substring ?? "")
                let numeric = Self.numericOptions[command]?.contains(option) ?? false
                #expect(numeric || Self.textOptions.contains(option), "strata \(command) \(option) is in neither list")
            }
        }
    }
}
