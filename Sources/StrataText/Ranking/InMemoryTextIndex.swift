/// A full-text index in memory, kept by the same tokenizer and stored in the same posting blocks
/// as the index in LMDB: the reference the search is tested on, and a reader for text that is
/// not stored.
///
/// Documents are added with their fields' texts and get ids 1, 2, …; removing one marks it deleted
/// (its postings stay until ``compact()``, as a store's stay until a merge), so cursors step over it.
package final class InMemoryTextIndex: TextIndexReader {
    package let fieldCount: Int
    package let keepsPositions: Bool
    /// The tokenizer documents are indexed with.
    package let tokenizer: TextTokenizer
    /// The documents per block (``PostingBlock/maximumDocuments`` unless a test wants small blocks).
    let blockSize: Int

    private var postings: [String: [Posting]] = [:]
    private var encoded: [String: Run] = [:]
    private var lengths: [DocumentID: [UInt32]] = [:]
    private var deleted: Set<DocumentID> = []
    private var nextDocument: DocumentID = 1

    /// An empty index of `fieldCount` fields.
    package init(fieldCount: Int, tokenizer: TextTokenizer = TextTokenizer(), keepsPositions: Bool = true,
                 blockSize: Int = PostingBlock.maximumDocuments) {
        precondition((1...PostingBlock.maximumFields).contains(fieldCount) && (1...PostingBlock.maximumDocuments).contains(blockSize))
        self.fieldCount = fieldCount
        self.tokenizer = tokenizer
        self.keepsPositions = keepsPositions
        self.blockSize = blockSize
    }

    /// Indexes a document of `fields` (one text per field) and returns its id.
    @discardableResult
    package func add(_ fields: [String]) -> DocumentID {
        precondition(fields.count == fieldCount)
        let document = nextDocument
        nextDocument += 1
        var occurrences: [String: [[UInt32]]] = [:]
        var fieldLengths: [UInt32] = []
        for (field, text) in fields.enumerated() {
            let length = tokenizer.forEachToken(in: text) { token in
                occurrences[token.term, default: Array(repeating: [], count: fieldCount)][field].append(UInt32(token.position))
            }
            fieldLengths.append(UInt32(length))
        }
        lengths[document] = fieldLengths
        let length = fieldLengths.reduce(0, +)
        for (term, positions) in occurrences {
            postings[term, default: []].append(Posting(document: document, frequencies: positions.map { UInt32($0.count) },
                                                       positions: keepsPositions ? positions : nil, length: max(length, 1)))
            encoded[term] = nil
        }
        return document
    }

    /// Marks `document` deleted: it no longer counts or matches.
    package func remove(_ document: DocumentID) {
        guard lengths[document] != nil, deleted.insert(document).inserted else { return }
        encoded = [:]    // a term whose documents are all deleted has no postings
    }

    /// Drops the postings of deleted documents (as a merge does in a store).
    package func compact() {
        for (term, list) in postings {
            let kept = list.filter { !deleted.contains($0.document) }
            postings[term] = kept.isEmpty ? nil : kept
            encoded[term] = nil
        }
        for document in deleted { lengths[document] = nil }
        deleted = []
    }

    /// The live documents' ids, ascending.
    package var documents: [DocumentID] { lengths.keys.filter { !deleted.contains($0) }.sorted() }

    package func statistics() -> TextIndexStatistics {
        var totals = [UInt64](repeating: 0, count: fieldCount)
        var count: UInt64 = 0
        for (document, fieldLengths) in lengths where !deleted.contains(document) {
            count += 1
            for (field, length) in fieldLengths.enumerated() { totals[field] += UInt64(length) }
        }
        return TextIndexStatistics(documentCount: count, totalFieldLengths: totals, nextDocument: nextDocument)
    }

    package func postings(of term: String) throws -> (any PostingCursor)? {
        guard let run = run(of: term) else { return nil }
        let deleted = deleted
        var isDeleted: (@Sendable (DocumentID) -> Bool)?
        if !deleted.isEmpty { isDeleted = { deleted.contains($0) } }
        return try BlockPostingCursor<Run>(source: run, fieldCount: fieldCount, isDeleted: isDeleted)
    }

    package func documentFrequency(of term: String, in fields: UInt64?) throws -> Int {
        guard let run = run(of: term) else { return 0 }
        return try run.liveDocumentCount(in: fields, fieldCount: fieldCount, deleted: deleted.sorted())
    }

    package func walkTerms(from start: [UInt8], _ visit: ([UInt8]) throws -> TermWalkStep) throws {
        let terms = postings.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var index = Self.firstIndex(in: terms, atOrAfter: start)
        while index < terms.count {
            switch try visit(terms[index]) {
            case .next: index += 1
            case .skip(let target): index = max(index + 1, Self.firstIndex(in: terms, atOrAfter: target))
            case .stop: return
            }
        }
    }

    static func firstIndex(in terms: [[UInt8]], atOrAfter key: [UInt8]) -> Int {
        var low = 0, high = terms.count
        while low < high {
            let middle = (low + high) / 2
            if terms[middle].lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    package func documentLength(of document: DocumentID) throws -> UInt32 {
        max(1, lengths[document]?.reduce(0, +) ?? 0)
    }

    /// A term's postings encoded in blocks of ``blockSize``, with its summary.
    struct Run: PostingBlockSource {
        var blocks: [(first: DocumentID, bytes: [UInt8])]
        var summary: TermSummary

        func block(holding target: DocumentID) -> [UInt8]? {
            guard !blocks.isEmpty else { return nil }
            return (blocks.last { $0.first <= target } ?? blocks[0]).bytes
        }

        func block(after document: DocumentID) -> [UInt8]? { blocks.first { $0.first > document }?.bytes }
    }

    func run(of term: String) -> Run? {
        if let run = encoded[term] { return run }
        guard let list = postings[term], !list.isEmpty else { return nil }
        var blocks: [(DocumentID, [UInt8])] = []
        for start in stride(from: 0, to: list.count, by: blockSize) {
            let slice = Array(list[start..<min(start + blockSize, list.count)])
            blocks.append((slice[0].document, PostingBlock.encode(slice, fieldCount: fieldCount, keepsPositions: keepsPositions)))
        }
        // Counted as a store's segment counts them: every posting, deleted documents' included.
        let summary = TermSummary(of: list, blockCount: blocks.count, fieldCount: fieldCount)
        guard list.contains(where: { !deleted.contains($0.document) }) else { return nil }
        let run = Run(blocks: blocks, summary: summary)
        encoded[term] = run
        return run
    }
}
