import Foundation
import Testing
import TestSupport
@testable import Strata

/// A document searched both by Strata and by SQLite FTS5.
struct FTSDocument: Record, Equatable {
    var id: Int64
    var title: String
    var body: String
    static let primaryKey = \FTSDocument.id
    static let indexes: [IndexDefinition<FTSDocument>] = [.fullText(\.title, \.body)]
}

/// Strata's full-text search against SQLite FTS5 with the equivalent tokenizer (`unicode61`,
/// diacritics removed): the same random documents in both, the same 1,000 random queries in each
/// one's syntax, and the same matching documents expected from each.
///
/// The documents are Latin-script words, with diacritics and in every case, cut by spaces and
/// punctuation followed by a space: the text on which the two tokenizers are meant to agree
/// (UAX #29 keeps `a.b` and `don't` whole where `unicode61` cuts them, and Strata indexes CJK text as
/// bigrams where `unicode61` keeps a run whole, so neither is generated). The queries are words,
/// prefixes, phrases (with a prefix last word), `NEAR` groups with and without a distance, field
/// scopes on any of them and on groups, and `AND`, `OR`, `NOT` nested, written for Strata with the
/// fewest parentheses its precedence rules allow and for FTS5 with every group parenthesized, so
/// the two agree only if Strata binds `NOT`, `AND` and `OR` as FTS5 does. The top 10 of each word
/// by relevance is FTS5's `bm25()` order.
@Suite struct FullTextFTS5DifferentialTests {
    /// The words documents are made of: prefix families, words that fold to each other, and
    /// lower-case operator names, which are words.
    static let vocabulary = [
        "lmdb", "swift", "store", "stores", "storage", "page", "pages", "tree", "index", "indexes",
        "query", "köln", "koln", "élan", "über", "café", "naïve", "façade", "señor", "år", "transact",
        "transaction", "transit", "reader", "readers", "writer", "or", "not", "and", "near", "x", "2024", "v2",
    ]
    static let separators = [" ", " ", " ", " ", ", ", ". ", " - ", "; ", " (", ") "]

