import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON records (an array, one object, JSON Lines or keyed objects) into an entity, in one write transaction.",
        discussion: """
            Records are upserted by primary key; --sync also deletes the entity's records missing from \
            the file (only those matching --scope, when given). JSON keys map to fields by convention \
            (first_name → firstName, id → the primary key) unless the schema names them.

            The input is a JSON array of records, one record object, JSON Lines (a record on each \
            line, as `strata export --format jsonl` writes them) or keyed objects (one object whose \
            members are the records, {"DE": {...}, "FR": {...}}: each member's name goes into the \
            field id, or --key-field NAME, which becomes the primary key). The format is told from \
            the input (an object followed by another on a later line is JSON Lines; an object whose \
            members are all objects is keyed objects, and said so) unless --input-format names it. \
            A record with more than 4096 fields is refused unless --max-record-fields allows it.

            The entity's description comes from the store (an entity imported before), else from \
            the data: types from the values, optional where null or absent, no indexes. A --schema \
            file may name only some fields (the key, a type, a date format, an index); the rest are \
            inferred. `strata schema STORE` prints the result for editing.

            The primary key is --primary-key FIELD (a JSON key such as alpha_2), else the schema's, \
            else a field `id` or `_id`. Records without any are numbered by their position in the \
            file (1, 2, …) as the key `id`: importing the same file again updates them, but a \
            --sync needs a real key. A file that is one object holding the array of records needs \
            --root-key NAME. Errors count records from 1. An import that fails, or a dry run, \
            into a store that did not exist leaves no store behind.
            """
    )

    @Argument(help: "The store directory (created when missing).") var store: String
    @Argument(help: "The JSON file, or - for standard input.") var file: String
    @Option(help: "The entity to import into.") var entity: String
    @Option(help: "A schema file describing the entity (see `strata schema`).") var schema: String?
    @Option(help: "Import the array under this key of a top-level object ({\"users\": [...]}).") var rootKey: String?
    @Option(help: "json (an array of records or one record object), jsonl (JSON Lines: a record a line) or keyed (an object whose members are records); default: told from the input.")
    var inputFormat: InputFormatArgument?
    @Option(help: ArgumentHelp("The field that keyed objects' member names go into (default: id); it is the primary key unless --primary-key names another.", valueName: "name"))
    var keyField: String?
    @Option(parsing: .unconditional, help: "The most fields a record may have (default: 4096).") var maxRecordFields: Int?
    @Option(help: ArgumentHelp("The field that is the primary key, by its JSON key, or the fields of a compound key separated by commas (country,year); default: id or _id, else records are numbered.", valueName: "field"))
    var primaryKey: String?
    @Flag(help: "Also delete records missing from the file.") var sync = false
    @Option(help: "With --sync: delete only missing records matching this predicate.") var scope: String?
    @Option(parsing: .unconditional, help: "Commit every N records instead of once at the end.") var batchSize: Int?
    @Option(help: "abort: nothing is written when a record fails; skip: leave failing records out.") var onError: ErrorPolicyArgument = .abort
    @Flag(help: "Report what would change without writing.") var dryRun = false
    @Option(help: "table (the report as a line, default) or json (one object).") var format: OutputFormat?
    @Flag(help: .hidden) var json = false

    func validate() throws {
        if scope != nil, !sync { throw ValidationError("--scope applies to --sync imports") }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1 (it is \(batchSize))") }
        if let maxRecordFields, maxRecordFields < 1 { throw ValidationError("--max-record-fields must be at least 1 (it is \(maxRecordFields))") }
        if keyField != nil, let inputFormat, inputFormat != .keyed {
            throw ValidationError("--key-field names the field of keyed objects' member names; --input-format \(inputFormat.rawValue) has none")
        }
        if rootKey != nil, inputFormat == .jsonl { throw ValidationError("--root-key picks the records out of one JSON document; JSON Lines have no root key") }
    }

    func run() throws {
        let started = Date()
        let format = try OutputFormat.check(json ? .json : format ?? .table, allowed: [.table, .json])
        let input = try InputFile(file)
        // The spooled standard input exists only while its descriptor is open.
        defer { withExtendedLifetime(input) {} }
        let created = NewStore(path: self.store)
        var report: ImportReport
        var phases: [Phase] = []
        do {
            report = try importRecords(from: input, phases: &phases)
        } catch {
            created.remove()
            throw error
        }
        if report.dryRun { created.remove() }
        // The whole command's time, schema inference included, and each phase's.
        report.seconds = Date().timeIntervalSince(started)
        if format == .json {
            Terminal.write(Self.json(report, phases: phases).jsonText + "\n")
        } else if phases.count > 1 {
            Terminal.write("\(report) (" + phases.map { $0.name + String(format: " %.2f s", $0.seconds) }.joined(separator: ", ") + ")\n")
        } else {
            Terminal.write("\(report)\n")
        }
    }

    /// A part of the command's time: inferring the schema, importing.
    struct Phase {
        var name: String
        var seconds: Double
    }

    /// Imports `input` into the store, creating it when missing.
    private func importRecords(from input: InputFile, phases: inout [Phase]) throws -> ImportReport {
        let store = try Store(path: self.store, configuration: .command())
        var limits = JSONLimits()
        if let maxRecordFields { limits.maximumRecordFields = maxRecordFields }
        // The input's format is told once, for the schema inference and the import alike.
        let options = try ImportOptions(rootKey: rootKey, inputFormat: inputFormat?.format ?? .detected, keyField: keyField, limits: limits)
            .resolvingInputFormat(ofFile: input.path)
        if inputFormat == nil, options.inputFormat == .keyedObjects {
            Terminal.error("note: the JSON is one object whose members are all objects: each member is a record, its name in the field "
                + "'\(keyField ?? "id")' (--key-field NAME names another; --input-format json reads the object as one record)")
        }
        let (description, others) = try describe(store: store, input: input.path, options: options, phases: &phases)
        let importing = Date()
        defer { phases.append(Phase(name: "importing", seconds: Date().timeIntervalSince(importing))) }
        let bar = ProgressBar("importing \(entity)", unit: "records")
        var importOptions = options
        importOptions.mode = sync ? (scope.map { ImportOptions.Mode.sync(scope: $0) } ?? .sync) : .upsert
        importOptions.onError = onError.policy
        importOptions.dryRun = dryRun
        importOptions.batchSize = batchSize
        importOptions.related = others.map(RelatedEntity.described)
        if Terminal.errorIsTerminal {
            importOptions.progress = { progress in bar.update(fraction: progress.fractionCompleted, count: progress.recordsRead) }
        }
        do {
            let url = URL(fileURLWithPath: input.path)
            let report: ImportReport
            if schema != nil, let description {
                report = try store.importJSON(contentsOf: url, entity: description, options: importOptions)
            } else {
                // Without a schema file, the description stored when the import's write transaction
                // starts (the inferred one only for a store still without the entity then): an
                // import queued behind a migration imports into the migrated schema.
                report = try store.importJSON(contentsOf: url, storedEntity: entity, keyedBy: primaryKey,
                                              otherwise: description, options: importOptions)
            }
            bar.finish(completed: true)
            return report
        } catch {
            bar.finish(completed: false)
            throw error
        }
    }

    /// The description to import with: nil for an entity the store holds (the import takes the
    /// stored one in its write transaction), else one inferred from the data and completed by the
    /// schema file's; with the schema file's other entities, which nested JSON may fill.
    private func describe(store: Store, input: String, options: ImportOptions,
                          phases: inout [Phase]) throws -> (EntityDescription?, [EntityDescription]) {
        var partial: EntityDescription?
        var others: [EntityDescription] = []
        if let schema {
            let data = try ImportCommand.readSmallFile(schema, named: "the schema file")
            let file = try SchemaFile(json: data, allowingPartial: true)
            guard let description = file.entity(entity) else {
                throw CommandFailure(message: "the schema file \(schema) does not describe '\(entity)'; it describes "
                    + file.entities.map(\.name).joined(separator: ", "))
            }
            partial = description
            others = file.entities.filter { $0.name != entity }
            for other in others { try other.validate() }   // related entities are described whole
        } else {
            // Only whether to infer one: the stored description (and its primary key's check) is
            // taken by the import's write transaction.
            if try store.read({ tx in try tx.entityNames().contains(entity) }) { return (nil, []) }
        }
        // Inference reads the whole input first: a phase of its own, with its own progress bar.
        let inferring = Date()
        let bar = ProgressBar("inferring schema of \(entity)", unit: "records")
        var progress: (@Sendable (ImportProgress) -> Void)?
        if Terminal.errorIsTerminal {
            progress = { progress in bar.update(fraction: progress.fractionCompleted, count: progress.recordsRead) }
        }
        let described: EntityDescription
        do {
            described = try EntityDescription.inferred(name: entity, fromJSONFile: input, rootKey: rootKey, inputFormat: options.inputFormat,
                                                       keyField: keyField, primaryKey: primaryKey, generatingKey: true,
                                                       completing: partial, related: others, limits: options.limits, progress: progress)
            bar.finish(completed: true)
        } catch {
            bar.finish(completed: false)
            throw error
        }
        phases.append(Phase(name: "inferring schema", seconds: Date().timeIntervalSince(inferring)))
        let named = partial?.fields.count ?? 0
        if partial == nil || described.fields.count > named {
            Terminal.error("note: " + (partial == nil ? "no schema given: inferred one from the data" : "completed the schema from the data")
                + " (\(described.fields.count) fields, primary key \(described.hasCompoundKey ? "(" + described.primaryKeyFields.joined(separator: ", ") + ")" : "'\(described.primaryKey)'")); `strata schema \(store.path)` prints it")
        }
        if described.primaryKeyIsGenerated {
            Terminal.error("note: the records have no 'id' field: each record's position in the file (1, 2, …) is its primary key "
                + "'\(described.primaryKey)'; importing the same file again updates the same records; --primary-key FIELD names a real key")
        }
        return (described, others)
    }

    /// The bytes of the file at `path` (a schema file, a migration plan; `what` names it in
    /// messages): a regular file, or a pipe (`--schema <(strata schema old.strata)`, a FIFO), of
    /// at most 64 MiB, so that a device (`/dev/zero`) or a directory is named as what it is, and
    /// a pipe that keeps writing is cut off, not read forever.
    static func readSmallFile(_ path: String, named what: String) throws -> Data {
        let limit = 64 << 20
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CommandFailure(message: "cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFIFO else {
            throw CommandFailure(message: "cannot read \(what) \(path): it is not a regular file or a pipe")
        }
        guard status.st_size <= limit else {
            throw CommandFailure(message: "cannot read \(what) \(path): it holds \(status.st_size) bytes; it can be at most 64 MiB")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(message: "cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        // A pipe has no size to check first: read one byte past the limit, in chunks, to tell.
        var data = Data()
        do {
            while data.count <= limit, let chunk = try handle.read(upToCount: min(1 << 20, limit + 1 - data.count)), !chunk.isEmpty {
                data.append(chunk)
            }
        } catch {
            throw CommandFailure(message: "cannot read \(what) \(path): \(String(cString: strerror(EIO)))")
        }
        guard data.count <= limit else {
            throw CommandFailure(message: "cannot read \(what) \(path): it holds more than 64 MiB, the most it can hold")
        }
        return data
    }

    /// The report as `strata import --format json` prints it: ``ImportReport/json``, the one JSON
    /// form of a report (the studio answers it too), with `phases`, the time of each phase, added.
    static func json(_ report: ImportReport, phases: [Phase] = []) -> JSONValue {
        guard case .object(var members) = report.json else { return report.json }
        members.append(JSONMember(key: "phases", value: .array(phases.map { phase in
            .object([JSONMember(key: "phase", value: .string(phase.name)),
                     JSONMember(key: "seconds", value: .double((phase.seconds * 1000).rounded() / 1000))])
        })))
        return .object(members)
    }
}

/// `--input-format`: how the records lie in the input (omitted: told from it).
enum InputFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case json, jsonl, keyed
    var format: ImportOptions.InputFormat {
        switch self {
        case .json: .json
        case .jsonl: .jsonLines
        case .keyed: .keyedObjects
        }
    }
}

