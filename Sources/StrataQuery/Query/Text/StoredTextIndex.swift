import LMDB
import StrataText

/// A full-text index as stored in LMDB, read inside one transaction: StrataText's
/// ``TextIndexReader`` over the four databases of ``TextIndexDatabases``.
///
/// A term's postings are its blocks in every segment, segment after segment (a later segment
/// holds later document ids), found by seeking their keys; the term dictionary is the terms' summary
/// keys of all segments walked together. Documents listed in `deleted` (deleted or replaced
/// records whose postings a merge has not dropped yet) are stepped over, and a term's document
/// frequency does not count them (the segments' summaries do). Counts the posting blocks it reads.
package final class StoredTextIndex: TextIndexReader {
    package let transaction: ReadTransaction
    package let databases: TextIndexDatabases
    package let entity: String
    package let descriptor: FullTextIndexDescriptor
    package let header: TextIndexHeader
    package let deleted: Set<DocumentID>
    /// `deleted`, ascending.
    private lazy var deletedInOrder: [DocumentID] = deleted.sorted()
    /// The runs and combined summary of each term looked up (nil: in no segment), so that a term's
    /// document frequency and its postings seek its summaries once.
    private var termRuns: [String: (runs: [StoredTermBlocks.Run], summary: TermSummary)?] = [:]
    /// Posting blocks read so far (what `explain --analyze` reports).
    private(set) var blocksRead = 0

    package var fieldCount: Int { descriptor.fields.count }
    package var keepsPositions: Bool { descriptor.positions }

    /// The index `descriptor` of `entity` in `databases`, as `transaction` sees it.
    package init(transaction: ReadTransaction, databases: TextIndexDatabases, entity: String, descriptor: FullTextIndexDescriptor) throws {
        self.transaction = transaction
        self.databases = databases
        self.entity = entity
        self.descriptor = descriptor
        if let bytes = try transaction.textIndexValue(forKey: TextIndexKeys.document(0), in: databases.documents, entity: entity) {
            do { header = try TextIndexHeader(bytes: bytes) } catch {
                throw error.strataError(index: descriptor.name, entity: entity, of: "the header (document 0)")
            }
        } else {
            header = TextIndexHeader(fieldCount: descriptor.fields.count)
        }
        var deleted = Set<DocumentID>()
        try transaction.forEachTextIndexEntry(in: databases.deleted, entity: entity) { key, _ in
            if let id = TextIndexKeys.document(of: key) { deleted.insert(id) }
            return true
        }
        self.deleted = deleted
    }

    package func statistics() throws -> TextIndexStatistics { header.statistics }

    /// The term's summary in each segment that holds it, with the segment's number.
    package func summaries(of term: [UInt8]) throws -> [(segment: UInt32, summary: TermSummary)] {
        var found: [(UInt32, TermSummary)] = []
        for segment in header.segments {
            let key = TextIndexKeys.posting(segment: segment.number, term: term, document: 0)
            guard let bytes = try transaction.textIndexValue(forKey: key, in: databases.postings, entity: entity) else { continue }
            do { found.append((segment.number, try TermSummary(bytes: bytes))) } catch {
                throw error.strataError(index: descriptor.name, entity: entity,
                                        of: "the summary of '\(String(decoding: term, as: UTF8.self))' in segment \(segment.number)")
            }
        }
        return found
    }

    /// The documents the postings of `term` hold by the segments' summaries, deleted ones not yet
    /// dropped included: the planner's estimate, read without reading a posting.
    package func postingCount(of term: String) throws -> Int {
        try summaries(of: Array(term.utf8)).reduce(0) { $0 + Int(clamping: $1.summary.documentCount) }
    }

    package func documentFrequency(of term: String, in fields: UInt64?) throws -> Int {
        guard let source = try blocks(of: term) else { return 0 }
        do {
            return try source.liveDocumentCount(in: fields, fieldCount: fieldCount, deleted: deletedInOrder)
        } catch let error as PostingsFormatError {
            throw error.strataError(index: descriptor.name, entity: entity, of: "the postings of '\(term)'")
        }
    }

    package func postings(of term: String) throws -> (any PostingCursor)? {
        guard let source = try blocks(of: term) else { return nil }
        let gone = deleted
        var isDeleted: (@Sendable (DocumentID) -> Bool)?
        if !gone.isEmpty { isDeleted = { @Sendable document in gone.contains(document) } }
        // Damage throws `PostingsFormatError`, as reading the blocks later does; the search names the index.
        return try BlockPostingCursor<StoredTermBlocks>(source: source, fieldCount: fieldCount, isDeleted: isDeleted)
    }

    /// The blocks of `term` in every segment, with their summaries combined; nil when no segment holds it.
    private func blocks(of term: String) throws -> StoredTermBlocks? {
        if let known = termRuns[term] {
            return known.map { StoredTermBlocks(index: self, term: Array(term.utf8), runs: $0.runs, summary: $0.summary) }
        }
        let found = try seekBlocks(of: term)
        termRuns[term] = .some(found.map { ($0.runs, $0.summary) })
        return found
    }

    /// The blocks of `term`, sought in every segment.
    private func seekBlocks(of term: String) throws -> StoredTermBlocks? {
        let bytes = Array(term.utf8)
        let found = try summaries(of: bytes)
        guard !found.isEmpty else { return nil }
        var runs: [StoredTermBlocks.Run] = []
        for (segment, _) in found {
            let start = TextIndexKeys.posting(segment: segment, term: bytes, document: 1)
            var first: DocumentID?
            try transaction.forEachTextIndexEntry(in: databases.postings, from: start, entity: entity) { key, _ in
                if let parts = TextIndexKeys.parts(of: key), parts.segment == segment, parts.term == bytes { first = parts.document }
                return false
            }
            if let first { runs.append(StoredTermBlocks.Run(segment: segment, firstDocument: first)) }
        }
        guard !runs.isEmpty else { return nil }
        let summaries = found.map(\.summary)
        var highest = [UInt32](repeating: 0, count: fieldCount)
        for summary in summaries {
            for (field, value) in summary.maximumFrequencies.enumerated() where field < fieldCount { highest[field] = max(highest[field], value) }
        }
        // Counts per field only when every segment's summary keeps them (version 2).
        var perField: [UInt64]? = [UInt64](repeating: 0, count: fieldCount)
        for summary in summaries {
            guard let counts = summary.fieldDocumentCounts, counts.count == fieldCount, perField != nil else { perField = nil; break }
            for (field, count) in counts.enumerated() { perField![field] += count }
        }
        let summary = TermSummary(documentCount: summaries.reduce(0) { $0 + $1.documentCount },
                                  blockCount: summaries.reduce(0) { $0 + $1.blockCount }, maximumFrequencies: highest,
                                  minimumLength: summaries.map(\.minimumLength).min() ?? 1, fieldDocumentCounts: perField)
        return StoredTermBlocks(index: self, term: bytes, runs: runs, summary: summary)
    }

    package func walkTerms(from start: [UInt8], _ visit: ([UInt8]) throws -> TermWalkStep) throws {
        var position = start
        while true {
            // The least term at or after `position` over every segment.
            var least: [UInt8]?
            for segment in header.segments {
                let key = withUnsafeBytes(of: segment.number.bigEndian, Array.init) + position
                try transaction.forEachTextIndexEntry(in: databases.postings, from: key, entity: entity) { key, _ in
                    if let parts = TextIndexKeys.parts(of: key), parts.segment == segment.number,
                       least.map({ parts.term.lexicographicallyPrecedes($0) }) ?? true {
                        least = parts.term
                    }
                    return false
                }
            }
            guard let term = least else { return }
            // Terms hold no 0x00, so the term's keys (term, 0x00, document) all sort before term + 0x01.
            let past = term + [1]
            switch try visit(term) {
            case .next: position = past
            case .skip(let target): position = target.lexicographicallyPrecedes(past) ? past : target
            case .stop: return
            }
        }
    }

    package func documentLength(of document: DocumentID) throws -> UInt32 {
        guard let bytes = try transaction.textIndexValue(forKey: TextIndexKeys.document(document), in: databases.documents, entity: entity) else {
            return 1
        }
        do { return max(1, try DocumentEntry(bytes: bytes).length) } catch {
            throw error.strataError(index: descriptor.name, entity: entity, of: "document \(document)")
        }
    }

    /// The stored primary key of `document`, nil when it has none (deleted).
    package func primaryKey(of document: DocumentID) throws -> [UInt8]? {
        guard let bytes = try transaction.textIndexValue(forKey: TextIndexKeys.document(document), in: databases.documents, entity: entity) else {
            return nil
        }
        do { return try DocumentEntry(bytes: bytes).primaryKey } catch {
            throw error.strataError(index: descriptor.name, entity: entity, of: "document \(document)")
        }
    }

    /// The document of the stored primary key `key`, nil when the record has none.
    package func document(of key: [UInt8]) throws -> DocumentID? {
        try transaction.textIndexValue(forKey: key, in: databases.keys, entity: entity).flatMap(TextIndexKeys.document(of:))
    }

    /// Counts a block read.
    fileprivate func noteBlock() { blocksRead += 1 }
}

