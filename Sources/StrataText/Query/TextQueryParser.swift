/// Parses full-text query strings into ``TextQuery`` values, tokenizing their words by the index's
/// own rules.
///
/// ## Grammar
///
/// ```
/// query    = or
/// or       = and { "OR" and }
/// and      = not { ["AND"] not }               words side by side must all match
/// not      = unary { "NOT" unary }              a NOT b: a, and not b
/// unary    = field ":" primary | primary        title:lmdb, title:(a OR b)
/// primary  = "(" or ")" | near | phrase ["*"] | word ["*"]
/// near     = "NEAR(" item { item } ["," number] ")"     item = phrase ["*"] | word ["*"]
/// phrase   = '"' text '"'                       "" inside is one "
/// ```
///
/// `NOT` binds tighter than `AND`, and `AND` than `OR`, as in SQLite FTS5: `a b NOT c OR d` is
/// `(a AND (b NOT c)) OR d`. Operators are upper case; lower-case `or` is a word. A word the
/// tokenizer splits (`full-text`, `東京タワー`) is a phrase of its parts; a word that leaves no term
/// (a stop word, punctuation) is left out of its `AND` (a query of nothing else matches nothing).
/// A `*` right after a word or phrase makes its last term a prefix, matched unstemmed (`lmd*`);
/// a one-character CJK word is a prefix of the bigrams it starts. `NEAR`'s distance is 10 unless
/// given. With typo tolerance, a single-term word of 5 or more characters (and no digit) matches
/// terms one edit away, from 9 characters two.
///
/// Any text gives a query or a ``TextQueryError`` naming the column: the limits (``Limits``) bound
/// the text's length, the nesting and the number of words.
package struct TextQueryParser: Sendable {
    /// What the parser accepts at most.
    package struct Limits: Sendable, Hashable {
        /// UTF-8 bytes of query text.
        package var maximumLength = 4_096
        /// Nested parentheses and field scopes.
        package var maximumDepth = 32
        /// Words, phrases and `NEAR` items.
        package var maximumMatches = 64
        /// A `NEAR` distance.
        package var maximumNearDistance = 1_000

        /// The default limits.
        package init() {}
    }

    /// The index's field names, in its order (what `field:` may name).
    package var fields: [String]
    /// The index's tokenizer.
    package var tokenizer: TextTokenizer
    /// Whether single-term words match terms a few edits away.
    package var typoTolerance: Bool
    /// The limits.
    package var limits: Limits

    /// A parser for an index of `fields` tokenized by `tokenizer`.
    package init(fields: [String], tokenizer: TextTokenizer, typoTolerance: Bool = false, limits: Limits = Limits()) {
        self.fields = fields
        self.tokenizer = tokenizer
        self.typoTolerance = typoTolerance
        self.limits = limits
    }

    /// The query `text` says.
    package func parse(_ text: String) throws(TextQueryError) -> TextQuery {
        guard text.utf8.count <= limits.maximumLength else {
            throw TextQueryError(.tooLong, "the query is \(text.utf8.count) bytes long, more than \(limits.maximumLength)",
                                 offset: limits.maximumLength, in: text)
        }
        var state = ParseState(parser: self, text: text, lexemes: try TextQueryLexeme.lexemes(of: text))
        guard !state.lexemes.isEmpty else { throw TextQueryError(.empty, "the query is empty", offset: 0, in: text) }
        let query = try state.parseOr()
        if let extra = state.peek {
            throw state.failure(extra.kind == .close ? .unbalancedParenthesis : .unexpected,
                                extra.kind == .close ? "a ) without its (" : "\(state.describe(extra)) cannot stand here",
                                at: extra)
        }
        return query.simplified
    }
}

extension TextQuery {
    /// The query with nested `AND`s and `OR`s flattened and ``nothing`` taken out: from an `AND`
    /// (a stop word does not empty its conjunction), an `OR`, and a `NOT`'s right side.
    var simplified: TextQuery {
        switch self {
        case .match, .near, .nothing: return self
        case .all(let queries):
            let parts = queries.map(\.simplified).flatMap { part -> [TextQuery] in
                if case .all(let inner) = part { return inner }
                return part == .nothing ? [] : [part]
            }
            return parts.isEmpty ? .nothing : parts.count == 1 ? parts[0] : .all(parts)
        case .any(let queries):
            let parts = queries.map(\.simplified).flatMap { part -> [TextQuery] in
                if case .any(let inner) = part { return inner }
                return part == .nothing ? [] : [part]
            }
            return parts.isEmpty ? .nothing : parts.count == 1 ? parts[0] : .any(parts)
        case .excluding(let positive, let negative):
            let (kept, dropped) = (positive.simplified, negative.simplified)
            if kept == .nothing { return .nothing }
            return dropped == .nothing ? kept : .excluding(kept, dropped)
        }
    }
}
