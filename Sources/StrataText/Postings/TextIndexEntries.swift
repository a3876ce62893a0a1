/// The small stored structures of a full-text index beside its posting blocks: a document's entry,
/// the index's statistics and a term's summary. Each starts with a format version byte (1) and
/// holds unsigned LEB128 varints; readers check every count against the bytes that remain and
/// throw ``PostingsFormatError`` with the offset where the layout broke.

/// A document's entry: the length of each field (the positions it takes) and the record's primary
/// key (its order-preserving encoding, as the records database keys it).
///
/// Layout: version byte, F, F field lengths, the key's byte length, the key's bytes; nothing after.
package struct DocumentEntry: Sendable, Hashable {
    /// The positions each indexed field takes.
    package var fieldLengths: [UInt32]
    /// The record's primary key, encoded.
    package var primaryKey: [UInt8]

    /// An entry.
    package init(fieldLengths: [UInt32], primaryKey: [UInt8]) {
        self.fieldLengths = fieldLengths
        self.primaryKey = primaryKey
    }

    /// The document's length for BM25: its fields' lengths together.
    package var length: UInt32 { fieldLengths.reduce(0, &+) }

    /// The entry's bytes.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = [1]
        PostingVarint.append(UInt64(fieldLengths.count), to: &bytes)
        for length in fieldLengths { PostingVarint.append(UInt64(length), to: &bytes) }
        PostingVarint.append(UInt64(primaryKey.count), to: &bytes)
        return bytes + primaryKey
    }

    /// The entry of `bytes`.
    package init(bytes: [UInt8]) throws(PostingsFormatError) {
        var reader = PostingBytesReader(bytes, structure: "document entry")
        try Self.readVersion(&reader)
        let count = try reader.varint(in: 1...UInt64(PostingBlock.maximumFields), "field count")
        var lengths: [UInt32] = []
        for _ in 0..<count { lengths.append(UInt32(try reader.varint(in: 0...UInt64(UInt32.max), "field length"))) }
        let keyLength = try reader.length("primary key length")
        primaryKey = Array(bytes[reader.offset..<reader.offset + keyLength])
        reader.offset += keyLength
        guard reader.isAtEnd else { throw reader.failure("bytes after the primary key") }
        fieldLengths = lengths
    }

    static func readVersion(_ reader: inout PostingBytesReader) throws(PostingsFormatError) {
        let version = try reader.byte()
        guard version == 1 else { throw reader.failure("format version \(version), not 1 (a newer Strata wrote it?)", at: 0) }
    }
}

/// What BM25 needs of the whole index: how many documents it holds and their fields' total
/// lengths (so the average document length), and the next document id to give.
///
/// Layout: version byte, the document count, F, F total field lengths, the next document id.
package struct TextIndexStatistics: Sendable, Hashable {
    /// The indexed documents.
    package var documentCount: UInt64
    /// The sum of each field's length over the documents.
    package var totalFieldLengths: [UInt64]
    /// The id the next indexed document gets (ids are never given twice).
    package var nextDocument: DocumentID

    /// Statistics.
    package init(documentCount: UInt64, totalFieldLengths: [UInt64], nextDocument: DocumentID) {
        self.documentCount = documentCount
        self.totalFieldLengths = totalFieldLengths
        self.nextDocument = nextDocument
    }

    /// The average document length (all fields), at least 1.
    package var averageLength: Double {
        documentCount == 0 ? 1 : max(1, Double(totalFieldLengths.reduce(0, &+)) / Double(documentCount))
    }

    /// The statistics' bytes.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = [1]
        PostingVarint.append(documentCount, to: &bytes)
        PostingVarint.append(UInt64(totalFieldLengths.count), to: &bytes)
        for total in totalFieldLengths { PostingVarint.append(total, to: &bytes) }
        PostingVarint.append(nextDocument, to: &bytes)
        return bytes
    }

    /// The statistics of `bytes`.
    package init(bytes: [UInt8]) throws(PostingsFormatError) {
        var reader = PostingBytesReader(bytes, structure: "index statistics")
        try DocumentEntry.readVersion(&reader)
        documentCount = try reader.varint()
        let count = try reader.varint(in: 1...UInt64(PostingBlock.maximumFields), "field count")
        var totals: [UInt64] = []
        for _ in 0..<count { totals.append(try reader.varint()) }
        totalFieldLengths = totals
        nextDocument = try reader.varint(in: 1...(UInt64.max - 1), "next document")
        guard reader.isAtEnd else { throw reader.failure("bytes after the next document id") }
    }
}