enum ErrorPolicyArgument: String, ExpressibleByArgument, CaseIterable {
    case abort, skip
    var policy: ImportOptions.ErrorPolicy { self == .abort ? .abort : .skip }
}

/// The JSON input: a file as given, or standard input spooled to an unlinked temporary file
/// (the import may read its input twice: to infer a schema, and when the map must grow).
struct InputFile {
    let path: String
    /// Keeps the spooled standard input open (and so in existence) while the import reads it.
    private let spool: ImportSpool?

    init(_ argument: String) throws {
        guard argument == "-" else {
            guard FileManager.default.isReadableFile(atPath: argument) else {
                throw CommandFailure(message: "cannot read \(argument): no such readable file")
            }
            path = argument
            spool = nil
            return
        }
        let spool = try ImportSpool.standardInput()
        path = spool.path
        self.spool = spool
    }
}

/// The store directory of an import into a path where nothing was: removed again when the
/// import fails or was a dry run, so that a mistyped or refused first import leaves no empty
/// store behind.
struct NewStore {
    /// The path, when nothing (not even a dangling link) was there before the import.
    private let path: String?

    init(path: String) {
        var status = stat()
        self.path = lstat(path, &status) == 0 ? nil : path
    }

    /// Removes the store the import created, unless it holds an entity (another process may have
    /// imported into it since): its files, then the directory, which stays if it holds anything else.
    func remove() {
        guard let path else { return }
        if let entities = try? Store.reading(path).read({ tx in try tx.entityNames() }), !entities.isEmpty { return }
        for file in ["data.mdb", "lock.mdb", "writer.lock"] { unlink(path + "/" + file) }
        rmdir(path)
    }
}
