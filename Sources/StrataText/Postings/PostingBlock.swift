/// A document of a full-text index: a positive integer given when the document is indexed and
/// never given again (0 is no document; `UInt64.max` marks the end of a walk).
package typealias DocumentID = UInt64

/// One document's occurrences of one term: how often it occurs in each field of the index, where,
/// and the document's length (for the block's BM25 bound).
package struct Posting: Sendable, Hashable {
    /// The document.
    package var document: DocumentID
    /// The term's frequency in each field of the index (as many as the index has fields; at least
    /// one is not zero).
    package var frequencies: [UInt32]
    /// The term's positions in each field, ascending, as many as its frequency there; nil when the
    /// index keeps no positions.
    package var positions: [[UInt32]]?
    /// The document's length: the positions its indexed fields take together.
    package var length: UInt32

    /// A posting.
    package init(document: DocumentID, frequencies: [UInt32], positions: [[UInt32]]?, length: UInt32) {
        self.document = document
        self.frequencies = frequencies
        self.positions = positions
        self.length = length
    }
}

/// Up to ``maximumDocuments`` postings of one term, compressed, with the bounds block-max top-k
/// needs in a header that is read without decoding the postings.
///
/// ## Layout
///
/// All integers are unsigned LEB128 varints (``PostingVarint``) except the first byte.
///
/// | bytes | content |
/// | --- | --- |
/// | 1 | format version, 1 |
/// | varint | F, the index's field count (1...64) |
/// | varint | n, the block's document count (1...128) |
/// | varint | the first document id (≥ 1) |
/// | varint | the last document id minus the first |
/// | F varints | the term's highest frequency in each field among the block's documents |
/// | varint | the least document length among the block's documents (≥ 1) |
/// | varint | D, the documents section's byte length |
/// | varint | P, the positions section's byte length (0: the index keeps no positions) |
/// | D bytes | documents: per document, the id minus the previous one (0 for the first), then, when F is 1, the frequency; otherwise a field mask (bit f for each field holding the term, not 0, below 2^F) and the frequency in each field of the mask, in field order (each ≥ 1) |
/// | P bytes | positions: per document, per field of its mask, as many varints as the frequency: the first position, then the gap to each next one (≥ 1) |
///
/// The block ends with the positions section. A reader checks every rule of the table (the last
/// document is the header's, the header's highest frequencies are the documents' highest, positions
/// fit in 32 bits, the sections end exactly where their lengths say) and throws
/// ``PostingsFormatError`` with the offset at the first that fails.
package struct PostingBlock: Sendable {
    /// The format version of the layout above.
    package static let version: UInt8 = 1
    /// The most documents a block holds.
    package static let maximumDocuments = 128
    /// The most fields an index has (a field mask is a 64-bit varint).
    package static let maximumFields = 64

    /// What the header says.
    package struct Header: Sendable, Hashable {
        /// The index's field count.
        package var fieldCount: Int
        /// The block's document count.
        package var documentCount: Int
        /// The first document's id.
        package var firstDocument: DocumentID
        /// The last document's id.
        package var lastDocument: DocumentID
        /// The term's highest frequency in each field among the block's documents.
        package var maximumFrequencies: [UInt32]
        /// The least length among the block's documents.
        package var minimumLength: UInt32
        /// Where the documents section is in the block's bytes.
        package var documentsRange: Range<Int>
        /// Where the positions section is (empty when the index keeps no positions).
        package var positionsRange: Range<Int>
    }

    /// The block's bytes.
    package let bytes: [UInt8]
    /// Its header, read and checked when the block is made.
    package let header: Header

    /// The block of `bytes`, its header read and checked; the sections are read when asked for.
    package init(bytes: [UInt8]) throws(PostingsFormatError) {
        self.bytes = bytes
        header = try Self.readHeader(bytes)
    }

    /// The postings' bytes: `postings` (1 to ``maximumDocuments``, ascending ids, each with
    /// `fieldCount` frequencies, positions when `keepsPositions`) as one block.
    package static func encode(_ postings: [Posting], fieldCount: Int, keepsPositions: Bool) -> [UInt8] {
        precondition((1...maximumDocuments).contains(postings.count) && (1...maximumFields).contains(fieldCount))
        var maximum = [UInt32](repeating: 0, count: fieldCount)
        var documents: [UInt8] = []
        var positions: [UInt8] = []
        var previous = postings[0].document
        precondition(previous >= 1)
        for (index, posting) in postings.enumerated() {
            precondition((index == 0 || posting.document > previous) && posting.frequencies.count == fieldCount)
            PostingVarint.append(posting.document - previous, to: &documents)
            previous = posting.document
            var mask: UInt64 = 0
            for (field, frequency) in posting.frequencies.enumerated() where frequency > 0 {
                mask |= 1 << UInt64(field)
                maximum[field] = max(maximum[field], frequency)
            }
            precondition(mask != 0, "a posting occurs in no field")
            if fieldCount > 1 { PostingVarint.append(mask, to: &documents) }
            for frequency in posting.frequencies where frequency > 0 { PostingVarint.append(UInt64(frequency), to: &documents) }
            guard keepsPositions else { continue }
            guard let fieldPositions = posting.positions, fieldPositions.count == fieldCount else {
                preconditionFailure("a posting without positions in an index that keeps them")
            }
            for (field, list) in fieldPositions.enumerated() where posting.frequencies[field] > 0 {
                precondition(list.count == Int(posting.frequencies[field]))
                var last: UInt32 = 0
                for (index, position) in list.enumerated() {
                    precondition(index == 0 || position > last)
                    PostingVarint.append(UInt64(index == 0 ? position : position - last), to: &positions)
                    last = position
                }
            }
        }
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(documents.count + positions.count + 16 + 2 * fieldCount)
        PostingVarint.append(UInt64(fieldCount), to: &bytes)
        PostingVarint.append(UInt64(postings.count), to: &bytes)
        PostingVarint.append(postings[0].document, to: &bytes)
        PostingVarint.append(postings[postings.count - 1].document - postings[0].document, to: &bytes)
        for value in maximum { PostingVarint.append(UInt64(value), to: &bytes) }
        PostingVarint.append(UInt64(max(1, postings.map(\.length).min()!)), to: &bytes)
        PostingVarint.append(UInt64(documents.count), to: &bytes)
        PostingVarint.append(UInt64(positions.count), to: &bytes)
        bytes += documents
        bytes += positions
        return bytes
    }
}
