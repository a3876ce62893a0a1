/// Runs a ``TextQuery`` over a ``TextIndexReader``: every matching document, or the k best by BM25.
///
/// The query becomes a tree of scorers over the reader's posting cursors: a term's cursor (a
/// prefix's or typo-tolerant word's expansions, found by walking the term dictionary, as the best
/// of their terms; a term a typo away weighs ``Options/typoWeight`` per edit), phrases and `NEAR`
/// groups checked on positions, `AND` led by its cheapest side, `OR`, `NOT`.
///
/// ``top(_:_:source:)`` does not score every match: a match is scored only when the bound of the
/// blocks its cursors are in could beat the k-th best score so far (block-max), and an `OR` at the
/// top skips documents whose terms' global bounds together cannot (WAND, max-score). The results
/// are those of scoring every match and sorting by score, then by document (the tests check this
/// against brute force).
package struct TextSearch {
    /// Limits and weights of a search.
    package struct Options: Sendable, Hashable {
        /// The most terms one prefix or typo-tolerant word may expand to.
        package var maximumExpansions = 4_096
        /// The weight of a term one edit away from the query's (its square for two).
        package var typoWeight = 0.5

        /// The default options.
        package init() {}
    }

    /// A document and its score.
    package struct Result: Sendable, Hashable {
        /// The document.
        package var document: DocumentID
        /// Its BM25 score (higher is better).
        package var score: Double
    }

    package let reader: any TextIndexReader
    package let ranking: BM25
    package let options: Options

    /// A search of `reader`'s index ranked by `ranking`.
    package init(reader: any TextIndexReader, ranking: BM25, options: Options = Options()) {
        precondition(ranking.fieldWeights.count == reader.fieldCount, "one weight per field of the index")
        self.reader = reader
        self.ranking = ranking
        self.options = options
    }

    /// The documents `query` matches, ascending. `source` is the query's text, for the column of
    /// an error found while running it (too many expansions, positions not kept).
    package func matches(_ query: TextQuery, source: String = "") throws -> [DocumentID] {
        let context = try ScoringContext(reader: reader, ranking: ranking)
        let root = try scorer(for: query, context: context, source: source)
        var found: [DocumentID] = []
        try root.advance(to: 1)
        while root.document != .max {
            found.append(root.document)
            try root.advance(to: root.document + 1)
        }
        return found
    }

    /// Every match of `query` with its score, ascending by document: what ranking needs when
    /// other conditions than the query's decide which matches are kept.
    package func scored(_ query: TextQuery, source: String = "") throws -> [Result] {
        let context = try ScoringContext(reader: reader, ranking: ranking)
        let root = try scorer(for: query, context: context, source: source)
        var found: [Result] = []
        try root.advance(to: 1)
        while root.document != .max {
            found.append(Result(document: root.document, score: try root.score()))
            try root.advance(to: root.document + 1)
        }
        return found
    }

    /// What a top-k search did: how many matches it scored, and how often a bound let it skip.
    package struct Work: Sendable, Hashable {
        /// Matches whose score was computed.
        package var scored = 0
        /// Times the bound of the blocks ahead was at most the k-th score, and the search skipped past them.
        package var skips = 0

        /// No work yet.
        package init() {}
    }

    /// The `count` best matches of `query`, by score (highest first), then by document.
    package func top(_ count: Int, _ query: TextQuery, source: String = "") throws -> [Result] {
        var work = Work()
        return try top(count, query, source: source, work: &work)
    }

    /// The `count` best matches of `query`, counting in `work` what finding them took.
    package func top(_ count: Int, _ query: TextQuery, source: String = "", work: inout Work) throws -> [Result] {
        guard count > 0 else { return [] }
        let context = try ScoringContext(reader: reader, ranking: ranking)
        let root = try scorer(for: query, context: context, source: source)
        var best: [Result] = []    // highest first; the last is the k-th
        var threshold = -Double.infinity
        try root.advance(to: 1)
        while root.document != .max {
            let document = root.document
            if best.count == count {
                let (bound, upTo) = root.bound()
                if bound <= threshold {
                    work.skips += 1
                    guard upTo < .max - 1 else { break }
                    try root.advance(to: max(upTo + 1, document + 1))
                    continue
                }
            }
            let score = try root.score()
            work.scored += 1
            if best.count < count || score > threshold {
                let place = best.firstIndex { $0.score < score } ?? best.count
                best.insert(Result(document: document, score: score), at: place)
                if best.count > count { best.removeLast() }
                if best.count == count {
                    threshold = best[count - 1].score
                    root.setMinimumScore(threshold)
                }
            }
            try root.advance(to: document + 1)
        }
        return best
    }

    func scorer(for query: TextQuery, context: ScoringContext, source: String) throws -> any Scorer {
        switch query {
        case .nothing: return EmptyScorer()
        case .all(let queries): return ConjunctionScorer(try queries.map { try scorer(for: $0, context: context, source: source) })
        case .any(let queries): return DisjunctionScorer(try queries.map { try scorer(for: $0, context: context, source: source) })
        case .excluding(let positive, let negative):
            return ExclusionScorer(try scorer(for: positive, context: context, source: source),
                                   excluding: try scorer(for: negative, context: context, source: source))
        case .match(let match) where match.terms.count == 1:
            let expansions = try expand(match.terms[0], of: match, source: source)
            let scorers = try expansions.compactMap { term, weight -> (any Scorer)? in
                guard let cursor = try reader.postings(of: term) else { return nil }
                return try TermScorer(term: term, cursor: cursor, fields: match.fields, weight: weight, context: context)
            }
            if scorers.isEmpty { return EmptyScorer() }
            return scorers.count == 1 ? scorers[0] : BestOfScorer(scorers)
        case .match(let match):
            guard let slots = try slots(of: match, context: context, source: source) else { return EmptyScorer() }
            return PositionalScorer(items: [slots], distance: nil, fields: match.fields, context: context)
        case .near(let matches, let distance):
            var items: [[PhraseSlot]] = []
            for match in matches {
                guard let slots = try slots(of: match, context: context, source: source) else { return EmptyScorer() }
                items.append(slots)
            }
            return PositionalScorer(items: items, distance: distance, fields: matches.first?.fields, context: context)
        }
    }

    /// The slots of a phrase, nil when a term of it is in no document.
    private func slots(of match: TextMatch, context: ScoringContext, source: String) throws -> [PhraseSlot]? {
        guard reader.keepsPositions else {
            throw TextQueryError(.positionsNotKept, "phrases and NEAR need an index that keeps positions",
                                 offset: match.offset, in: source)
        }
        var slots: [PhraseSlot] = []
        for term in match.terms {
            let terms = try expand(term, of: match, source: source).compactMap { expansion in
                try reader.postings(of: expansion.term).map { (term: expansion.term, cursor: $0) }
            }
            if terms.isEmpty { return nil }
            slots.append(try PhraseSlot(terms: terms, offset: term.offset, fields: match.fields, context: context))
        }
        return slots
    }

    /// The index's terms a query term stands for, each with its weight: itself; or every term
    /// it is a prefix of; or every term within its typo distance.
    func expand(_ term: TextQueryTerm, of match: TextMatch, source: String) throws -> [(term: String, weight: Double)] {
        guard term.isPrefix || term.typos > 0 else { return [(term.text, 1)] }
        let prefix = Array(term.text.utf8)
        var found: [(String, Double)] = []
        var matcher = TypoMatcher(word: term.text, maximumDistance: term.typos)
        var overflow = false
        try reader.walkTerms(from: term.isPrefix ? prefix : []) { candidate in
            if term.isPrefix {
                guard candidate.starts(with: prefix) else { return .stop }
                found.append((String(decoding: candidate, as: UTF8.self), 1))
            } else {
                switch matcher.visit(candidate) {
                case .match(let distance):
                    var weight = 1.0
                    for _ in 0..<distance { weight *= options.typoWeight }
                    found.append((String(decoding: candidate, as: UTF8.self), weight))
                case .next: break
                case .skip(let target): return .skip(to: target)
                }
            }
            if found.count > options.maximumExpansions { overflow = true; return .stop }
            return .next
        }
        guard !overflow else {
            throw TextQueryError(.tooManyExpansions, "\(term.text.debugDescription)\(term.isPrefix ? "*" : "") matches more than "
                                 + "\(options.maximumExpansions) terms; make it longer", offset: match.offset, in: source)
        }
        return found
    }
}
