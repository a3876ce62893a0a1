/// A parsed full-text query: what a document must contain to match, as terms of the index.
///
/// ``TextQueryParser`` makes it from a query string; the evaluator (``TextSearch``) runs it over
/// any ``TextIndexReader``, and the highlighter finds its matches in a text.
package indirect enum TextQuery: Sendable, Hashable {
    /// Terms at given distances from each other: a word (one term, or several when the tokenizer
    /// splits it: `full-text`, `東京タワー`), a prefix or a phrase.
    case match(TextMatch)
    /// Matches that all occur within `distance` positions of each other, in any order, in one
    /// field: at most `distance` positions between the first's start and the last's end that
    /// belong to none of them.
    case near([TextMatch], distance: Int)
    /// Documents that match every query (the default between words).
    case all([TextQuery])
    /// Documents that match any query (`OR`).
    case any([TextQuery])
    /// Documents that match the first query and not the second (`a NOT b`).
    case excluding(TextQuery, TextQuery)
    /// No document: a query whose every word is a stop word or punctuation.
    case nothing
}

/// One term of a ``TextMatch``: the indexed form of a word, where it stands in the match, and how
/// loosely it matches.
package struct TextQueryTerm: Sendable, Hashable {
    /// The term (folded, stemmed unless it is a prefix).
    package var text: String
    /// Its position relative to the match's first term (stop words left out keep their place).
    package var offset: Int
    /// True when any term that starts with ``text`` matches (`lmd*`, a one-character CJK word).
    package var isPrefix: Bool
    /// The edits a matching term may differ by (typo tolerance; 0: exact).
    package var typos: Int

    /// A term.
    package init(text: String, offset: Int = 0, isPrefix: Bool = false, typos: Int = 0) {
        self.text = text
        self.offset = offset
        self.isPrefix = isPrefix
        self.typos = typos
    }
}

/// Terms that must occur at their offsets from each other in one field of a document: a word, a
/// prefix or a phrase, in some fields or all.
package struct TextMatch: Sendable, Hashable {
    /// The terms, by offset.
    package var terms: [TextQueryTerm]
    /// The fields it may match in, a bit per field of the index in its order; nil for all.
    package var fields: UInt64?
    /// Where it starts in the query text (UTF-8 offset), for errors found when it is run.
    package var offset: Int

    /// A match.
    package init(terms: [TextQueryTerm], fields: UInt64? = nil, offset: Int = 0) {
        self.terms = terms
        self.fields = fields
        self.offset = offset
    }

    /// The positions it spans: its last term's offset plus one.
    package var length: Int { (terms.map(\.offset).max() ?? 0) + 1 }
}

extension TextQuery {
    /// The matches of the query's positive side (not under a `NOT`'s right), in the order they
    /// appear: what a highlight marks.
    package var positiveMatches: [TextMatch] {
        switch self {
        case .match(let match): [match]
        case .near(let matches, _): matches
        case .all(let queries), .any(let queries): queries.flatMap(\.positiveMatches)
        case .excluding(let positive, _): positive.positiveMatches
        case .nothing: []
        }
    }
}
