@_spi(Format) import StrataFormat
import LMDB

/// The state of an import inside one write transaction: the writing half of the pipeline. It
/// writes the imported entity's records through its ``EntityWriter``, the related records nested
/// in them through writers of their own (ImportSession+Nested.swift), tracks the payload's keys
/// for duplicates and a sync, and deletes what a sync's payload lacks.
final class ImportSession {
    let tx: WriteTransaction
    let options: ImportOptions
    /// The imported entity's writer.
    let root: EntityWriter
    /// The entities nested JSON may fill, and their write targets.
    let graph: ImportGraph
    let targets: [String: ImportTarget]
    /// The writer of every entity the import may write, made when the session starts.
    var writers: [String: EntityWriter] = [:]
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
        root = try EntityWriter(tx, target, options)
        (graph, targets) = try ImportGraph.build(tx, root: target, rootContext: root.context, options: options)
        writers[root.name] = root
        // Every writer now, outside the nested transactions that skippable records run in: a
        // database handle first opened in one closes when it rolls back.
        for name in targets.keys where name != root.name { writers[name] = try EntityWriter(tx, targets[name]!, options) }
        maximumKeySize = tx.store.environmentView.maxKeySize
        let name = "import/\(root.name)"
        let seen = try tx.openScratchDatabase(name, entity: root.name)
        self.seen = seen
        if !keepSeen { try tx.empty(seen, entity: root.name) }
        seenIsOrdered = !keepSeen
    }

    /// Writes one mapped record; a failed one is skipped or thrown as the options say.
    func process(_ item: PipelineItem, into report: inout ImportReport) throws {
        report.records += 1
        switch item.content {
        case .failed(let message):
            try fail(StrataError(.invalidRecord, message), index: item.index, position: item.position, into: &report)
        case .mapped(var mapped):
            do {
                if mapped.related.isEmpty || options.onError == .abort {
                    try write(&mapped, into: &report)
                } else {
                    // A record is skipped whole, with the related records written before it failed.
                    var attempt = report
                    let counts = writers.mapValues(\.counts)
                    do {
                        try tx.inPlaceSavepoint { try write(&mapped, into: &attempt) }
                    } catch {
                        for (name, writer) in writers { writer.counts = counts[name] ?? RelatedImportCounts() }
                        throw error
                    }
                    report = attempt
                }
            } catch let failure as ConversionFailure {
                try fail(StrataError(.invalidRecord, failure.message), index: item.index, position: item.position, into: &report)
            } catch let error as StrataError where Self.skippable.contains(error.code) {
                try fail(error, index: item.index, position: item.position, into: &report)
            }
        }
    }

    /// Errors that concern one record, which ``ImportOptions/ErrorPolicy/skip`` skips.
    private static let skippable: Set<StrataError.Code> = [.uniqueViolation, .deleteDenied, .notFound]

    /// Throws or skips `error` of the record at `index` (0-based) in the input.
    private func fail(_ error: StrataError, index: Int, position: InputPosition, into report: inout ImportReport) throws {
        var error = error
        // Counted from 1, as generated keys and the tool's messages count records.
        error.message = "record \(index + 1): " + error.message
        error.record = index + 1
        error.position = position
        error.entity = error.entity ?? root.name
        guard options.onError == .skip else { throw error }
        report.skipped += 1
        if report.failures.count < 100 { report.failures.append(error) }
    }

    /// Records the key in `seen`; false when the payload had it before.
    private func markSeen(_ key: [UInt8]) throws -> Bool {
        // Payloads often come in key order: then each key goes at the end, without a search.
        if seenIsOrdered, largestSeen.map({ OrderedKey.precedes($0, key) }) ?? true {
            largestSeen = key
            return try tx.noteScratchKey(key, in: seen, appending: true, entity: root.name)
        }
        seenIsOrdered = false
        return try tx.noteScratchKey(key, in: seen, appending: false, entity: root.name)
    }

    private func write(_ mapped: inout RecordMapper.Mapped, into report: inout ImportReport) throws {
        let firstTime = try markSeen(mapped.primaryKey)
        if !firstTime {
            report.duplicates += 1
            if report.duplicateKeys.count < 20 { report.duplicateKeys.append(mapped.keyText) }
        }
        let outcome = mapped.related.isEmpty ? try root.store(mapped) : try writeWithRelated(&mapped, root)
        switch outcome {
        case .inserted: report.inserted += 1
        case .updated: if firstTime { report.updated += 1 }
        case .unchanged: if firstTime { report.unchanged += 1 }
        case .notUpdated: if firstTime { report.notUpdated += 1 }
        case .notInserted: report.notInserted += 1
        }
    }

    /// Adds what the import did to related records in this transaction to `report`.
    func countRelated(into report: inout ImportReport) {
        for (name, writer) in writers where writer.counts != RelatedImportCounts() {
            report.related[name, default: RelatedImportCounts()].add(writer.counts)
        }
    }

    /// Deletes what a sync's payload lacks, then empties the seen-keys database.
    func finish(into report: inout ImportReport) throws {
        if options.mode.deletesMissing { try deleteMissing(into: &report) }
        try tx.empty(seen, entity: root.name)
    }

    private func deleteMissing(into report: inout ImportReport) throws {
        let context = root.context
        let scope = try options.mode.scope.map { format in
            try PredicateFormat.parse(format, arguments: options.mode.scopeArguments, entity: context.name,
                                      fields: Set(context.schema.fields.entries.map(\.name)),
                                      types: FieldTypes(root.description)).predicate
        }
        // The scope reads only its own fields, found by id in one pass over each record; a
        // `SEARCH` in it runs over each record's own texts, as a query's filter runs it.
        let texts = try scope.map { try TextSearchTarget.targets(of: $0, schema: context.schema) } ?? [:]
        let selection = scope.map { FieldSelection(predicate: $0, orderings: [], fields: context.schema.fields, texts: texts) }
        let prepared = scope.flatMap { scope in selection.map { PreparedPredicate(scope, selection: $0, texts: texts) } }
        var offsets: [Int] = []
        var doomed: [[UInt8]] = []
        try tx.forEachStoredRecord(context) { key, bytes in
            guard try !tx.hasScratchKey(key, in: seen, entity: context.name) else { return true }
            var inScope = true
            if let prepared, let selection {
                do {
                    inScope = prepared.evaluate(on: try selection.values(of: bytes, reusing: &offsets))
                } catch {
                    throw StoredFieldValues.corrupt(entity: context.name, cause: error)
                }
            }
            if inScope {
                if options.deletesMissing { doomed.append(key) } else { report.notDeleted += 1 }
            }
            return true
        }
        for key in doomed {
            // A cascade from an earlier deletion may have taken it already.
            guard try tx.hasRecord(forKey: key, context) else { continue }
            try root.delete(key)
            report.deleted += 1
        }
    }
}