    /// The word as a document or query may spell it: as listed, capitalized or upper case.
    static func spelling(_ word: String, _ random: inout SeededGenerator) -> String {
        if ["or", "not", "and", "near"].contains(word) { return word }   // upper case, they would be operators
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return word.capitalized
        case 1: return word.uppercased()
        default: return word
        }
    }

    static func text(words: ClosedRange<Int>, _ random: inout SeededGenerator) -> String {
        var text = ""
        for index in 0..<Int.random(in: words, using: &random) {
            if index > 0 { text += separators.randomElement(using: &random)! }
            text += spelling(vocabulary[skewedIndex(&random)], &random)
        }
        return text
    }

    /// Earlier words of the vocabulary come more often, so that some terms are in most documents.
    static func skewedIndex(_ random: inout SeededGenerator) -> Int {
        let r = Double.random(in: 0..<1, using: &random)
        return min(vocabulary.count - 1, Int(r * r * Double(vocabulary.count)))
    }

    /// 400 ids written alike into a new store and into FTS5 in five transactions: several segments,
    /// with documents replaced and deleted among older ones (whose postings stay until a merge).
    static func populate(_ random: inout SeededGenerator) throws -> (store: Store, dir: TemporaryDirectory, fts5: FTS5Reference) {
        let (store, dir) = try makeStore()
        let fts5 = try FTS5Reference()
        for round in 0..<5 {
            try store.write { tx throws in
                for _ in 0..<120 {
                    let id = Int64.random(in: 1...400, using: &random)
                    if round > 0, Int.random(in: 0..<6, using: &random) == 0 {
                        _ = try tx.delete(FTSDocument.self, key: id)
                        try fts5.delete(id: id)
                    } else {
                        let document = FTSDocument(id: id, title: Self.text(words: 0...5, &random),
                                                   body: Self.text(words: 0...30, &random))
                        try tx.upsert(document)
                        try fts5.upsert(id: id, title: document.title, body: document.body)
                    }
                }
            }
        }
        return (store, dir, fts5)
    }

    @Test func matchingSetsEqualFTS5sOnAThousandRandomQueries() throws {
        var random = SeededGenerator(seed: 0x5F75)
        let (store, dir, fts5) = try Self.populate(&random)
        var nonEmpty = 0, differences: [String] = []
        var overlap = 0.0, rankedQueries = 0
        try store.read { tx throws in
            for number in 0..<1_000 {
                let query = GeneratedTextQuery.random(depth: 3, &random)
                let strata = query.strata(), sqlite = query.fts5(scope: "body")
                let expected = try fts5.matches(sqlite)
                // The top 10 by relevance beside bm25()'s, ties by id in both: the same where both
                // score alike (words; see the test below), apart where they do not by design
                // (phrases, prefixes and NEAR weighed by their terms).
                if !expected.isEmpty {
                    let best = try fts5.top(10, sqlite)
                    let top = try tx.query(FTSDocument.self).where(.matches(\.body, strata)).sorted(by: .relevance).limit(10).ids()
                    overlap += Double(Set(top).intersection(best).count) / Double(best.count)
                    rankedQueries += 1
                }
                // One query in ten as a filter of a full scan (an OR no index answers: each record's texts
                // tokenized and searched alone), the rest through the text index.
                let found = number % 10 != 0
                    ? try tx.query(FTSDocument.self).where(.matches(\.body, strata)).ids()
                    : try tx.query(FTSDocument.self).where("body SEARCH %@ OR id == -1", strata).ids()
                if found != expected {
                    differences.append("#\(number) Strata \(strata) → \(found); FTS5 \(sqlite) → \(expected)")
                }
                if !expected.isEmpty { nonEmpty += 1 }
            }
        }
        // Ranking of one word: the top 10 by relevance in FTS5's bm25() order (the same term
        // frequencies, field weights, lengths and saturation; ties by id in both).
        var ranked = 0
        try store.read { tx throws in
            for word in Self.vocabulary {
                let expected = try fts5.top(10, "body : \"\(word)\"")
                guard !expected.isEmpty else { continue }
                let found = try tx.query(FTSDocument.self).where(.matches(\.body, word)).sorted(by: .relevance).limit(10).ids()
                #expect(found == expected, "\(word): Strata \(found), FTS5 \(expected)")
                ranked += 1
            }
        }
        #expect(ranked > 20, "only \(ranked) words matched a document")
        // The issue's target for the top 10 of random queries: a mean overlap of at least 0.9.
        #expect(rankedQueries > 400 && overlap / Double(rankedQueries) >= 0.9,
                "mean top-10 overlap with bm25(): \(overlap / Double(rankedQueries)) over \(rankedQueries) queries")
        #expect(differences.isEmpty, "\(differences.count) of 1,000 differ, first: \(differences.prefix(5).joined(separator: "\n"))")
        // The generator is not vacuous: most queries match something, and some match nothing.
        #expect(nonEmpty > 400 && nonEmpty < 1_000, "\(nonEmpty) of 1,000 queries matched a document")
        withExtendedLifetime(dir) {}
    }

    /// Scores of several words equal FTS5's `bm25()`: each word weighed by the live documents that
    /// hold it in the searched field (FTS5 counts the rows its column filter matches), not by every
    /// posting of every field. Queries of words alone, where both define a score the same way: a
    /// sum over the words a matching document holds (`AND` of words, `title:` words and `OR`s of
    /// two words, and `NOT` a word). Phrases, prefixes and `NEAR` are scored differently by design
    /// (the sum of their terms' idf, not the idf of the phrase's own matches). `NOT` is put only
    /// over `AND`s of words: under a `NOT`'s left side, FTS5 leaves the words of an `OR` out of
    /// `bm25()` (SQLite 3.40: `(tree AND (lmdb OR query)) NOT reader` scores a document holding
    /// `tree` and `lmdb` as `tree` alone), which is FTS5's quirk, not a definition to follow.
    @Test func scoresOfSeveralWordsEqualFTS5sBM25() throws {
        var random = SeededGenerator(seed: 0x5F75)
        let (store, dir, fts5) = try Self.populate(&random)
        func word() -> GeneratedTextQuery { .word(Self.spelling(Self.vocabulary[Self.skewedIndex(&random)], &random), prefix: false) }
        var compared = 0, differences: [String] = []
        try store.read { tx throws in
            for _ in 0..<300 {
                var query = word(), hasOr = false
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let item: GeneratedTextQuery
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: item = .title(word())
                    case 1: item = .or(word(), word()); hasOr = true
                    default: item = word()
                    }
                    query = .and(query, item, written: Bool.random(using: &random))
                }
                if !hasOr, Int.random(in: 0..<3, using: &random) == 0 { query = .not(query, word()) }
                let strata = query.strata()
                let expected = try fts5.scores(query.fts5(scope: "body"))
                let found = try tx.query(FTSDocument.self).where(.matches(\.body, strata)).scored()
                #expect(Set(found.map(\.record.id)) == Set(expected.keys), "\(strata)")
                for (record, score) in found {
                    guard let reference = expected[record.id] else { continue }
                    compared += 1
                    if abs(score - reference) > 1e-9 * max(1, abs(reference)) {
                        differences.append("\(strata), id \(record.id): Strata \(score), FTS5 \(reference)")
                    }
                }
            }
        }
        #expect(compared > 1_000, "only \(compared) scores compared")
        #expect(differences.isEmpty, "\(differences.count) scores differ, first: \(differences.prefix(5).joined(separator: "\n"))")
        withExtendedLifetime(dir) {}
    }
}

