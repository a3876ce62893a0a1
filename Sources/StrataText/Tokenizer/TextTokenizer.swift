import StrataFormat

/// Splits text into the terms a full-text index stores and a query looks up, by one set of rules
/// for both.
///
/// The rules, in order:
/// 1. Words are the segments between UAX #29 word boundaries (``WordSegmenter``) that hold a
///    letter, a digit, a CJK or Southeast Asian character, an emoji or a flag. So identifiers and
///    numbers stay whole (`snake_case`, `v1.2.3`, `3.14`, `1,000`, `don't`), and a hyphen or a
///    space separates (`full-text` is two words).
/// 2. Each word is folded as the `[cd]` collation folds (``Collation/appendFolded(_:_:to:)``:
///    `Fünke` → `funke`, `ÉLAN` → `elan`, `Straße` → `strasse`), `’` becomes `'`, a French or Italian
///    elision is dropped (`l'élève` → `eleve`, `qu'il` → `il`, `dell'arte` → `arte`: ``elisions``),
///    and an emoji loses its variation selectors. A word longer than ``maximumTermLength`` bytes is
///    cut there (at a character boundary), in documents and queries alike.
/// 3. A run of CJK characters (Han, Hiragana, Katakana), each folded alone, becomes overlapping
///    bigrams, one per character, the last character of the run standing alone: `東京タワー` →
///    `東京 京タ タワ ワー ー`. A query drops that last single character from a run of two or more
///    (so `東京` finds `東京都`), and a one-character query word matches the terms that start with
///    it (``TextQuery``). A run of Thai, Lao, Khmer or Myanmar letters is one word (no dictionary).
/// 4. A word on the stop-word list is left out, keeping its position; then, with stemming, a word
///    of ASCII letters and apostrophes is stemmed (``EnglishStemmer``). Numbers and identifiers
///    with digits, underscores or dots are never stemmed.
///
/// ```swift
/// let tokenizer = TextTokenizer(stemming: .english)
/// tokenizer.tokens(in: "Fünke's RUNNING shoes").map(\.term)   // ["funk", "run", "shoe"]
/// ```
package struct TextTokenizer: Sendable, Hashable, Codable {
    /// The version of the rules above, recorded in the catalog with each full-text index beside the
    /// folding's (``Collation/rulesVersion``): an index whose terms were made by other rules is
    /// rebuilt. Any change to the tokens some text gives must increase it, and so must a word-break
    /// table of another Unicode version (`WordBreakTable.unicodeVersion`; a test holds the pair).
    ///
    /// 1: UAX #29 words of Unicode 15.0, `[cd]` folding, CJK bigrams, Porter2 (Snowball 3.1).
    package static let rulesVersion = 1

    /// The folding of terms: the `[cd]` collation's.
    static let folding: StringComparisonOptions = [.caseInsensitive, .diacriticInsensitive]

    /// The most UTF-8 bytes of a term; longer words are cut to it.
    package static let maximumTermLength = 128

    /// Whether words are reduced to their stems: StrataFormat's ``TextStemming`` (what a full-text
    /// index declares and the catalog records).
    package typealias Stemming = TextStemming

    /// Which text is being tokenized: a document's, or a query's (whose CJK runs of two or more
    /// characters drop their last single character, rule 3).
    package enum Mode: Sendable {
        /// A stored document's text.
        case document
        /// A query's word or phrase.
        case query
    }

    /// The stemming rule.
    package var stemming: Stemming
    /// The stop-word list.
    package var stopWords: StopWords

    /// A tokenizer; by default without stemming or stop words.
    package init(stemming: Stemming = .none, stopWords: StopWords = .none) {
        self.stemming = stemming
        self.stopWords = stopWords
    }

    /// The tokens of `text`, in order.
    package func tokens(in text: String, mode: Mode = .document) -> [TextToken] {
        var tokens: [TextToken] = []
        forEachToken(in: text, mode: mode) { tokens.append($0) }
        return tokens
    }

    /// Calls `body` with each token of `text`, in order; returns the number of positions the text
    /// takes (its length for BM25: words, stop words included, and CJK characters).
    @discardableResult
    package func forEachToken(in text: String, mode: Mode = .document, _ body: (TextToken) -> Void) -> Int {
        var text = text
        return withoutActuallyEscaping(body) { body in
            text.withUTF8 { utf8 in
                var walk = TokenWalk(tokenizer: self, mode: mode, utf8: utf8, body: body)
                walk.run()
                return walk.position
            }
        }
    }

    /// The indexed form of a whole word already cut out of a text (`utf8`, valid UTF-8): folded,
    /// cut to length, and stemmed when it is a plain word; nil for a stop word. `folded` is a
    /// buffer to fold into, reused from word to word.
    func term(of utf8: UnsafeBufferPointer<UInt8>, stemmable: Bool, pictographic: Bool, scratch folded: inout [UInt8]) -> String? {
        folded.removeAll(keepingCapacity: true)
        Collation.appendFolded(utf8, Self.folding, to: &folded)
        Self.normalize(&folded, pictographic: pictographic)
        if let apostrophe = folded.firstIndex(of: 0x27), apostrophe <= 6, apostrophe + 1 < folded.count,
           Self.elisions.contains(String(decoding: folded[..<apostrophe], as: UTF8.self)) {
            folded.removeSubrange(...apostrophe)
        }
        let term = String(decoding: folded, as: UTF8.self)
        if stopWords.contains(term) { return nil }
        guard stemming == .english, stemmable,
              folded.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x27 }) else { return term }
        return String(decoding: EnglishStemmer.stem(folded), as: UTF8.self)
    }

    /// The folded words before an apostrophe that are elided articles, pronouns and conjunctions
    /// of French (l', d', j', m', n', s', t', c', qu', jusqu', lorsqu', puisqu', quoiqu') and
    /// Italian (dell', dall', nell', sull', all', un', quell', nessun').
    package static let elisions: Set<String> = [
        "l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu",
        "dell", "dall", "nell", "sull", "all", "un", "quell", "nessun",
    ]

    /// `’` (U+2019) as `'`; for an emoji, no variation selectors (U+FE0E, U+FE0F); then cut to
    /// ``maximumTermLength`` at a character boundary.
    static func normalize(_ folded: inout [UInt8], pictographic: Bool) {
        var index = 0
        while index + 2 < folded.count {
            if folded[index] == 0xE2 && folded[index + 1] == 0x80 && folded[index + 2] == 0x99 {
                folded.replaceSubrange(index..<index + 3, with: [0x27])
            } else if pictographic && folded[index] == 0xEF && folded[index + 1] == 0xB8
                        && (folded[index + 2] == 0x8E || folded[index + 2] == 0x8F) {
                folded.removeSubrange(index..<index + 3)
                continue
            }
            index += 1
        }
        if folded.count > maximumTermLength {
            var end = maximumTermLength
            while end > 0 && folded[end] & 0xC0 == 0x80 { end -= 1 }
            folded.removeSubrange(end...)
        }
    }
}
