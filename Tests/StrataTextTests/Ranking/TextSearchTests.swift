import Testing
import TestSupport
@testable import StrataText

/// Searches over the in-memory index (posting blocks as a store keeps them, small blocks so that
/// terms span many) against brute force on random documents and random queries: the matching sets
/// of boolean, phrase, prefix, NEAR, field and typo queries, and top-k in brute-force score order.
@Suite struct TextSearchTests {
    static let vocabulary = ["lmdb", "swift", "store", "stores", "storage", "record", "records", "index", "query", "fast",
                             "faster", "search", "searching", "tree", "trees", "Fünke", "funky", "élan", "東京", "京都",
                             "a", "the", "of", "v1.2", "snake_case", "data", "database", "datum", "write", "read"]

    struct Corpus {
        var index: InMemoryTextIndex
        var reference: BruteForceSearch
        var search: TextSearch
    }

    static func corpus(_ random: inout SeededGenerator, documents: Int, fields: Int, tokenizer: TextTokenizer = TextTokenizer(),
                       blockSize: Int = 4) -> Corpus {
        let ranking = BM25(fieldWeights: (0..<fields).map { _ in [1.0, 2.0, 0.5].randomElement(using: &random)! })
        let index = InMemoryTextIndex(fieldCount: fields, tokenizer: tokenizer, blockSize: blockSize)
        let reference = BruteForceSearch(tokenizer: tokenizer, ranking: ranking)
        for _ in 0..<documents {
            let texts = (0..<fields).map { _ in
                (0..<Int.random(in: 0...14, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }
                    .joined(separator: Bool.random(using: &random) ? " " : ", ")
            }
            reference.add(index.add(texts), texts)
        }
        for document in index.documents where Int.random(in: 0..<10, using: &random) == 0 {
            index.remove(document)
            reference.remove(document)
        }
        return Corpus(index: index, reference: reference, search: TextSearch(reader: index, ranking: ranking))
    }

    /// A random match: a word, a prefix, a word with typos, or a phrase of two or three words.
    static func match(_ random: inout SeededGenerator, tokenizer: TextTokenizer, fields: Int) -> TextMatch? {
        let scope: UInt64? = Int.random(in: 0..<4, using: &random) == 0 ? 1 << UInt64(Int.random(in: 0..<fields, using: &random)) : nil
        func term(_ word: String) -> String? { tokenizer.tokens(in: word, mode: .query).first?.term }
        switch Int.random(in: 0..<10, using: &random) {
        case 0...3:
            guard let text = term(vocabulary.randomElement(using: &random)!) else { return nil }
            return TextMatch(terms: [TextQueryTerm(text: text)], fields: scope)
        case 4, 5:
            guard let text = term(vocabulary.randomElement(using: &random)!) else { return nil }
            let prefix = String(text.prefix(Int.random(in: 1...max(1, text.count), using: &random)))
            return TextMatch(terms: [TextQueryTerm(text: prefix, isPrefix: true)], fields: scope)
        case 6:
            guard var scalars = term(vocabulary.randomElement(using: &random)!).map({ Array($0.unicodeScalars) }) else { return nil }
            if scalars.count > 1 { scalars.swapAt(0, 1) } else { scalars.append("x") }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            return TextMatch(terms: [TextQueryTerm(text: text, typos: Int.random(in: 1...2, using: &random))], fields: scope)
        default:
            var terms: [TextQueryTerm] = []
            for offset in 0..<Int.random(in: 2...3, using: &random) {
                guard let text = term(vocabulary.randomElement(using: &random)!) else { continue }
                terms.append(TextQueryTerm(text: text, offset: offset, isPrefix: Int.random(in: 0..<6, using: &random) == 0))
            }
            return terms.isEmpty ? nil : TextMatch(terms: terms, fields: scope)
        }
    }

    static func query(_ random: inout SeededGenerator, depth: Int, tokenizer: TextTokenizer, fields: Int) -> TextQuery {
        let kind = depth == 0 ? 0 : Int.random(in: 0..<6, using: &random)
        switch kind {
        case 1: return .all((0..<Int.random(in: 2...3, using: &random)).map { _ in query(&random, depth: depth - 1, tokenizer: tokenizer, fields: fields) })
        case 2: return .any((0..<Int.random(in: 2...3, using: &random)).map { _ in query(&random, depth: depth - 1, tokenizer: tokenizer, fields: fields) })
        case 3: return .excluding(query(&random, depth: depth - 1, tokenizer: tokenizer, fields: fields),
                                  query(&random, depth: depth - 1, tokenizer: tokenizer, fields: fields))
        case 4:
            var items = (0..<Int.random(in: 2...3, using: &random)).compactMap { _ in match(&random, tokenizer: tokenizer, fields: fields) }
            items = items.map { TextMatch(terms: $0.terms.map { var term = $0; term.typos = 0; return term }, fields: items.first?.fields) }
            return items.count < 2 ? .nothing : .near(items, distance: Int.random(in: 0...4, using: &random))
        default:
            return match(&random, tokenizer: tokenizer, fields: fields).map(TextQuery.match) ?? .nothing
        }
    }

    @Test(arguments: [(1, 1), (2, 2), (3, 1)])
    func matchingSetsAreThoseOfBruteForce(seed: UInt64, fields: Int) throws {
        var random = SeededGenerator(seed: seed)
        let corpus = Self.corpus(&random, documents: 120, fields: fields)
        for _ in 0..<150 {
            let query = Self.query(&random, depth: Int.random(in: 0...3, using: &random), tokenizer: corpus.index.tokenizer, fields: fields)
            #expect(try corpus.search.matches(query) == corpus.reference.matches(query), "\(query)")
        }
    }

    @Test(arguments: [(4, 1, 1), (5, 2, 10), (6, 2, 3), (7, 3, 25)])
    func topKIsBruteForceScoringOrder(seed: UInt64, fields: Int, count: Int) throws {
        var random = SeededGenerator(seed: seed)
        let corpus = Self.corpus(&random, documents: 200, fields: fields)
        var compared = 0
        for _ in 0..<150 {
            let query = Self.query(&random, depth: Int.random(in: 0...2, using: &random), tokenizer: corpus.index.tokenizer, fields: fields)
            let expected = corpus.reference.top(count, query)
            let found = try corpus.search.top(count, query)
            #expect(found.map(\.document) == expected.map(\.document), "\(query)")
            #expect(found.map(\.score) == expected.map(\.score), "\(query)")
            if !expected.isEmpty { compared += 1 }
        }
        #expect(compared > 50)
    }

    /// Many matches, few of them good: every document holds `common` (in all: a tiny idf), every
    /// third `other` once, and twenty early ones hold `other` four times and `rare` five. Top-10 of
    /// `common OR rare` stops scoring `common` alone once ten `rare` documents are in (WAND), and
    /// top-10 of `common other` skips the blocks of `other` after them, whose bound is too low
    /// (block-max); both return brute force's ten.
    @Test func topKSkipsMatchesThatCannotEnterTheResults() throws {
        let index = InMemoryTextIndex(fieldCount: 1)
        let reference = BruteForceSearch(tokenizer: index.tokenizer, ranking: BM25(fieldWeights: [1]))
        for number in 0..<2_000 {
            var text = "common filler words here"
            if number % 3 == 0 { text += " other" }
            if number < 600 && number % 30 == 0 { text += " other other other rare rare rare rare rare" }
            reference.add(index.add([text]), [text])
        }
        let search = TextSearch(reader: index, ranking: BM25(fieldWeights: [1]))
        func word(_ text: String) -> TextQuery { .match(TextMatch(terms: [TextQueryTerm(text: text)])) }
        for (query, share) in [(TextQuery.any([word("common"), word("rare")]), 4), (.all([word("common"), word("other")]), 2)] {
            var work = TextSearch.Work()
            let found = try search.top(10, query, work: &work)
            #expect(found == reference.top(10, query))
            let matches = try search.matches(query).count
            #expect(work.scored < matches / share, "scored \(work.scored) of \(matches)")
            if share == 2 { #expect(work.skips > 0) }
        }
    }

    @Test func stopWordsAndStemmingSearchAsTheyIndex() throws {
        var random = SeededGenerator(seed: 8)
        let tokenizer = TextTokenizer(stemming: .english, stopWords: .english)
        let corpus = Self.corpus(&random, documents: 150, fields: 2, tokenizer: tokenizer, blockSize: 16)
        for _ in 0..<150 {
            let query = Self.query(&random, depth: 2, tokenizer: tokenizer, fields: 2)
            #expect(try corpus.search.matches(query) == corpus.reference.matches(query), "\(query)")
            #expect(try corpus.search.top(5, query) == corpus.reference.top(5, query), "\(query)")
        }
    }

    @Test func theParsedQueriesOfTheIssueFindWhatTheySay() throws {
        let index = InMemoryTextIndex(fieldCount: 2)
        let lmdb = index.add(["LMDB in Swift", "a fast B-tree store; Fünke uses it"])
        let swift = index.add(["Swift search", "searching records quickly with an ÉLAN index"])
        let other = index.add(["Cooking", "recipes for élan and onions, lmdb nowhere near swift at all"])
        let parser = TextQueryParser(fields: ["title", "body"], tokenizer: index.tokenizer, typoTolerance: true)
        let search = TextSearch(reader: index, ranking: BM25(fieldWeights: [2, 1]))
        func find(_ text: String) throws -> Set<DocumentID> { Set(try search.matches(try parser.parse(text), source: text)) }
        #expect(try find("funke") == [lmdb])
        #expect(try find("elan") == [swift, other])
        #expect(try find("title:lmdb") == [lmdb])
        #expect(try find("lmdb swift") == [lmdb, other])
        #expect(try find("lmdb NOT title:swift") == [other])
        #expect(try find("\"fast b tree\"") == [lmdb])
        #expect(try find("NEAR(lmdb swift, 2)") == [lmdb, other])
        #expect(try find("NEAR(lmdb swift, 1)") == [lmdb])
        #expect(try find("NEAR(lmdb swift, 0)") == [])
        #expect(try find("search*") == [swift])
        #expect(try find("lmd* OR cooking") == [lmdb, other])
        #expect(try find("recrods") == [swift])
        #expect(try find("(lmdb OR recipes) title:cooking") == [other])
        #expect(try search.top(1, try parser.parse("swift")).first?.document == swift)
    }

    /// `NEAR` follows SQLite FTS5: no item may end more than the distance before the last item
    /// starts, the middle items' words counted among those between.
    @Test func nearCountsTheWordsBetweenTheFirstItemsEndAndTheLastItemsStart() throws {
        let index = InMemoryTextIndex(fieldCount: 1)
        let tight = index.add(["a b c"])
        let gap = index.add(["a b x c"])
        let reversed = index.add(["c x b a"])
        let phrase = index.add(["b c x y a"])
        let parser = TextQueryParser(fields: ["body"], tokenizer: index.tokenizer)
        let search = TextSearch(reader: index, ranking: BM25(fieldWeights: [1]))
        func find(_ text: String) throws -> Set<DocumentID> { Set(try search.matches(try parser.parse(text), source: text)) }
        #expect(try find("NEAR(a b c, 0)") == [])
        #expect(try find("NEAR(a b c, 1)") == [tight])
        #expect(try find("NEAR(a b c, 2)") == [tight, gap, reversed])
        // A phrase's own words are not between: "b c" ends at 2, two words before a.
        #expect(try find("NEAR(\"b c\" a, 1)") == [tight])
        #expect(try find("NEAR(\"b c\" a, 2)") == [tight, phrase])
    }

    @Test func aPhraseOnAnIndexWithoutPositionsIsATypedError() throws {
        let index = InMemoryTextIndex(fieldCount: 1, keepsPositions: false)
        index.add(["one two three"])
        let search = TextSearch(reader: index, ranking: BM25(fieldWeights: [1]))
        let text = "one \"two three\""
        let query = try TextQueryParser(fields: ["body"], tokenizer: index.tokenizer).parse(text)
        #expect(throws: TextQueryError.self) { try search.matches(query, source: text) }
        do {
            _ = try search.matches(query, source: text)
        } catch let error as TextQueryError {
            #expect(error.code == .positionsNotKept && error.column == 5)
        }
        #expect(try search.matches(.match(TextMatch(terms: [TextQueryTerm(text: "two")]))) == [1])
    }

    @Test func aPrefixMatchingTooManyTermsIsATypedError() throws {
        let index = InMemoryTextIndex(fieldCount: 1)
        index.add([(0..<50).map { "w\($0)" }.joined(separator: " ")])
        var options = TextSearch.Options()
        options.maximumExpansions = 10
        let search = TextSearch(reader: index, ranking: BM25(fieldWeights: [1]), options: options)
        #expect(throws: TextQueryError.self) { try search.matches(.match(TextMatch(terms: [TextQueryTerm(text: "w", isPrefix: true)]))) }
        #expect(try search.matches(.match(TextMatch(terms: [TextQueryTerm(text: "w9", isPrefix: true)]))) == [1])
    }
}