/// A random full-text query, written in Strata's syntax and in FTS5's.
indirect enum GeneratedTextQuery {
    /// A word of the vocabulary, as spelled, and whether it is a prefix (then cut to its first letters).
    case word(String, prefix: Bool)
    /// Words next to each other; the last one a prefix or not.
    case phrase([String], prefix: Bool)
    /// Words or phrases within a distance (FTS5's 10 when nil).
    case near([GeneratedTextQuery], distance: Int?)
    /// A query on the title field alone.
    case title(GeneratedTextQuery)
    case and(GeneratedTextQuery, GeneratedTextQuery, written: Bool)
    case or(GeneratedTextQuery, GeneratedTextQuery)
    case not(GeneratedTextQuery, GeneratedTextQuery)

    typealias Tests = FullTextFTS5DifferentialTests

    /// A random query of at most `depth` levels of operators and scopes; a scope is not nested in
    /// another (Strata refuses that, FTS5 intersects the two).
    static func random(depth: Int, scoped: Bool = false, _ random: inout SeededGenerator) -> GeneratedTextQuery {
        func child() -> GeneratedTextQuery { .random(depth: depth - 1, scoped: scoped, &random) }
        switch Int.random(in: 0..<(depth > 0 ? 9 : 4), using: &random) {
        case 0, 1: return word(&random)
        case 2: return phrase(&random)
        case 3:
            let items = (0..<Int.random(in: 2...3, using: &random)).map { _ in
                Bool.random(using: &random) ? word(&random) : phrase(&random)
            }
            return .near(items, distance: Bool.random(using: &random) ? Int.random(in: 0...6, using: &random) : nil)
        case 4 where !scoped: return .title(.random(depth: depth - 1, scoped: true, &random))
        case 4, 5, 6: return .and(child(), child(), written: Bool.random(using: &random))
        case 7: return .or(child(), child())
        default: return .not(child(), child())
        }
    }

    static func word(_ random: inout SeededGenerator) -> GeneratedTextQuery {
        let word = Tests.spelling(Tests.vocabulary[Tests.skewedIndex(&random)], &random)
        guard Int.random(in: 0..<5, using: &random) == 0 else { return .word(word, prefix: false) }
        return .word(String(word.prefix(Int.random(in: 1...max(1, word.count), using: &random))), prefix: true)
    }

    static func phrase(_ random: inout SeededGenerator) -> GeneratedTextQuery {
        let words = (0..<Int.random(in: 2...3, using: &random)).map { _ in
            Tests.spelling(Tests.vocabulary[Tests.skewedIndex(&random)], &random)
        }
        return .phrase(words, prefix: Int.random(in: 0..<4, using: &random) == 0)
    }

    /// Binding strength in both grammars: NOT over AND over OR; words, phrases, NEAR and scopes bind tightest.
    var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .not: 3
        default: 4
        }
    }

    /// Strata's syntax, with parentheses only where precedence needs them (all three operators
    /// group from the left).
    func strata() -> String {
        func operand(_ child: GeneratedTextQuery, right: Bool) -> String {
            let needs = child.precedence < precedence || (right && child.precedence == precedence && precedence < 4)
            return needs ? "(\(child.strata()))" : child.strata()
        }
        switch self {
        case .word(let word, let prefix): return prefix ? word + "*" : word
        case .phrase(let words, let prefix): return "\"\(words.joined(separator: " "))\"" + (prefix ? "*" : "")
        case .near(let items, let distance):
            return "NEAR(\(items.map { $0.strata() }.joined(separator: " "))\(distance.map { ", \($0)" } ?? ""))"
        case .title(let query): return query.precedence < 4 ? "title:(\(query.strata()))" : "title:\(query.strata())"
        case .and(let a, let b, let written): return operand(a, right: false) + (written ? " AND " : " ") + operand(b, right: true)
        case .or(let a, let b): return operand(a, right: false) + " OR " + operand(b, right: true)
        case .not(let a, let b): return operand(a, right: false) + " NOT " + operand(b, right: true)
        }
    }

    /// FTS5's syntax: every group parenthesized, every word quoted, and every word, phrase or
    /// `NEAR` group given its column, as Strata's unscoped words search only the searched field.
    func fts5(scope: String) -> String {
        switch self {
        case .word, .phrase, .near: return "\(scope) : \(fts5Item())"
        case .title(let query): return query.fts5(scope: "title")
        case .and(let a, let b, _): return "(\(a.fts5(scope: scope)) AND \(b.fts5(scope: scope)))"
        case .or(let a, let b): return "(\(a.fts5(scope: scope)) OR \(b.fts5(scope: scope)))"
        case .not(let a, let b): return "(\(a.fts5(scope: scope)) NOT \(b.fts5(scope: scope)))"
        }
    }

    private func fts5Item() -> String {
        switch self {
        case .word(let word, let prefix): return "\"\(word)\"" + (prefix ? " *" : "")
        case .phrase(let words, let prefix): return "\"\(words.joined(separator: " "))\"" + (prefix ? " *" : "")
        case .near(let items, let distance):
            return "NEAR(\(items.map { $0.fts5Item() }.joined(separator: " "))\(distance.map { ", \($0)" } ?? ""))"
        default: preconditionFailure("only words, phrases and NEAR groups are items")
        }
    }
}
