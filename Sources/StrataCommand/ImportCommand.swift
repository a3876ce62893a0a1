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
        defer { input.cleanUp() }
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
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: schema)) } catch {
                throw CommandFailure(message: "cannot read the schema file \(schema): \(error.localizedDescription)")
            }
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

/// The JSON input: a file as given, or standard input spooled to a private temporary file (the
/// import may read its input twice: to infer a schema, and when the map must grow).
struct InputFile {
    let path: String
    private let temporary: Bool

    init(_ argument: String) throws {
        guard argument == "-" else {
            guard FileManager.default.isReadableFile(atPath: argument) else {
                throw CommandFailure(message: "cannot read \(argument): no such readable file")
            }
            path = argument
            temporary = false
            return
        }
        path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stdin-\(UUID().uuidString).json").path
        temporary = true
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let output = FileHandle(forWritingAtPath: path) else {
            throw CommandFailure(message: "cannot create a temporary file for standard input at \(path)")
        }
        defer { try? output.close() }
        while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }

    func cleanUp() {
        if temporary { try? FileManager.default.removeItem(atPath: path) }
    }
}
