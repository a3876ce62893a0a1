import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat
import StrataText

/// Relevance from the library: `sorted(by: .relevance)` (alone, with a limit: the block-max top-k;
/// with filters or other orderings: a sort by the same scores), the score of each result, and
/// highlights and snippets of results' texts.
@Suite struct FullTextRelevanceTests {
    /// The ids of `posts` matching `query` best first (ties by id), with their BM25 scores, by an
    /// in-memory index of the same tokenizer and weights.
    static func reference(_ posts: [Post], _ query: String) throws -> [(id: Int64, score: Double)] {
        let tokenizer = TextTokenizer(stemming: .english)
        let index = InMemoryTextIndex(fieldCount: 2, tokenizer: tokenizer)
        for post in posts { index.add([post.body, post.note ?? ""]) }
        let parsed = try TextQueryParser(fields: ["body", "note"], tokenizer: tokenizer).parse(query).scoped(to: 1)
        let scored = try TextSearch(reader: index, ranking: BM25(fieldWeights: [1, 1])).scored(parsed)
        return scored.map { (posts[Int($0.document) - 1].id, $0.score) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
    }

    static func store(_ posts: [Post]) throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.write { tx throws in for post in posts { try tx.upsert(post) } }
        return (store, dir)
    }

    @Test func theTopByRelevanceIsTheReferenceRankingAndScoresOnlyWhatItReturns() throws {
        var random = SeededGenerator(seed: 7)
        let posts = (1...300).map { FullTextQueryTests.post(Int64($0), &random) }
        let (store, dir) = try Self.store(posts)
        try store.read { tx throws in
            for query in ["lmdb", "lmdb swift", "lmdb OR swift OR tree", "sto*", "\"swift store\"", "running NOT page"] {
                let expected = try Self.reference(posts, query)
                for (offset, limit) in [(0, 1), (0, 10), (3, 7), (0, 1_000)] {
                    let request = try tx.query(Post.self).where("body SEARCH %@", query).using(index: "body,note")
                        .sorted(by: .relevance).offset(offset).limit(limit)
                    #expect(try request.explain().description.hasSuffix("TopK(relevance, \(offset + limit))" + (offset > 0 ? " → Offset(\(offset))" : "") + " → Limit(\(limit))"),
                            "\(query)")
                    let window = Array(expected.dropFirst(offset).prefix(limit).map(\.id))
                    #expect(try request.ids() == window, "\(query) \(offset) \(limit)")
                    // Relevance then the primary key: the same order (ties go to the primary key).
                    let sorted = try tx.query(Post.self).where("body SEARCH %@", query).sorted(by: .relevance).sorted(by: \.id)
                        .offset(offset).limit(limit)
                    #expect(try sorted.ids() == window, "\(query) \(offset) \(limit)")
                }
                // The top-k reads the records of the results alone.
                let top = try tx.query(Post.self).where("body SEARCH %@", query).using(index: "body,note").sorted(by: .relevance).limit(2)
                let (_, steps) = try top.analyze()
                #expect(steps[0].operation == "TextSearch")
                #expect(steps[0].actualRows == min(2, expected.count), "\(query)")
                // Each result's score is its BM25 score.
                let scored = try tx.query(Post.self).where("body SEARCH %@", query).sorted(by: .relevance).scored()
                #expect(scored.map(\.record.id) == expected.map(\.id), "\(query)")
                for (result, reference) in zip(scored, expected) { #expect(abs(result.score - reference.score) < 1e-9) }
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func relevanceWithAFilterAndThenAnotherOrderSortsByTheSameScores() throws {
        var random = SeededGenerator(seed: 8)
        let posts = (1...200).map { FullTextQueryTests.post(Int64($0), &random) }
        let (store, dir) = try Self.store(posts)
        try store.read { tx throws in
            let expected = try Self.reference(posts, "lmdb OR swift")
            let scores = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0.score) })
            let kept = expected.filter { id, _ in posts[Int(id) - 1].score > 4 }.map(\.id)
            let filtered = try tx.query(Post.self).where("body SEARCH 'lmdb OR swift' AND score > 4").sorted(by: .relevance).limit(5)
            #expect(try filtered.ids() == Array(kept.prefix(5)))
            // Relevance, then the score field descending, then the id.
            let then = try tx.query(Post.self).where("body SEARCH 'lmdb OR swift'").sorted(by: .relevance).sorted(by: \.score, .descending)
            let expectedThen = expected.map(\.id).sorted { a, b in
                let (sa, sb) = (scores[a]!, scores[b]!)
                if sa != sb { return sa > sb }
                let (fa, fb) = (posts[Int(a) - 1].score, posts[Int(b) - 1].score)
                return fa != fb ? fa > fb : a < b
            }
            #expect(try then.ids() == expectedThen)
            // A record matching no SEARCH of an OR scores 0 and comes last.
            let either = try tx.query(Post.self).where("body SEARCH 'lmdb' OR id == 1").sorted(by: .relevance).scored()
            if !posts[0].body.lowercased().contains("lmdb") {
                #expect(either.last?.record.id == 1)
                #expect(either.last?.score == 0)
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func anOrderByRelevanceNeedsASearch() throws {
        let (store, dir) = try Self.store([Post(id: 1, body: "lmdb", city: "Rome", score: 1)])
        try store.read { tx throws in
            do {
                _ = try tx.query(Post.self).where("score > 0").sorted(by: .relevance).ids()
                Issue.record("an order by relevance without SEARCH ran")
            } catch let error as StrataError {
                #expect(error.code == .invalidQuery && error.message.contains("needs a SEARCH condition"), "\(error)")
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func highlightsAndSnippetsMarkWhatTheSearchesMatch() throws {
        let (store, dir) = try Self.store([Post(id: 1, body: "LMDB pages and Swift trees", city: "Rome", score: 1, note: "lmdb")])
        try store.read { tx throws in
            let request = try tx.query(Post.self).where("body SEARCH 'lmdb \"swift trees\" NOT rome'")
            #expect(try request.highlight("LMDB pages and Swift trees", field: "body", open: "<b>", close: "</b>")
                    == "<b>LMDB</b> pages and <b>Swift trees</b>")
            // A phrase is marked only where it occurs whole.
            #expect(try request.highlight("trees of Swift", field: "body", open: "[", close: "]") == "trees of Swift")
            // The note is searched only through a scope: unscoped words go to the body.
            #expect(try request.highlight("lmdb", field: "note", open: "[", close: "]") == "lmdb")
            let scoped = try tx.query(Post.self).where("body SEARCH 'note:lmdb'")
            #expect(try scoped.highlight("lmdb", field: "note", open: "[", close: "]") == "[lmdb]")
            // No SEARCH on the field's index: the text as it is.
            #expect(try tx.query(Post.self).where("score > 0").highlight("lmdb", field: "body", open: "[", close: "]") == "lmdb")
            let long = "one two three four five six lmdb seven eight nine ten eleven"
            #expect(try request.snippet(long, field: "body", words: 3, open: "[", close: "]") == "…five six [lmdb]…")
            #expect(try tx.query(Post.self).where("score > 0").snippet(long, field: "body", words: 2, open: "[", close: "]") == "one two…")
        }
        withExtendedLifetime(dir) {}
    }
}
