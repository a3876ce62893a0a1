@testable import StrataText

/// The reference a search is held to: documents kept as their fields' tokens, every query
/// evaluated on every document by the definitions (`TextQuery`'s doc comments and `BM25`'s), with
/// no index, no cursor and no bound.
final class BruteForceSearch {
    let tokenizer: TextTokenizer
    let ranking: BM25
    let typoWeight: Double
    /// Each live document's fields' tokens, and the positions each field takes.
    var documents: [DocumentID: (fields: [[TextToken]], lengths: [Int])] = [:] { didSet { forget() } }
    private var dictionaryCache: Set<String>?
    private var expansionCache: [TextQueryTerm: [String: Double]] = [:]
    private var frequencyCache: [String: [UInt64?: Int]] = [:]
    private var averageCache: Double?

    private func forget() {
        dictionaryCache = nil
        expansionCache = [:]
        frequencyCache = [:]
        averageCache = nil
    }

    init(tokenizer: TextTokenizer, ranking: BM25, typoWeight: Double = 0.5) {
        self.tokenizer = tokenizer
        self.ranking = ranking
        self.typoWeight = typoWeight
    }

    func add(_ document: DocumentID, _ fields: [String]) {
        var tokens: [[TextToken]] = []
        var lengths: [Int] = []
        for text in fields {
            var field: [TextToken] = []
            lengths.append(tokenizer.forEachToken(in: text) { field.append($0) })
            tokens.append(field)
        }
        documents[document] = (tokens, lengths)
    }

    func remove(_ document: DocumentID) { documents[document] = nil }

    /// Every term of the live documents.
    var dictionary: Set<String> {
        if let dictionaryCache { return dictionaryCache }
        let terms = Set(documents.values.flatMap { $0.fields.joined().map(\.term) })
        dictionaryCache = terms
        return terms
    }

