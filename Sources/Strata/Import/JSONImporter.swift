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
    /// The index maintenance of one transaction.
    let indexer: (WriteTransaction, EntityContext) -> ImportIndexer
}

/// Index maintenance from stored bytes: `checkUnique(new, primaryKey, describeKey)` before a
/// write, `update(old, new, primaryKey)` after it.
struct ImportIndexer {
    var isEmpty: Bool
    var checkUnique: ([UInt8], [UInt8], () -> String) throws -> Void
    var update: ([UInt8]?, [UInt8]?, [UInt8]) throws -> Void
}

/// Runs one import: parses records from the source, maps and writes them in one write
/// transaction (or one per batch), deletes what a sync's payload lacks, and reports.
final class JSONImporter {
    private let store: Store
    private let source: ImportSource
    private let target: ImportTarget
    private let options: ImportOptions

    init(store: Store, source: ImportSource, target: ImportTarget, options: ImportOptions) {
        self.store = store
        self.source = source
        self.target = target
        self.options = options
    }

    /// Thrown to roll back a dry run, carrying its report out of the transaction.
    private struct DryRunRollback: Error { var report: ImportReport }

    func run() throws -> ImportReport {
        let started = DispatchTime.now()
        if let size = options.batchSize, size <= 0 {
            throw StrataError(.invalidValue, "the import batch size must be positive, not \(size)")
        }
        var report: ImportReport
        if let batchSize = options.batchSize, !options.dryRun {
            report = try runBatched(batchSize)
        } else {
            do {
                report = try store.write(durability: options.durability) { tx in
                    let session = try ImportSession(tx, target, options)
                    let pipeline = ImportPipeline(source: source, description: target.description,
                                                  options: options, maximumKeySize: session.maximumKeySize)
                    defer { pipeline.finish() }
                    var report = ImportReport(entity: target.description.name)
                    var ignoredKeys: [String: Int] = [:]
                    var lastOffset = 0
                    loop: while let batch = pipeline.next() {
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
                    if report.records % 10_000 != 0 || report.records == 0 { reportProgress(report.records, lastOffset) }
                    report.ignoredKeys = ignoredKeys
                    try session.finish(into: &report)
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
        var parser = JSONParser(source: try source.open(), limits: options.limits)
        var report = ImportReport(entity: target.description.name)
        var index = 0
        var first = true
        while true {
            var batch: [(JSONValue, InputPosition)] = []
            while batch.count < batchSize, let next = try parser.nextRecordWithStart(rootKey: options.rootKey) { batch.append(next) }
            let isLast = batch.count < batchSize
            let batchStart = index
            let isFirst = first
            report = try store.write(durability: options.durability) { tx in
                let session = try ImportSession(tx, target, options, keepSeen: !isFirst)
                let mapper = RecordMapper(description: target.description, options: options)
                var batchReport = report
                for (offset, (record, position)) in batch.enumerated() {
                    let item = mapper.item(record, index: batchStart + offset, position: position, endOffset: 0,
                                           maximumKeySize: session.maximumKeySize)
                    try session.process(item, into: &batchReport)
                }
                for (key, count) in mapper.ignoredKeys { batchReport.ignoredKeys[key, default: 0] += count }
                if isLast { try session.finish(into: &batchReport) }
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

/// The state of an import inside one write transaction: the writing half of the pipeline.
private final class ImportSession {
    let tx: WriteTransaction
    let context: EntityContext
    let layout: RecordLayout
    let indexer: ImportIndexer
    let options: ImportOptions
    /// The primary keys seen in this import's payload: an LMDB database emptied at the start and
    /// the end, so that duplicate detection and a sync's deletions cost no memory per record.
    let seen: Database
    /// The largest key in `seen` while every key went in at its end (nil: `seen` is empty, or
    /// its largest key is unknown): a larger key is appended, without a search.
    var largestSeen: [UInt8]?
    var seenIsOrdered: Bool
    let maximumKeySize: Int

    init(_ tx: WriteTransaction, _ target: ImportTarget, _ options: ImportOptions, keepSeen: Bool = false) throws {
        self.tx = tx
        self.options = options
        context = try target.context(tx)
        layout = RecordLayout(target.description, ids: context.schema.fields)
        indexer = target.indexer(tx, context)
        maximumKeySize = tx.store.environment.maxKeySize
        let name = "import/\(context.name)"
        guard let seen = try tx.lmdb(entity: context.name, { try tx.raw.openDatabase(name, options: .create) }) else {
            preconditionFailure("mdb_dbi_open with MDB_CREATE returned no database")
        }
        self.seen = seen
        if context.largestKey == nil {
            let records = context.records
            context.largestKey = try tx.lmdb(entity: context.name) {
                try tx.raw.withCursor(records) { cursor in try cursor.last() ? cursor.key : [] }
            }
        }
        if !keepSeen { try tx.lmdb(entity: context.name) { try tx.raw.drop(seen) } }
        seenIsOrdered = !keepSeen
    }

    /// Writes one mapped record; a failed one is skipped or thrown as the options say.
    func process(_ item: PipelineItem, into report: inout ImportReport) throws {
        report.records += 1
        switch item.content {
        case .failed(let message):
            try fail(StrataError(.invalidRecord, message), index: item.index, position: item.position, into: &report)
        case .mapped(let mapped):
            do {
                try write(mapped, into: &report)
            } catch let failure as ConversionFailure {
                try fail(StrataError(.invalidRecord, failure.message), index: item.index, position: item.position, into: &report)
            } catch let error as StrataError where error.code == .uniqueViolation {
                try fail(error, index: item.index, position: item.position, into: &report)
            }
        }
    }

    private func fail(_ error: StrataError, index: Int, position: InputPosition, into report: inout ImportReport) throws {
        var error = error
        error.message = "record \(index): " + error.message
        error.record = index
        error.position = position
        error.entity = context.name
        guard options.onError == .skip else { throw error }
        report.skipped += 1
        if report.failures.count < 100 { report.failures.append(error) }
    }

    /// `tx.lmdb(entity:key:)`, with the key's text made only for an error.
    private func lmdb<R>(_ mapped: RecordMapper.Mapped, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as LMDBError {
            throw StrataError(error, path: tx.store.path, entity: context.name, key: mapped.keyText)
        }
    }

    /// Records the key in `seen`; false when the payload had it before.
    private func markSeen(_ key: [UInt8]) throws -> Bool {
        let raw = tx.raw
        return try tx.lmdb(entity: context.name) {
            // Payloads often come in key order: then each key goes at the end, without a search.
            if seenIsOrdered, largestSeen.map({ $0.lexicographicallyPrecedes(key) }) ?? true {
                try raw.put([], forKey: key, in: seen, options: .append)
                largestSeen = key
                return true
            }
            seenIsOrdered = false
            return try raw.putIfAbsent([], forKey: key, in: seen) == nil
        }
    }

    /// What the records database holds under a key.
    private enum StoredRecord {
        case absent
        /// The mapped record would store exactly these bytes again.
        case unchanged
        case bytes([UInt8])
    }

    private func write(_ mapped: RecordMapper.Mapped, into report: inout ImportReport) throws {
        let key = mapped.primaryKey
        let raw = tx.raw
        let firstTime = try markSeen(key)
        if !firstTime {
            report.duplicates += 1
            if report.duplicateKeys.count < 20 { report.duplicateKeys.append(mapped.keyText) }
        }
        // An unchanged record is recognised in the memory map, without copying or decoding it.
        let found = try lmdb(mapped) {
            try raw.withValue(forKey: key, in: context.records) { value in
                value.withUnsafeBufferPointer { bytes in
                    layout.isUnchanged(mapped, stored: bytes) ? StoredRecord.unchanged : .bytes(Array(bytes))
                }
            }
        } ?? .absent
        let stored: [UInt8]?
        switch found {
        case .unchanged:
            if firstTime { report.unchanged += 1 }
            return
        case .absent: stored = nil
        case .bytes(let bytes): stored = bytes
        }
        let bytes = try layout.encode(mapped, merging: stored, entity: context.name)
        if let stored {
            if stored == bytes {
                if firstTime { report.unchanged += 1 }
                return
            }
            guard options.updatesExisting else {
                if firstTime { report.notUpdated += 1 }
                return
            }
        } else if !options.insertsNew {
            report.notInserted += 1
            return
        }
        if !indexer.isEmpty { try indexer.checkUnique(bytes, key) { mapped.keyText } }
        try lmdb(mapped) {
            if stored == nil, let largest = context.largestKey, largest.lexicographicallyPrecedes(key) {
                try raw.put(bytes, forKey: key, in: context.records, options: .append)
                context.largestKey = key
            } else {
                try raw.put(bytes, forKey: key, in: context.records)
            }
        }
        if !indexer.isEmpty { try indexer.update(stored, bytes, key) }
        if stored == nil {
            report.inserted += 1
        } else if firstTime {
            report.updated += 1
        }
    }

    /// Deletes what a sync's payload lacks, then empties the seen-keys database.
    func finish(into report: inout ImportReport) throws {
        if options.mode.deletesMissing { try deleteMissing(into: &report) }
        try tx.lmdb(entity: context.name) { try tx.raw.drop(seen) }
    }

    private func deleteMissing(into report: inout ImportReport) throws {
        let scope = try options.mode.scope.map { format in
            try PredicateFormat.parse(format, arguments: options.mode.scopeArguments, entity: context.name,
                                      fields: Set(context.schema.fields.entries.map(\.name))).predicate
        }
        // The scope reads only its own fields, found by id in one pass over each record.
        let selection = scope.map { FieldSelection(predicate: $0, orderings: [], fields: context.schema.fields) }
        var offsets: [Int] = []
        let raw = tx.raw
        var doomed: [[UInt8]] = []
        try tx.lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in
                var more = try cursor.first()
                while more {
                    let key = cursor.key
                    if try !raw.contains(key, in: seen) {
                        var inScope = true
                        if let scope, let selection {
                            do {
                                inScope = scope.evaluate(on: try selection.values(of: cursor.value, reusing: &offsets))
                            } catch {
                                throw StoredFieldValues.corrupt(entity: context.name, cause: error)
                            }
                        }
                        if inScope {
                            if options.deletesMissing { doomed.append(key) } else { report.notDeleted += 1 }
                        }
                    }
                    more = try cursor.next()
                }
            }
        }
        for key in doomed {
            let old = try tx.lmdb(entity: context.name) { try raw.value(forKey: key, in: context.records) }
            if !indexer.isEmpty { try indexer.update(old, nil, key) }
            _ = try tx.lmdb(entity: context.name) { try raw.delete(key, in: context.records) }
            report.deleted += 1
        }
    }
}
