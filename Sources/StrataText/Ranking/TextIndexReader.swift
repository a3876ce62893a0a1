/// What a search reads of a full-text index, whatever stores it: the statistics, the term
/// dictionary walked in order, a term's postings as a cursor, and documents' lengths.
///
/// ``InMemoryTextIndex`` implements it over arrays; Strata's storage layer implements it over LMDB
/// cursors (term dictionary and posting blocks as B-tree walks). Errors are the store's own
/// (for LMDB, `StrataError`); damaged bytes throw ``PostingsFormatError``.
package protocol TextIndexReader {
    /// The index's field count.
    var fieldCount: Int { get }
    /// Whether the index keeps positions (phrases and `NEAR` need them).
    var keepsPositions: Bool { get }
    /// The document count and total lengths.
    func statistics() throws -> TextIndexStatistics
    /// The postings of `term`, nil when no document holds it.
    func postings(of term: String) throws -> (any PostingCursor)?
    /// The documents holding `term` in a field of `fields` (a bit per field; every field when
    /// nil), deleted ones not counted: the document frequency BM25 weighs the term by
    /// (``PostingBlockSource/liveDocumentCount(in:fieldCount:deleted:)``).
    func documentFrequency(of term: String, in fields: UInt64?) throws -> Int
    /// Walks the terms in ascending byte order from the first at or after `start`, calling `visit`
    /// with each term's UTF-8 until it returns ``TermWalkStep/stop`` or the terms end.
    func walkTerms(from start: [UInt8], _ visit: ([UInt8]) throws -> TermWalkStep) throws
    /// The length of `document` (the positions its indexed fields take together).
    func documentLength(of document: DocumentID) throws -> UInt32
}

/// How a walk over the term dictionary goes on after a term.
package enum TermWalkStep: Sendable, Equatable {
    /// With the next term.
    case next
    /// With the first term at or after these bytes.
    case skip(to: [UInt8])
    /// Not at all.
    case stop
}

/// A term's postings walked in ascending document order, with the bounds of the block the cursor
/// is in, so that top-k can skip documents that cannot enter the results.
///
/// A cursor starts before its first document (``document`` is 0) and only moves forward.
package protocol PostingCursor: AnyObject {
    /// The documents its postings hold, deleted ones not yet dropped included: what walking it
    /// costs. (The document frequency BM25 weighs the term by is the reader's
    /// ``TextIndexReader/documentFrequency(of:in:)``.)
    var postingCount: Int { get }
    /// The term's highest frequency per field over all its documents, and the least length of
    /// those documents: the term's global BM25 bound.
    var globalBounds: PostingBounds { get }
    /// The current document: 0 before the first ``advance(to:)``, `UInt64.max` after the last.
    var document: DocumentID { get }
    /// Moves to the first document at or after `target` (not before the current one).
    func advance(to target: DocumentID) throws
    /// The term's frequency in each field of the current document.
    var frequencies: ArraySlice<UInt32> { get }
    /// The term's positions in `field` of the current document, ascending.
    func positions(in field: Int) throws -> ArraySlice<UInt32>
    /// The bounds of the block that holds the current document, and its last document.
    var blockBounds: PostingBounds { get }
}

/// The highest frequencies and least document length of a set of postings (a block, or all of a
/// term's), and the last document the bounds cover.
package struct PostingBounds: Sendable, Hashable {
    /// The highest frequency in each field.
    package var maximumFrequencies: [UInt32]
    /// The least document length.
    package var minimumLength: UInt32
    /// The last document covered (`UInt64.max` for all of a term's).
    package var lastDocument: DocumentID

    /// Bounds.
    package init(maximumFrequencies: [UInt32], minimumLength: UInt32, lastDocument: DocumentID) {
        self.maximumFrequencies = maximumFrequencies
        self.minimumLength = minimumLength
        self.lastDocument = lastDocument
    }
}

/// Where a term's posting blocks come from, for ``BlockPostingCursor``: a run of encoded blocks in
/// ascending document order, found by the documents they hold (for LMDB, keys `term, first
/// document` and a seek; for memory, a sorted array).
package protocol PostingBlockSource {
    /// The term's summary (document count, bounds over all its blocks).
    var summary: TermSummary { get }
    /// The bytes of the last block whose first document is at most `target`, or of the first
    /// block when every block starts after it; nil when there are no blocks.
    func block(holding target: DocumentID) throws -> [UInt8]?
    /// The bytes of the first block whose first document is after `document`, nil when none is.
    func block(after document: DocumentID) throws -> [UInt8]?
}