    /// Restricted Damerau–Levenshtein distance, the textbook full table.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        var table = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { table[i][0] = i }
        for j in 0...y.count { table[0][j] = j }
        if !x.isEmpty && !y.isEmpty {
            for i in 1...x.count {
                for j in 1...y.count {
                    let cost = x[i - 1] == y[j - 1] ? 0 : 1
                    table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                    if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] {
                        table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                    }
                }
            }
        }
        return table[x.count][y.count]
    }

    /// The dictionary terms a query term stands for, with their weights.
    func expansions(of term: TextQueryTerm) -> [String: Double] {
        if let cached = expansionCache[term] { return cached }
        let value = expanded(term)
        expansionCache[term] = value
        return value
    }

    private func expanded(_ term: TextQueryTerm) -> [String: Double] {
        var found: [String: Double] = [:]
        for candidate in dictionary {
            if term.isPrefix {
                if candidate.utf8.starts(with: term.text.utf8) { found[candidate] = 1 }
            } else if term.typos > 0 {
                let distance = Self.distance(candidate, term.text)
                if distance <= term.typos { found[candidate] = (0..<distance).reduce(1.0) { value, _ in value * typoWeight } }
            } else if candidate == term.text {
                found[candidate] = 1
            }
        }
        return found
    }

    /// The live documents holding `term` in a field of `scope` (every field when nil).
    func documentFrequency(_ term: String, in scope: UInt64?) -> Int {
        if let cached = frequencyCache[term]?[scope] { return cached }
        let count = documents.values.filter { document in
            document.fields.indices.contains { inScope(scope, $0) && document.fields[$0].contains { $0.term == term } }
        }.count
        frequencyCache[term, default: [:]][scope] = count
        return count
    }

    var averageLength: Double {
        if let averageCache { return averageCache }
        let average = documents.isEmpty ? 1
            : max(1, Double(documents.values.reduce(0) { $0 + $1.lengths.reduce(0, +) }) / Double(documents.count))
        averageCache = average
        return average
    }

    func idf(_ term: String, in scope: UInt64?) -> Double {
        ranking.idf(documentFrequency: documentFrequency(term, in: scope), documentCount: documents.count)
    }

    func length(_ document: DocumentID) -> Double { Double(max(1, documents[document]!.lengths.reduce(0, +))) }

    func inScope(_ fields: UInt64?, _ field: Int) -> Bool { fields.map { $0 & (1 << UInt64(field)) != 0 } ?? true }

    /// The places in a field where `match` starts (all its terms at their offsets).
    func starts(of match: TextMatch, in tokens: [TextToken]) -> [Int] {
        let expanded = match.terms.map { expansions(of: $0) }
        let candidates = Set(tokens.map(\.position))
        return candidates.sorted().filter { start in
            zip(match.terms, expanded).allSatisfy { term, terms in
                tokens.contains { $0.position == start + term.offset && terms[$0.term] != nil }
            }
        }
    }

    /// The number of places a NEAR group ends in a field: distinct starts of the last item of the
    /// choices of one occurrence per item in which no item ends more than the distance before the
    /// last item starts (SQLite FTS5's rule), every choice tried.
    func nearCount(_ matches: [TextMatch], distance: Int, in tokens: [TextToken]) -> Int {
        let lists = matches.map { starts(of: $0, in: tokens) }
        guard lists.allSatisfy({ !$0.isEmpty }) else { return 0 }
        let lengths = matches.map(\.length)
        var found: Set<Int> = []
        func choose(_ item: Int, _ chosen: [Int]) {
            if item == lists.count {
                let last = chosen.max()!
                if zip(chosen, lengths).allSatisfy({ start, length in last - (start + length) <= distance }) { found.insert(last) }
                return
            }
            for start in lists[item] { choose(item + 1, chosen + [start]) }
        }
        choose(0, [])
        return found.count
    }

    /// The query's score in `document`, nil when it does not match.
    func score(_ query: TextQuery, _ document: DocumentID) -> Double? {
        let fields = documents[document]!.fields
        switch query {
        case .nothing: return nil
        case .all(let queries):
            var total = 0.0
            for query in queries {
                guard let part = score(query, document) else { return nil }
                total += part
            }
            return total
        case .any(let queries):
            var total = 0.0, matched = false
            for query in queries { if let part = score(query, document) { total += part; matched = true } }
            return matched ? total : nil
        case .excluding(let positive, let negative):
            return score(negative, document) == nil ? score(positive, document) : nil
        case .match(let match) where match.terms.count == 1:
            var best: Double?
            for (term, weight) in expansions(of: match.terms[0]) {
                var frequencies = [UInt32](repeating: 0, count: fields.count)
                for (field, tokens) in fields.enumerated() { frequencies[field] = UInt32(tokens.filter { $0.term == term }.count) }
                let weighted = ranking.weightedFrequency(frequencies, fields: match.fields)
                guard weighted > 0 else { continue }
                let value = ranking.score(idf: idf(term, in: match.fields), frequency: weighted, length: length(document),
                                          averageLength: averageLength) * weight
                best = max(best ?? 0, value)
            }
            return best
        case .match(let match):
            return positional([match], distance: nil, fields: match.fields, document)
        case .near(let matches, let distance):
            return positional(matches, distance: distance, fields: matches[0].fields, document)
        }
    }

    func positional(_ matches: [TextMatch], distance: Int?, fields scope: UInt64?, _ document: DocumentID) -> Double? {
        let fields = documents[document]!.fields
        var frequencies = [UInt32](repeating: 0, count: fields.count)
        for (field, tokens) in fields.enumerated() where inScope(scope, field) {
            frequencies[field] = UInt32(distance.map { nearCount(matches, distance: $0, in: tokens) }
                                        ?? starts(of: matches[0], in: tokens).count)
        }
        guard frequencies.contains(where: { $0 > 0 }) else { return nil }
        var idfSum = 0.0
        for match in matches {
            for term in match.terms { idfSum += expansions(of: term).keys.map { idf($0, in: match.fields) }.max() ?? 0 }
        }
        return ranking.score(idf: idfSum, frequency: ranking.weightedFrequency(frequencies, fields: scope),
                             length: length(document), averageLength: averageLength)
    }

    func matches(_ query: TextQuery) -> [DocumentID] { documents.keys.filter { score(query, $0) != nil }.sorted() }

    func top(_ count: Int, _ query: TextQuery) -> [TextSearch.Result] {
        let scored = documents.keys.compactMap { document in score(query, document).map { TextSearch.Result(document: document, score: $0) } }
        return Array(scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.document < $1.document }.prefix(count))
    }
}
