import ArgumentParser
import Foundation
import Strata

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a JSON array of objects (or one object) into an entity, in one write transaction.",
        discussion: """
            Records are upserted by primary key; --sync also deletes the entity's records missing from \
            the file (only those matching --scope, when given). JSON keys map to fields by convention \
            (first_name → firstName, id → the primary key) unless the schema names them.

            The entity's description comes from --schema, else from the store (an entity imported \
            before), else it is inferred from the data: primary key `id`, types from the values, \
            optional where null or absent, no indexes. `strata schema STORE` prints it for editing.
            """
    )

    @Argument(help: "The store directory (created when missing).") var store: String
    @Argument(help: "The JSON file, or - for standard input.") var file: String
    @Option(help: "The entity to import into.") var entity: String
    @Option(help: "A schema file describing the entity (see `strata schema`).") var schema: String?
    @Option(help: "Import the array under this key of a top-level object ({\"users\": [...]}).") var rootKey: String?
    @Flag(help: "Also delete records missing from the file.") var sync = false
    @Option(help: "With --sync: delete only missing records matching this predicate.") var scope: String?
    @Option(help: "Commit every N records instead of once at the end.") var batchSize: Int?
    @Option(help: "abort: nothing is written when a record fails; skip: leave failing records out.") var onError: ErrorPolicyArgument = .abort
    @Flag(help: "Report what would change without writing.") var dryRun = false
    @Flag(help: "Print the report as one JSON object.") var json = false

    func validate() throws {
        if scope != nil, !sync { throw ValidationError("--scope applies to --sync imports") }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let input = try InputFile(file)
        // The spooled standard input exists only while its descriptor is open.
        defer { withExtendedLifetime(input) {} }
        let store = try Store(path: self.store, configuration: .command)
        let (description, others) = try describe(store: store, input: input.path)
        let bar = ProgressBar("importing \(entity)", unit: "records")
        var options = ImportOptions(
            mode: sync ? (scope.map { ImportOptions.Mode.sync(scope: $0) } ?? .sync) : .upsert,
            rootKey: rootKey, onError: onError.policy, dryRun: dryRun, batchSize: batchSize,
            related: others.map(RelatedEntity.described))
        if Terminal.errorIsTerminal {
            options.progress = { progress in bar.update(fraction: progress.fractionCompleted, count: progress.recordsRead) }
        }
        let report: ImportReport
        do {
            report = try store.importJSON(contentsOf: URL(fileURLWithPath: input.path), entity: description, options: options)
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        if json {
            Terminal.write(Self.json(report).jsonText + "\n")
        } else {
            Terminal.write("\(report)\n")
        }
    }

    /// The description to import with: the schema file's, the store's, or one inferred from the
    /// data; with the schema file's other entities, which nested JSON may fill.
    private func describe(store: Store, input: String) throws -> (EntityDescription, [EntityDescription]) {
        if let schema {
            let data = try Self.readSchemaFile(schema)
            let file = try SchemaFile(json: data)
            guard let description = file.entity(entity) else {
                throw CommandFailure(message: "the schema file \(schema) does not describe '\(entity)'; it describes "
                    + file.entities.map(\.name).joined(separator: ", "))
            }
            return (description, file.entities.filter { $0.name != entity })
        }
        let stored = try store.read { tx in try tx.entityNames().contains(entity) ? try tx.entityDescription(named: entity) : nil }
        if let stored { return (stored, []) }
        let inferred = try EntityDescription.inferred(name: entity, fromJSONFile: input, rootKey: rootKey)
        Terminal.error("note: no schema given: inferred one from the data (\(inferred.fields.count) fields, primary key '\(inferred.primaryKey)'); "
            + "`strata schema \(store.path)` prints it")
        return (inferred, [])
    }

    /// The bytes of the schema file at `path`: a regular file of at most 64 MiB, so that a device
    /// (`/dev/zero`) or a directory is named as what it is, not read forever.
    static func readSchemaFile(_ path: String) throws -> Data {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CommandFailure(message: "cannot read the schema file \(path): \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw CommandFailure(message: "cannot read the schema file \(path): it is not a regular file")
        }
        guard status.st_size <= 64 << 20 else {
            throw CommandFailure(message: "cannot read the schema file \(path): it holds \(status.st_size) bytes; a schema file is at most 64 MiB")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(message: "cannot read the schema file \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        do { return try handle.readToEnd() ?? Data() } catch {
            throw CommandFailure(message: "cannot read the schema file \(path): \(String(cString: strerror(EIO)))")
        }
    }

    /// The report as `strata import --json` prints it.
    static func json(_ report: ImportReport) -> JSONValue {
        .object([
            JSONMember(key: "entity", value: .string(report.entity)),
            JSONMember(key: "inserted", value: .int(Int64(report.inserted))),
            JSONMember(key: "updated", value: .int(Int64(report.updated))),
            JSONMember(key: "unchanged", value: .int(Int64(report.unchanged))),
            JSONMember(key: "deleted", value: .int(Int64(report.deleted))),
            JSONMember(key: "skipped", value: .int(Int64(report.skipped))),
            JSONMember(key: "errors", value: .array(report.failures.map { failure in
                .object([JSONMember(key: "record", value: failure.record.map { .int(Int64($0)) } ?? .null),
                         JSONMember(key: "message", value: .string(failure.message))])
            })),
            JSONMember(key: "related", value: .object(report.related.sorted { $0.key < $1.key }.map { entity, counts in
                JSONMember(key: entity, value: .object([
                    ("inserted", counts.inserted), ("updated", counts.updated), ("unchanged", counts.unchanged),
                    ("deleted", counts.deleted), ("linked", counts.linked), ("unlinked", counts.unlinked),
                ].map { JSONMember(key: $0.0, value: .int(Int64($0.1))) }))
            })),
            JSONMember(key: "dryRun", value: .bool(report.dryRun)),
            JSONMember(key: "seconds", value: .double((report.seconds * 1000).rounded() / 1000)),
        ])
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
