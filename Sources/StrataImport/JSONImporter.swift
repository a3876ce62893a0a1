import Foundation
import LMDB

/// Where an import reads from. Re-readable: a write transaction that LMDB's map outgrew is
/// retried from the start after the map grows, and then reads the input again.
enum ImportSource: Sendable {
    case bytes([UInt8])
    case file(String)

    func open() throws(StrataError) -> any JSONByteSource {
        switch self {
        case .bytes(let bytes): InMemoryByteSource(bytes)
        case .file(let path): try FileByteSource(path: path)
        }
    }

    var size: Int? {
        switch self {
        case .bytes(let bytes): return bytes.count
        case .file(let path): return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        }
    }
}

/// The entity an import writes: found or created in the transaction, with its index maintenance.
struct ImportTarget {
    let description: EntityDescription
    /// The entity's context, created, migrated and with ids for every described field.
    let context: (WriteTransaction) throws -> EntityContext
    /// For a target known only inside the write transaction (the entity as stored, ``stored(_:keyedBy:otherwise:)``),
    /// what it is there; nil: this target as it is.
    var resolution: ((WriteTransaction) throws -> ImportTarget)? = nil

    /// What this target is in `tx`: each write transaction of an import resolves it again, so
    /// that its description, field ids and mappings are the ones that transaction sees.
    func resolved(in tx: WriteTransaction) throws -> ImportTarget {
        try resolution?(tx) ?? self
    }

    /// Throws `.invalidValue` for a sync into an entity whose primary key is generated.
    func checkSync(_ options: ImportOptions) throws(StrataError) {
        guard description.primaryKeyIsGenerated, options.mode.deletesMissing else { return }
        let name = description.name
        throw StrataError(.invalidValue, "\(name): a sync deletes the records the input lacks, but \(name)'s primary key "
            + "'\(description.primaryKey)' is generated from each record's position in the input, which says nothing "
            + "about which record is missing; import with a real primary key (a field of the records) to sync", entity: name)
    }
}

/// Runs one import: parses records from the source, maps and writes them in one write
/// transaction (or one per batch), deletes what a sync's payload lacks, and reports.
final class JSONImporter {
    private let store: Store
    private let source: ImportSource
    private let target: ImportTarget
    /// As given, until ``run()`` resolves their input format.
    private var options: ImportOptions
    /// Set when the task awaiting an async import is cancelled; checked between batches.
    private let cancellation: CancellationFlag?

    init(store: Store, source: ImportSource, target: ImportTarget, options: ImportOptions,
         cancellation: CancellationFlag? = nil) {
        self.store = store
        self.source = source
        self.target = target
        self.options = options
        self.cancellation = cancellation
    }

    /// Throws `.cancelled` when the awaiting task was cancelled; the transaction then rolls back.
    private func checkCancellation(_ records: Int) throws(StrataError) {
        guard cancellation?.isCancelled == true else { return }
        throw StrataError(.cancelled, "the import into \(target.description.name) was cancelled after \(records) records; its transaction was rolled back",
                          entity: target.description.name)
    }

    /// Thrown to roll back a dry run, carrying its report out of the transaction.
    private struct DryRunRollback: Error { var report: ImportReport }

    func run() throws -> ImportReport {
        let started = DispatchTime.now()
        if let size = options.batchSize, size <= 0 {
            throw StrataError(.invalidValue, "the import batch size must be positive, not \(size)")
        }
        try target.checkSync(options)
        // Told once, before any transaction: a retried one reads the input as the first did.
        options = try options.resolvingInputFormat(of: source)
        var report: ImportReport
        if let batchSize = options.batchSize, !options.dryRun {
            report = try runBatched(batchSize)
        } else {
            do {
                report = try store.write(durability: options.durability) { tx in
                    let target = try self.target.resolved(in: tx)
                    try target.checkSync(options)
                    let session = try ImportSession(tx, target, options)
                    let pipeline = ImportPipeline(source: source, description: target.description, graph: session.graph,
                                                  options: options, maximumKeySize: session.maximumKeySize,
                                                  executor: store.decodeExecutor)
                    defer { pipeline.finish() }
                    var report = ImportReport(entity: target.description.name)
                    var ignoredKeys: [String: Int] = [:]
                    var lastOffset = 0
                    loop: while let batch = pipeline.next() {
                        try checkCancellation(report.records)
                        switch batch {
                        case .records(let items):
                            for item in items {
                                try session.process(item, into: &report)
                                lastOffset = item.endOffset
                                if report.records % 10_000 == 0 { reportProgress(report.records, lastOffset) }
                            }
                        case .end(let ignored, let offset):
                            ignoredKeys = ignored
                            lastOffset = offset
                            break loop
                        case .failure(let error):
                            throw error
                        }
                    }
                    try checkCancellation(report.records)
                    if report.records % 10_000 != 0 || report.records == 0 { reportProgress(report.records, lastOffset) }
                    report.ignoredKeys = ignoredKeys
                    try session.finish(into: &report)
                    session.countRelated(into: &report)
                    if options.dryRun { throw DryRunRollback(report: report) }
                    report.transactions = 1
                    return report
                }
            } catch let rollback as DryRunRollback {
                report = rollback.report
                report.dryRun = true
            }
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        store.configuration.logger.info("imported", metadata: ["entity": "\(report.entity)", "report": "\(report)"])
        return report
    }

    /// Imports `batchSize` records per write transaction. The records of a batch are read before
    /// its transaction starts, so a transaction retried after map growth sees them again.
    private func runBatched(_ batchSize: Int) throws -> ImportReport {
        var parser = try options.parser(of: source)
        var report = ImportReport(entity: target.description.name)
        var index = 0
        var first = true
        while true {
            var batch: [(JSONValue, InputPosition)] = []
            while batch.count < batchSize, let next = try parser.nextRecordWithStart(rootKey: options.rootKey) { batch.append(next) }
            let isLast = batch.count < batchSize
            let batchStart = index
            let isFirst = first
            try checkCancellation(index)
            report = try store.write(durability: options.durability) { tx in
                let target = try self.target.resolved(in: tx)
                try target.checkSync(options)
                let session = try ImportSession(tx, target, options, keepSeen: !isFirst)
                let mapper = RecordMapper(description: target.description, options: options, graph: session.graph)
                var batchReport = report
                for (offset, (record, position)) in batch.enumerated() {
                    let item = mapper.item(record, index: batchStart + offset, position: position, endOffset: 0,
                                           maximumKeySize: session.maximumKeySize)
                    try session.process(item, into: &batchReport)
                }
                for (key, count) in mapper.allIgnoredKeys { batchReport.ignoredKeys[key, default: 0] += count }
                if isLast { try session.finish(into: &batchReport) }
                session.countRelated(into: &batchReport)
                batchReport.transactions += 1
                return batchReport
            }
            first = false
            index += batch.count
            reportProgress(index, parser.offset)
            if isLast { return report }
        }
    }

    private func reportProgress(_ records: Int, _ offset: Int) {
        options.progress?(ImportProgress(recordsRead: records, bytesRead: offset, totalBytes: source.size))
    }
}