/// A term's posting blocks across the segments that hold it, for ``BlockPostingCursor``.
package struct StoredTermBlocks: PostingBlockSource {
    /// A segment holding the term, and the first document of its first block there.
    package struct Run {
        package var segment: UInt32
        package var firstDocument: DocumentID
    }

    package let index: StoredTextIndex
    package let term: [UInt8]
    /// Ascending by segment, so by document.
    package let runs: [Run]
    package let summary: TermSummary

    package func block(holding target: DocumentID) throws -> [UInt8]? {
        let run = runs.last { $0.firstDocument <= target } ?? runs[0]
        let key = TextIndexKeys.posting(segment: run.segment, term: term, document: max(target, run.firstDocument))
        // The block that starts at the target, or else the one before the first that starts after it.
        guard let entry = try index.transaction.textIndexEntry(atMost: key, in: index.databases.postings, entity: index.entity),
              let parts = TextIndexKeys.parts(of: entry.key), parts.segment == run.segment, parts.term == term, parts.document != 0
        else { return nil }
        index.noteBlock()
        return entry.value
    }

    package func block(after document: DocumentID) throws -> [UInt8]? {
        guard document < .max else { return nil }
        let start = runs.lastIndex { $0.firstDocument <= document } ?? 0
        for run in runs[start...] {
            let key = TextIndexKeys.posting(segment: run.segment, term: term, document: max(document + 1, run.firstDocument))
            var found: [UInt8]?
            try index.transaction.forEachTextIndexEntry(in: index.databases.postings, from: key, entity: index.entity) { key, value in
                if let parts = TextIndexKeys.parts(of: key), parts.segment == run.segment, parts.term == term { found = value }
                return false
            }
            if let found {
                index.noteBlock()
                return found
            }
        }
        return nil
    }
}
