import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the store's entities in the schema-file format (for editing and `import --schema`).",
        discussion: "Entities imported with a schema show it; others show one read from their stored records."
    )

    @Argument(help: "The store directory.") var store: String
    @Option(help: "json (indented, default) or jsonl (one line).") var format: OutputFormat = .json
    @Flag(help: .hidden) var json = false
    @Flag(help: "List the migrations the store has run (order, date, name) instead.") var history = false
    @OptionGroup var access: ReadOnlyFlag

    func run() throws {
        if history { return try MigrationHistoryOutput.print(store) }
        let format = try OutputFormat.check(json ? .jsonl : self.format, allowed: [.json, .jsonl])
        let file = try Store.reading(store).read { tx in
            SchemaFile(entities: try tx.entityNames().map { try tx.entityDescription(named: $0) })
        }
        // The schema file is JSON either way: indented for people, one line for programs.
        Terminal.write((format == .jsonl ? file.jsonValue.jsonText : file.jsonText) + "\n")
    }
}

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Add, drop or list the secondary indexes of an entity.",
        discussion: """
            Examples:
              strata index add app.strata User lastName --collation caseDiacriticInsensitive
              strata index add app.strata User lastName,luckyNumber
              strata index add app.strata User email --unique
              strata index add app.strata Post title:2,body --full-text --stemming english
              strata index list app.strata User
              strata index drop app.strata User 'lastName[cd]'
              strata index drop app.strata Post title,body --full-text
            """,
        subcommands: [Add.self, Drop.self, List.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Build a new index from the stored records; it is kept in step from then on.")
        @Argument(help: "The store directory.") var store: String
        @Argument(help: "The entity.") var entity: String
        @Argument(help: "The indexed fields, comma-separated (dotted paths for embedded values); with --full-text, each may have a weight (title:2,body).")
        var fields: String
        @Option(help: "binary (default), caseInsensitive or caseDiacriticInsensitive.") var collation = "binary"
        @Flag(help: "Refuse two records with the same value.") var unique = false
        @Flag(help: "One entry per element of an array field.") var multiValue = false
        @Flag(help: "A full-text index on text fields, for SEARCH and relevance order.") var fullText = false
        @Option(help: "With --full-text: none (default) or english.") var stemming: String?
        @Option(help: "With --full-text: none (default) or english.") var stopWords: String?
        @Option(help: "With --full-text: the index's name (default: its fields joined by commas).") var name: String?

        func validate() throws {
            guard SchemaFile.collation(named: collation) != nil else {
                throw ValidationError("--collation must be binary, caseInsensitive or caseDiacriticInsensitive")
            }
            if fullText {
                guard collation == "binary", !unique, !multiValue else {
                    throw ValidationError("--full-text takes no --collation, --unique or --multi-value: it folds case and diacritics itself")
                }
                if let stemming, TextStemming(rawValue: stemming) == nil { throw ValidationError("--stemming must be none or english") }
                if let stopWords, TextStopWords(rawValue: stopWords) == nil { throw ValidationError("--stop-words must be none or english") }
            } else if stemming != nil || stopWords != nil || name != nil {
                throw ValidationError("--stemming, --stop-words and --name need --full-text")
            }
        }

        /// The full-text index `fields` names: `title:2,body` is the fields title and body,
        /// weighted 2 and 1 (all 1 when no field has a weight).
        static func fullTextIndex(_ fields: String, stemming: String?, stopWords: String?, name: String?) throws -> FullTextIndexDescription {
            var names: [String] = [], weights: [Double] = []
            for part in fields.split(separator: ",", omittingEmptySubsequences: false) {
                let pieces = part.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard !pieces[0].isEmpty else { throw CommandFailure(message: "'\(fields)': a full-text index's fields are names separated by commas") }
                var weight = 1.0
                if pieces.count == 2 {
                    guard let given = Double(pieces[1]), given > 0, given.isFinite else {
                        throw CommandFailure(message: "'\(part)': a field's weight is a positive number (title:2)")
                    }
                    weight = given
                }
                names.append(pieces[0])
                weights.append(weight)
            }
            return FullTextIndexDescription(fields: names, weights: weights, stemming: stemming.flatMap(TextStemming.init) ?? .none,
                                            stopWords: stopWords.flatMap(TextStopWords.init) ?? .none, name: name)
        }

        func run() throws {
            if fullText { return try runFullText() }
            let names = fields.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let index = IndexDescription(fields: names, collation: SchemaFile.collation(named: collation)!, unique: unique, multiValue: multiValue)
            let bar = ProgressBar("indexing \(entity)", unit: "records")
            let store = try Store.existing(self.store) { configuration in
                configuration.indexBuildProgress = { progress in bar.update(fraction: progress.fractionCompleted, count: progress.completed) }
            }
            let total = try store.read { tx in try tx.count(entity: entity) }
            do { try store.write { tx in try tx.addIndex(index, toEntity: entity) } } catch {
                bar.finish(completed: false)
                throw error
            }
            bar.finish(completed: true)   // the result goes on a line of its own
            Terminal.write("built index on \(names.joined(separator: ",")) of \(entity) (\(total) records)\n")
        }

        private func runFullText() throws {
            let index = try Self.fullTextIndex(fields, stemming: stemming, stopWords: stopWords, name: name)
            let bar = ProgressBar("indexing \(entity)", unit: "records")
            let store = try Store.existing(self.store) { configuration in
                configuration.indexBuildProgress = { progress in bar.update(fraction: progress.fractionCompleted, count: progress.completed) }
            }
            let total = try store.read { tx in try tx.count(entity: entity) }
            do { try store.write { tx in try tx.addFullTextIndex(index, toEntity: entity) } } catch {
                bar.finish(completed: false)
                throw error
            }
            bar.finish(completed: true)
            Terminal.write("built full-text index \(index.name) of \(entity) (\(total) records)\n")
        }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "drop", abstract: "Drop an index, by the name `strata index list` shows.")
        @Argument(help: "The store directory.") var store: String
        @Argument(help: "The entity.") var entity: String
        @Argument(help: "The index name, e.g. lastName[cd] or lastName,luckyNumber.") var name: String
        @Flag(help: "Drop the full-text index of that name.") var fullText = false

        func run() throws {
            if fullText {
                try Store.existing(store).write { tx in try tx.dropFullTextIndex(named: name, fromEntity: entity) }
                Terminal.write("dropped full-text index \(name) of \(entity)\n")
                return
            }
            try Store.existing(store).write { tx in try tx.dropIndex(named: name, fromEntity: entity) }
            Terminal.write("dropped index \(name) of \(entity)\n")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List an entity's indexes, full-text ones included, with their entries and sizes.")
        @Argument(help: "The store directory.") var store: String
        @Argument(help: "The entity.") var entity: String
        @Option(help: "table (default), json, jsonl, csv or tsv.") var format: OutputFormat?
        @Flag(help: .hidden) var json = false
        @OptionGroup var access: ReadOnlyFlag

        func run() throws {
            let format = json ? .json : format ?? .table
            let statistics = try Store.reading(store).statistics()
            guard let found = statistics.entities.first(where: { $0.name == entity }) else {
                throw CommandFailure(message: "the store has no entity '\(entity)'")
            }
            if format == .table {
                // A full-text index's entries are its documents; its column says what it indexes and how.
                Terminal.write(RecordOutput.table(header: ["index", "entries", "bytes", "unique", "multiValue", "fullText"], rows: found.indexes.map {
                    [$0.name, $0.entries.formatted(), $0.bytes.formatted(), $0.unique ? "yes" : "", $0.multiValue ? "yes" : "", ""]
                } + found.fullTextIndexes.map {
                    [$0.declaration.name, $0.documents.formatted(), $0.bytes.formatted(), "", "", Self.fullTextSummary($0.declaration)]
                }))
                return
            }
            // Each index as a record of its statistics, printed as records are.
            let records = (found.indexes.map(StatsCommand.json) + found.fullTextIndexes.map(StatsCommand.json)).enumerated().map { position, index in
                guard case .object(let members) = index else { preconditionFailure("an object") }
                let name = position < found.indexes.count ? found.indexes[position].name
                    : found.fullTextIndexes[position - found.indexes.count].declaration.name
                return StoredRecord(key: .string(name), fields: members)
            }
            let columns = records.flatMap { $0.fields.map(\.key) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            var output = RecordOutput(format: format, columns: columns.isEmpty ? ["name"] : columns, everyField: true)
            output.begin()
            records.forEach { output.add($0) }
            output.end()
        }

        /// A full-text index's fields as `index add` takes them (`title:2,body`), then its stemming
        /// and stop words when it has them.
        static func fullTextSummary(_ index: FullTextIndexDescription) -> String {
            let fields = zip(index.fields, index.weights).map { field, weight in
                weight == 1 ? field : "\(field):\(weight.formatted(.number.grouping(.never)))"
            }.joined(separator: ",")
            var parts = [fields]
            if index.stemming != .none { parts.append("stemming \(index.stemming.rawValue)") }
            if index.stopWords != .none { parts.append("stop words \(index.stopWords.rawValue)") }
            return parts.joined(separator: "; ")
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print per entity its records and bytes, per index its entries and bytes, and the map's size, use and readers."
    )

    @Argument(help: "The store directory.") var store: String
    @Option(help: "table (default) or json (one object).") var format: OutputFormat?
    @Flag(help: .hidden) var json = false
    @OptionGroup var access: ReadOnlyFlag

    func run() throws {
        let format = try OutputFormat.check(json ? .json : format ?? .table, allowed: [.table, .json])
        let statistics = try Store.reading(store).statistics()
        if format == .json {
            Terminal.write(JSONValue.object([
                JSONMember(key: "path", value: .string(statistics.path)),
                JSONMember(key: "mapSize", value: .int(Int64(statistics.mapSize))),
                JSONMember(key: "usedBytes", value: .int(Int64(statistics.usedBytes))),
                JSONMember(key: "readers", value: .int(Int64(statistics.readers))),
                JSONMember(key: "maxReaders", value: .int(Int64(statistics.maxReaders))),
                JSONMember(key: "entities", value: .array(statistics.entities.map { entity in
                    .object([
                        JSONMember(key: "name", value: .string(entity.name)),
                        JSONMember(key: "records", value: .int(Int64(entity.records))),
                        JSONMember(key: "bytes", value: .int(Int64(entity.bytes))),
                        JSONMember(key: "indexes", value: .array(entity.indexes.map(Self.json))),
                        JSONMember(key: "fullTextIndexes", value: .array(entity.fullTextIndexes.map(Self.json))),
                    ])
                })),
            ]).jsonText + "\n")
            return
        }
        var rows: [[String]] = []
        for entity in statistics.entities {
            rows.append([entity.name, "records", entity.records.formatted(), entity.bytes.formatted()])
            for index in entity.indexes {
                rows.append(["", "index " + index.name + (index.unique ? " (unique)" : ""), index.entries.formatted(), index.bytes.formatted()])
            }
            for index in entity.fullTextIndexes {
                rows.append(["", "full-text index \(index.declaration.name) (documents)", index.documents.formatted(), index.bytes.formatted()])
            }
        }
        Terminal.write(RecordOutput.table(header: ["entity", "what", "entries", "bytes"], rows: rows))
        let percent = statistics.mapSize > 0 ? Double(statistics.usedBytes) * 100 / Double(statistics.mapSize) : 0
        Terminal.write("map: \(statistics.usedBytes.formatted()) of \(statistics.mapSize.formatted()) bytes used (\(String(format: "%.1f", percent)) %); "
            + "readers: \(statistics.readers) of \(statistics.maxReaders)\n")
    }

    /// A full-text index's statistics as JSON: its declaration (`fields`, `weights`, `stemming`,
    /// `stopWords`), `fullText: true`, its documents, its databases' entries and bytes.
    static func json(_ index: FullTextIndexStatistics) -> JSONValue {
        .object([
            JSONMember(key: "name", value: .string(index.declaration.name)),
            JSONMember(key: "fullText", value: .bool(true)),
            JSONMember(key: "fields", value: .array(index.declaration.fields.map { .string($0) })),
            JSONMember(key: "weights", value: .array(index.declaration.weights.map { .double($0) })),
            JSONMember(key: "stemming", value: .string(index.declaration.stemming.rawValue)),
            JSONMember(key: "stopWords", value: .string(index.declaration.stopWords.rawValue)),
            JSONMember(key: "documents", value: .int(Int64(index.documents))),
            JSONMember(key: "entries", value: .int(Int64(index.entries))),
            JSONMember(key: "bytes", value: .int(Int64(index.bytes))),
        ])
    }

    static func json(_ index: IndexStatistics) -> JSONValue {
        .object([
            JSONMember(key: "name", value: .string(index.name)),
            JSONMember(key: "entries", value: .int(Int64(index.entries))),
            JSONMember(key: "bytes", value: .int(Int64(index.bytes))),
            JSONMember(key: "duplicateBytes", value: .int(Int64(index.duplicateBytes))),
            JSONMember(key: "unique", value: .bool(index.unique)),
            JSONMember(key: "multiValue", value: .bool(index.multiValue)),
        ])
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that every record decodes and every index entry matches its record and back (exit status 1 when not)."
    )

    @Argument(help: "The store directory.") var store: String
    @OptionGroup var access: ReadOnlyFlag

    func run() throws {
        let pages = try Store.checkPages(at: self.store)   // before LMDB reads a page that may be damaged
        Terminal.write("data file: \(pages.pages.formatted()) pages of \(pages.databases.formatted()) databases: ok\n")
        let store = try Store.reading(self.store)
        var problems = 0
        try store.read { tx in
            for entity in try tx.entityNames() {
                let total = try tx.count(entity: entity)
                let bar = ProgressBar("verifying \(entity)", unit: "records")
                let result = try tx.verifyIndexes(entity: entity) { checked in
                    bar.update(fraction: Double(checked) / Double(max(total, 1)), count: checked)
                }
                bar.finish(completed: true)
                Terminal.write("\(entity): \(result.recordsChecked.formatted()) records, \(result.entriesExpected.formatted()) index entries: "
                    + (result.isConsistent ? "ok" : "\(result.problems.count) problem\(result.problems.count == 1 ? "" : "s")") + "\n")
                for problem in result.problems { Terminal.write("  \(problem)\n") }
                problems += result.problems.count
            }
        }
        guard problems == 0 else { throw CommandFailure(message: "verify found \(problems) problem\(problems == 1 ? "" : "s")") }
    }
}

struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the store while readers and a writer work.",
        discussion: "DEST must be a new or empty directory; the copy appears there whole or not at all, with the store's permissions. --compact leaves out free pages, so the copy may be smaller."
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The directory to write the copy into.") var destination: String
    @Flag(help: "Leave out free pages.") var compact = false
    @OptionGroup var access: ReadOnlyFlag

    func run() throws {
        let store = try Store.reading(self.store)
        let start = Date()
        // LMDB's copy reports nothing while it runs: the bar follows the copy's file size.
        let expected = try store.statistics().usedBytes
        let bar = ProgressBar("backing up", unit: "bytes")
        defer { bar.finish(completed: false) }   // erased when the copy fails; a no-op after success
        let progress: @Sendable (Int) -> Void = { size in
            bar.update(fraction: min(Double(size) / Double(max(expected, 1)), 1), count: size)
        }
        try store.backup(to: destination, compact: compact, progress: Terminal.errorIsTerminal ? progress : nil)
        bar.finish(completed: true)
        let size = (try? FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")[.size] as? Int) ?? 0
        // The commit a replica made from this copy starts after (the copy holds the log up to it).
        let logged = try? Store.reading(destination).read { tx in try tx.changeLogRange()?.upperBound }
        let commit = logged.flatMap { $0 }.map { ", change log at commit \($0)" } ?? ""
        Terminal.write("backed up \(self.store) to \(destination): \(size.formatted()) bytes in \(String(format: "%.2f", Date().timeIntervalSince(start))) s\(commit)\n")
    }
}
