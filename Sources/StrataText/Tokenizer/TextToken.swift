/// One term of a text, where it stands and where it came from.
///
/// `term` is what the index stores and queries look up: the word folded as the `[cd]` collation
/// folds (``Collation``), then stemmed when the tokenizer stems. `position` counts the words of the
/// text from 0 (a stop word left out still takes one; a CJK run takes one per character), for
/// phrases and `NEAR`. `byteRange` is the word's place in the text's UTF-8, for highlights and
/// snippets; a CJK bigram covers both its characters.
package struct TextToken: Sendable, Hashable, CustomStringConvertible {
    /// The indexed form of the word.
    package var term: String
    /// The word's position in the text, from 0.
    package var position: Int
    /// The word's bytes in the text's UTF-8.
    package var byteRange: Range<Int>

    /// A token.
    package init(term: String, position: Int, byteRange: Range<Int>) {
        self.term = term
        self.position = position
        self.byteRange = byteRange
    }

    package var description: String { "\(term)@\(position)[\(byteRange.lowerBound)..<\(byteRange.upperBound)]" }
}
