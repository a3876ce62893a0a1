/// Marks where a query matches a text, and picks the text's best window of words for a snippet,
/// from the byte ranges of the text's tokens (so what is marked is the text as written, not its
/// folded terms).
///
/// A word matches when its term is a query term (or starts with a prefix, or is within a typo
/// term's distance); a phrase's words are marked only where the whole phrase occurs, and `NEAR`'s
/// items only in a field where the group occurs. Words under a `NOT` are not marked. Neighbouring
/// marked words are marked as one span, the text between them included.
///
/// ```swift
/// let highlighter = TextHighlighter(query: query, tokenizer: tokenizer)
/// highlighter.highlight("LMDB is fast", field: 0, open: "<b>", close: "</b>")   // "<b>LMDB</b> is fast"
/// ```
package struct TextHighlighter: Sendable {
    /// The query whose matches are marked.
    package let query: TextQuery
    /// The index's tokenizer.
    package let tokenizer: TextTokenizer

    /// A highlighter of `query`'s matches in texts tokenized by `tokenizer`.
    package init(query: TextQuery, tokenizer: TextTokenizer) {
        self.query = query
        self.tokenizer = tokenizer
    }

    /// `text` (of the index's field `field`) with each matched span between `open` and `close`.
    package func highlight(_ text: String, field: Int, open: String, close: String) -> String {
        let tokens = tokenizer.tokens(in: text)
        let spans = Self.spans(of: matchedTokens(tokens, field: field), in: tokens)
        return Self.marked(Array(text.utf8), from: 0, to: text.utf8.count, spans: spans, open: open, close: close)
    }

    /// The window of `words` consecutive words of `text` that holds the most different query terms
    /// (then the most matched words, then the earliest), highlighted, with `ellipsis` where the text
    /// goes on before or after it. Without a match, the text's first words.
    package func snippet(_ text: String, field: Int, words: Int, open: String, close: String, ellipsis: String = "…") -> String {
        let tokens = tokenizer.tokens(in: text)
        guard words > 0, !tokens.isEmpty else { return "" }
        let matched = matchedTokens(tokens, field: field)
        let width = min(words, tokens.count)
        var bestStart = 0
        var bestScore = -1
        for start in 0...(tokens.count - width) {
            let window = start..<start + width
            let inside = window.filter { matched.contains($0) }
            let score = Set(inside.map { tokens[$0].term }).count * 1_000_000 + inside.count
            if score > bestScore {
                bestScore = score
                bestStart = start
            }
        }
        let window = bestStart..<bestStart + width
        let utf8 = Array(text.utf8)
        let from = tokens[window.lowerBound].byteRange.lowerBound, to = tokens[window.upperBound - 1].byteRange.upperBound
        let spans = Self.spans(of: matched.filter { window.contains($0) }, in: tokens)
        let body = Self.marked(utf8, from: from, to: to, spans: spans, open: open, close: close)
        return (window.lowerBound > 0 ? ellipsis : "") + body + (window.upperBound < tokens.count ? ellipsis : "")
    }

    /// The indices of the tokens a positive match of the query covers, in field `field`.
    package func matchedTokens(_ tokens: [TextToken], field: Int) -> Set<Int> {
        var byPosition: [Int: [Int]] = [:]
        for (index, token) in tokens.enumerated() { byPosition[token.position, default: []].append(index) }
        var matched: Set<Int> = []
        for (items, distance) in Self.groups(of: query) {
            if let fields = items[0].fields, fields & (1 << UInt64(field)) == 0 { continue }
            let occurrences = items.map { Self.occurrences(of: $0, tokens: tokens, byPosition: byPosition) }
            guard occurrences.allSatisfy({ !$0.isEmpty }) else { continue }
            if let distance {
                let starts = occurrences.map { $0.map(\.start) }
                guard PositionalScorer.nearGroups(starts, lengths: items.map(\.length), distance: distance) > 0 else { continue }
            }
            for list in occurrences { for occurrence in list { matched.formUnion(occurrence.tokens) } }
        }
        return matched
    }

    /// The query's positive matches, each alone or as a `NEAR` group with its distance.
    static func groups(of query: TextQuery) -> [([TextMatch], Int?)] {
        switch query {
        case .match(let match): [([match], nil)]
        case .near(let matches, let distance): [(matches, distance)]
        case .all(let queries), .any(let queries): queries.flatMap(groups)
        case .excluding(let positive, _): groups(of: positive)
        case .nothing: []
        }
    }

    /// Where `match` occurs among `tokens`: the position it starts at and the tokens it covers.
    static func occurrences(of match: TextMatch, tokens: [TextToken], byPosition: [Int: [Int]]) -> [(start: Int, tokens: [Int])] {
        var matchers = match.terms.map { TypoMatcher(word: $0.text, maximumDistance: $0.typos) }
        func matches(_ term: Int, _ token: Int) -> Bool {
            let query = match.terms[term], text = tokens[token].term
            if query.isPrefix { return text.hasPrefix(query.text) }
            if query.typos > 0 { return matchers[term].distance(to: Array(text.utf8)) != nil }
            return text == query.text
        }
        var found: [(Int, [Int])] = []
        for (index, token) in tokens.enumerated() where matches(0, index) {
            var covered = [index]
            let complete = match.terms.indices.dropFirst().allSatisfy { term in
                let hits = (byPosition[token.position + match.terms[term].offset] ?? []).filter { matches(term, $0) }
                covered += hits
                return !hits.isEmpty
            }
            if complete { found.append((token.position, covered)) }
        }
        return found
    }

    /// Byte ranges to mark: the matched tokens, neighbours in position joined into one range.
    static func spans(of matched: Set<Int>, in tokens: [TextToken]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var lastPosition = Int.min
        for index in matched.sorted() {
            let token = tokens[index]
            if let last = spans.last, token.position <= lastPosition + 1, token.byteRange.lowerBound <= last.upperBound + 64 {
                spans[spans.count - 1] = last.lowerBound..<max(last.upperBound, token.byteRange.upperBound)
            } else {
                spans.append(token.byteRange)
            }
            lastPosition = token.position
        }
        return spans
    }

    /// The bytes from `from` to `to`, with each span (sorted, inside them) between `open` and `close`.
    static func marked(_ utf8: [UInt8], from: Int, to: Int, spans: [Range<Int>], open: String, close: String) -> String {
        var output: [UInt8] = []
        var cursor = from
        for span in spans where span.lowerBound >= cursor && span.upperBound <= to {
            output += utf8[cursor..<span.lowerBound]
            output += Array(open.utf8) + utf8[span] + Array(close.utf8)
            cursor = span.upperBound
        }
        output += utf8[cursor..<to]
        return String(decoding: output, as: UTF8.self)
    }
}
