import StrataFormat

/// Stored full-text bytes (a posting block, a document entry, the index statistics) that do not
/// follow their layout: truncated, corrupted, or written by a newer format.
///
/// Every decoder of this target reads stored bytes as untrusted input: each length and count is
/// checked against the bytes that remain before anything is allocated from it, and the error names
/// the byte offset where the layout broke and what was expected there.
package struct PostingsFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being read: `posting block`, `document entry`, `index statistics`, `term summary`.
    package var structure: String
    /// The offset, from 0, of the first byte that breaks the layout.
    package var offset: Int
    /// What is wrong there.
    package var reason: String

    /// An error at `offset` of a `structure`.
    package init(_ structure: String, offset: Int, _ reason: String) {
        self.structure = structure
        self.offset = offset
        self.reason = reason
    }

    package var description: String { "\(structure) damaged at byte \(offset): \(reason)" }

    /// The error as Strata reports it: `.incompatibleStore` (the store's data is damaged), naming the
    /// full-text index and the term or document whose bytes broke.
    package func strataError(index: String, entity: String, of what: String) -> StrataError {
        StrataError(.incompatibleStore, "\(entity): full-text index \(index), \(what): \(description)",
                    entity: entity, cause: self)
    }
}
