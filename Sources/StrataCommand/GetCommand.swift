import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

struct GetCommand: ParsableCommand {
    /// The subcommand's name.
    static let name = "get"

    static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "Print one record by primary key (exit status 1 when there is none).",
        discussion: """
            A compound primary key takes one value per key field, in key order:
              strata get stats.strata Population DE 2021
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The entity.") var entity: String
    /// Parsed as all the rest so that a negative key (`-5`) is taken as the key, not as an unknown
    /// option; several values for a compound key.
    @Argument(parsing: .allUnrecognized,
              help: ArgumentHelp("The primary key value; a compound key's values in key order (a negative number needs no --).", valueName: "key"))
    var keys: [String] = []
    @Option(help: "json (default), jsonl (one line) or table.") var format: OutputFormat = .json
    /// ``ReadOnlyFlag``'s flag, declared here rather than as an `@OptionGroup`: a group costs
    /// argument-parser a reflection of its type at every parse, and `get` is the command run
    /// once per look-up (start-up measurements: Benchmarks/Results).
    @Flag(name: .customLong("read-only"), help: ReadOnlyFlag.help) var readOnly = false

    func validate() throws {
        if keys.isEmpty { throw ValidationError("Missing expected argument '<key>'") }
    }

    /// What the command does, without argument-parser's types.
    var lookup: RecordLookup { RecordLookup(store: store, entity: entity, keys: keys, format: format) }

    func run() throws { try lookup.run() }
}

/// One record printed by primary key: what `strata get` runs, however its words were read.
struct RecordLookup: Equatable {
    var store: String
    var entity: String
    /// The key's values as typed: one, or a compound key's in key order.
    var keys: [String]
    var format: OutputFormat

    func run() throws {
        let format = try OutputFormat.check(self.format, allowed: [.json, .jsonl, .table])
        let key = QueryValue(primaryKeyArguments: keys)
        let record = try Store.reading(store).read { tx in try tx.record(entity: entity, key: key) }
        guard let record else { throw CommandFailure(message: "\(entity) has no record with key \(key.keyDescription)") }
        switch format {
        case .table:
            Terminal.write(RecordOutput.table(header: ["field", "value"], rows: record.fields.map { [$0.key, RecordOutput.cell($0.value)] }))
        case .jsonl: Terminal.write(record.jsonObject().jsonText + "\n")
        default: Terminal.write(record.jsonObject().prettyText + "\n")
        }
    }
}

extension RecordLookup {
    /// The look-up a command line's words name (the words after the program's name), read
    /// without argument-parser, or nil when they are not of the plain form read here: then
    /// argument-parser reads them.
    ///
    /// The plain form is `get STORE ENTITY KEY…` with, anywhere after `get`, at most one
    /// `--read-only` and at most one `--format VALUE` (or `--format=VALUE`, VALUE one of the
    /// format names). Any other word that starts with `-` (a negative key, `--help`, `--`), an
    /// empty word or the word `help` makes it nil. For every line it reads, the look-up equals
    /// the ``GetCommand/lookup`` of the command `StrataTool.parseAsRoot` returns:
    /// `GetCommandLineTests` compares the two on generated lines. argument-parser's parse (the
    /// reflection of the command types and the property wrappers' set-up) is most of a one-shot
    /// `get`'s start-up (measured in Benchmarks/Results), and `get` is the command a script runs
    /// once per record.
    init?(plainLine words: ArraySlice<String>) {
        guard words.first == GetCommand.name else { return nil }
        var positional: [String] = []
        var format: OutputFormat?
        var readOnly = false
        var rest = words.dropFirst()
        while let word = rest.popFirst() {
            if word == "--read-only" {
                if readOnly { return nil }
                readOnly = true
            } else if word == "--format" || word.hasPrefix("--format=") {
                let value = word == "--format" ? rest.popFirst() : String(word.dropFirst("--format=".count))
                guard format == nil, let value, let named = OutputFormat(rawValue: value) else { return nil }
                format = named
            } else if word.isEmpty || word.hasPrefix("-") || word == "help" {
                return nil
            } else {
                positional.append(word)
            }
        }
        guard positional.count >= 3 else { return nil }
        self.init(store: positional[0], entity: positional[1], keys: Array(positional[2...]), format: format ?? .json)
    }
}