/// A term's summary in one run of blocks (a segment): its document count, in all and per field
/// (for the document frequency, summed over segments), its block count, and the bounds of its best
/// block (the term's global BM25 bound for max-score).
///
/// Layout: version byte (2), the document count, the block count, F, F highest frequencies, the
/// least document length, F document counts per field. A version 1 summary (written before the
/// counts per field were kept) ends after the least document length.
package struct TermSummary: Sendable, Hashable {
    /// Documents holding the term.
    package var documentCount: UInt64
    /// Blocks holding them.
    package var blockCount: UInt64
    /// The term's highest frequency in each field over all its documents.
    package var maximumFrequencies: [UInt32]
    /// The least length of the documents holding it.
    package var minimumLength: UInt32
    /// The documents holding the term in each field; nil in a version 1 summary.
    package var fieldDocumentCounts: [UInt64]?

    /// A summary.
    package init(documentCount: UInt64, blockCount: UInt64, maximumFrequencies: [UInt32], minimumLength: UInt32,
                 fieldDocumentCounts: [UInt64]?) {
        self.documentCount = documentCount
        self.blockCount = blockCount
        self.maximumFrequencies = maximumFrequencies
        self.minimumLength = minimumLength
        self.fieldDocumentCounts = fieldDocumentCounts
    }

    /// The summary of no document yet, of an index of `fieldCount` fields, for ``count(_:length:)``
    /// to add documents to (its least length is `UInt32.max` until one is).
    package init(empty fieldCount: Int) {
        self.init(documentCount: 0, blockCount: 0, maximumFrequencies: Array(repeating: 0, count: fieldCount),
                  minimumLength: .max, fieldDocumentCounts: Array(repeating: 0, count: fieldCount))
    }

    /// The summary of `postings` (a term's, ascending by document) stored in `blockCount` blocks.
    package init(of postings: some Collection<Posting>, blockCount: Int, fieldCount: Int) {
        self.init(empty: fieldCount)
        for posting in postings { count(posting.frequencies, length: posting.length) }
        self.blockCount = UInt64(blockCount)
        if postings.isEmpty { minimumLength = 1 }
    }

    /// Counts one more document holding the term, `frequencies` times in each field, of `length`.
    package mutating func count(_ frequencies: some Collection<UInt32>, length: UInt32) {
        documentCount += 1
        minimumLength = min(minimumLength, length)
        for (field, frequency) in frequencies.enumerated() where frequency > 0 {
            maximumFrequencies[field] = max(maximumFrequencies[field], frequency)
            fieldDocumentCounts?[field] += 1
        }
    }

    /// The summary's bytes (version 1 when it keeps no counts per field).
    package var bytes: [UInt8] {
        var bytes: [UInt8] = [fieldDocumentCounts == nil ? 1 : 2]
        PostingVarint.append(documentCount, to: &bytes)
        PostingVarint.append(blockCount, to: &bytes)
        PostingVarint.append(UInt64(maximumFrequencies.count), to: &bytes)
        for value in maximumFrequencies { PostingVarint.append(UInt64(value), to: &bytes) }
        PostingVarint.append(UInt64(minimumLength), to: &bytes)
        for count in fieldDocumentCounts ?? [] { PostingVarint.append(count, to: &bytes) }
        return bytes
    }

    /// The summary of `bytes`.
    package init(bytes: [UInt8]) throws(PostingsFormatError) {
        var reader = PostingBytesReader(bytes, structure: "term summary")
        let version = try reader.byte()
        guard version == 1 || version == 2 else {
            throw reader.failure("format version \(version), not 1 or 2 (a newer Strata wrote it?)", at: 0)
        }
        documentCount = try reader.varint(in: 1...(UInt64.max - 1), "document count")
        let blocksStart = reader.offset
        blockCount = try reader.varint(in: 1...(UInt64.max - 1), "block count")
        guard blockCount <= documentCount,
              (documentCount - 1) / UInt64(PostingBlock.maximumDocuments) < blockCount else {
            throw reader.failure("\(blockCount) blocks cannot hold \(documentCount) documents", at: blocksStart)
        }
        let count = try reader.varint(in: 1...UInt64(PostingBlock.maximumFields), "field count")
        var maximum: [UInt32] = []
        for _ in 0..<count { maximum.append(UInt32(try reader.varint(in: 0...UInt64(UInt32.max), "highest frequency"))) }
        maximumFrequencies = maximum
        minimumLength = UInt32(try reader.varint(in: 1...UInt64(UInt32.max), "least document length"))
        if version == 2 {
            var holding: [UInt64] = []
            for field in 0..<Int(count) {
                let start = reader.offset
                let documents = try reader.varint(in: 0...documentCount, "document count of field \(field)")
                // A field holds the term in some document exactly when its highest frequency is above 0.
                guard (documents > 0) == (maximum[field] > 0) else {
                    throw reader.failure("field \(field) holds the term in \(documents) documents at a highest frequency of \(maximum[field])",
                                         at: start)
                }
                holding.append(documents)
            }
            fieldDocumentCounts = holding
        } else {
            fieldDocumentCounts = nil
        }
        guard reader.isAtEnd else {
            throw reader.failure(version == 2 ? "bytes after the document counts per field" : "bytes after the least document length")
        }
    }
}
