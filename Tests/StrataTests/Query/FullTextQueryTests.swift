import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat
import StrataText

/// A post whose body is searched, with an indexed city and an unindexed score.
struct Post: Record, Equatable {
    var id: Int64
    var body: String
    var city: String
    var score: Int
    var note: String?
    static let primaryKey = \Post.id
    static let indexes: [IndexDefinition<Post>] = [.index(\.city), .fullText(\.body, \.note, stemming: .english)]
}

/// Full-text queries from the library: `SEARCH` in predicate strings and `.matches` in key paths,
/// planned as a text access beside the other indexes, run over the stored postings (or, as a
/// filter, over each record's texts), seeing the changes of the transaction they run in.
@Suite struct FullTextQueryTests {
    static let words = ["lmdb", "swift", "store", "stores", "running", "runs", "Fünke", "index", "query", "tree", "page", "東京"]
    static let cities = ["Berlin", "Paris", "Rome"]

    static func post(_ id: Int64, _ random: inout SeededGenerator) -> Post {
        let body = (0..<Int.random(in: 0...8, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
        let note = Bool.random(using: &random) ? words.randomElement(using: &random)! : nil
        return Post(id: id, body: body, city: cities.randomElement(using: &random)!, score: Int.random(in: 0...9, using: &random), note: note)
    }

    static func randomQuery(_ random: inout SeededGenerator) -> String {
        func word() -> String { words.randomElement(using: &random)! }
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return word()
        case 1: return "\(word()) \(word())"
        case 2: return "\(word()) OR \(word())"
        case 3: return "\(word()) NOT \(word())"
        case 4: return "\"\(word()) \(word())\""
        case 5: return String(word().prefix(3)) + "*"
        case 6: return "NEAR(\(word()) \(word()), 2)"
        case 7: return "note:\(word()) OR \(word())"
        default: return "(\(word()) OR \(word())) \(word())"
        }
    }

    /// The ids of `posts` whose texts match `query`, by an in-memory index of the same tokenizer.
    static func reference(_ posts: [Post], _ query: String) throws -> [Int64] {
        let tokenizer = TextTokenizer(stemming: .english)
        let index = InMemoryTextIndex(fieldCount: 2, tokenizer: tokenizer)
        for post in posts { index.add([post.body, post.note ?? ""]) }
        let parsed = try TextQueryParser(fields: ["body", "note"], tokenizer: tokenizer).parse(query).scoped(to: 1)
        let found = try TextSearch(reader: index, ranking: BM25(fieldWeights: [1, 1])).matches(parsed)
        return found.map { posts[Int($0) - 1].id }.sorted()
    }

    @Test func searchesAgreeWithAReferenceIndexThroughSegmentsUpdatesAndDeletes() throws {
        let (store, dir) = try makeStore()
        var random = SeededGenerator(seed: 33)
        var posts: [Int64: Post] = [:]
        for round in 0..<4 {
            // Each round is one transaction: one segment, replaced and deleted documents among the older ones.
            try store.write { tx throws in
                for _ in 0..<40 {
                    let id = Int64.random(in: 1...90, using: &random)
                    if round > 0, Int.random(in: 0..<5, using: &random) == 0 {
                        _ = try tx.delete(Post.self, key: id)
                        posts[id] = nil
                    } else {
                        let post = Self.post(id, &random)
                        try tx.upsert(post)
                        posts[id] = post
                    }
                }
            }
            let live = posts.values.sorted { $0.id < $1.id }
            try store.read { tx throws in
                for _ in 0..<30 {
                    let query = Self.randomQuery(&random)
                    let expected = try Self.reference(live, query)
                    // The text access of the planner.
                    let request = try tx.query(Post.self).where("body SEARCH %@", query).using(index: "body,note")
                    #expect(try request.explain().description.hasPrefix("TextSearch(Post.body,note: body SEARCH "), "\(query)")
                    #expect(try request.ids() == expected, "\(query)")
                    // The same condition as a filter of a full scan (an OR the indexes cannot answer).
                    let filtered = try tx.query(Post.self).where("body SEARCH %@ OR score == 100", query)
                    #expect(try filtered.explain().description.hasPrefix("FullScan(Post) → Filter("), "\(query)")
                    #expect(try filtered.ids() == expected, "\(query)")
                }
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aTextQueryInAWriteTransactionSeesItsUncommittedChanges() throws {
        let (store, dir) = try makeStore()
        try store.write { tx throws in
            try tx.upsert(Post(id: 1, body: "lmdb pages", city: "Berlin", score: 1))
            try tx.upsert(Post(id: 2, body: "swift trees", city: "Paris", score: 2))
        }
        try store.write { tx throws in
            try tx.upsert(Post(id: 3, body: "lmdb in swift", city: "Rome", score: 3))
            try tx.upsert(Post(id: 2, body: "nothing here", city: "Paris", score: 2))
            #expect(try tx.query(Post.self).where(.matches(\.body, "swift")).ids() == [3])
            _ = try tx.delete(Post.self, key: 1)
            #expect(try tx.query(Post.self).where(.matches(\.body, "lmdb")).ids() == [3])
            try tx.upsert(Post(id: 4, body: "more lmdb", city: "Rome", score: 4))
            #expect(try tx.query(Post.self).where(.matches(\.body, "lmdb")).ids() == [3, 4])
        }
        try store.read { tx throws in
            #expect(try tx.query(Post.self).where(.matches(\.body, "lmdb")).ids() == [3, 4])
            #expect(try tx.query(Post.self).where(.matches(\.body, "swift OR trees")).ids() == [3])
        }
        try store.read { tx throws in #expect(try tx.verifyIndexes(entity: "Post").problems.isEmpty) }
        withExtendedLifetime(dir) {}
    }

    @Test func theKeyPathFormCombinesWithOtherConditions() throws {
        let (store, dir) = try makeStore()
        try store.write { tx throws in
            try tx.upsert(Post(id: 1, body: "lmdb and swift", city: "Berlin", score: 1))
            try tx.upsert(Post(id: 2, body: "lmdb alone", city: "Berlin", score: 7))
            try tx.upsert(Post(id: 3, body: "swift alone", city: "Paris", score: 7, note: "lmdb"))
        }
        try store.read { tx throws in
            #expect(try tx.query(Post.self).where(.matches(\.body, "lmdb AND swift")).ids() == [1])
            #expect(try tx.query(Post.self).where(.matches(\.body, "lmdb") && \.score > 5).ids() == [2])
            #expect(try tx.query(Post.self).where(.matches(\.body, "lmdb") || \.city == "Paris").ids() == [1, 2, 3])
            #expect(try tx.query(Post.self).where(!.matches(\.body, "alone")).ids() == [1])
            // The note is the index's other field: searched by its own key path, or by a scope.
            #expect(try tx.query(Post.self).where(.matches(\.note, "lmdb")).ids() == [3])
            #expect(try tx.query(Post.self).where(.matches(\.body, "note:lmdb")).ids() == [3])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func thePlannerIntersectsTheTextAccessWithAnIndexAndExplainsItsTerms() throws {
        let (store, dir) = try makeStore()
        try store.write { tx throws in
            for id in 1...400 {
                let body = id % 50 == 0 ? "rare lmdb" : id % 2 == 0 ? "common words" : "common lmdb"
                try tx.upsert(Post(id: Int64(id), body: body, city: id % 40 == 0 ? "Berlin" : "Paris", score: id % 10))
            }
        }
        try store.read { tx throws in
            // Selective text: the text access alone, its terms with their document frequencies.
            let rare = try tx.query(Post.self).where("body SEARCH 'rare lmdb'")
            let rarePlan = try rare.explain().description
            #expect(rarePlan == "TextSearch(Post.body,note: body SEARCH \"rare lmdb\"; rare 8, lmdb 208)", "\(rarePlan)")
            #expect(try rare.explain().estimatedRows == 8)
            #expect(try rare.ids() == (1...400).filter { $0 % 50 == 0 }.map(Int64.init))
            // A term in nearly every record: still the text access, not a full scan whose filter
            // tokenizes every record's texts.
            let common = try tx.query(Post.self).where("body SEARCH 'common'")
            let commonPlan = try common.explain().description
            #expect(commonPlan.hasPrefix("TextSearch(Post.body,note: body SEARCH \"common\""), "\(commonPlan)")
            #expect(try common.ids() == (1...400).filter { $0 % 50 != 0 }.map(Int64.init))
            // Both selective enough: their keys intersected before any record is read.
            let both = try tx.query(Post.self).where("body SEARCH 'rare' AND city == 'Berlin'")
            let plan = try both.explain().description
            #expect(plan.hasPrefix("Intersection("), "\(plan)")
            #expect(plan.contains("TextSearch(Post.body,note: body SEARCH \"rare\"; rare 8)"), "\(plan)")
            #expect(try both.ids() == [200, 400])
            // A common term and a selective indexed condition: the index, the text search as a filter.
            let berlin = try tx.query(Post.self).where("body SEARCH 'common' AND city == 'Berlin'")
            let berlinPlan = try berlin.explain().description
            #expect(berlinPlan.hasPrefix("IndexScan(Post.city = \"Berlin\") → Filter(body SEARCH \"common\")"), "\(berlinPlan)")
            #expect(try berlin.ids() == (1...400).filter { $0 % 40 == 0 && $0 % 50 != 0 }.map(Int64.init))
            // --analyze: the posting blocks the text search read.
            let (_, steps) = try rare.analyze()
            #expect(steps[0].operation == "TextSearch")
            #expect(steps[0].actualRows == 8)
            #expect((steps[0].postingsRead ?? 0) >= 2, "\(rare)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test(arguments: [
        ("city SEARCH 'lmdb'", "Post.city is in no full-text index"),
        ("body SEARCH 'lmdb OR'", "full-text query, column 6"),
        ("body SEARCH '(lmdb'", "full-text query, column 1"),
        ("body SEARCH 'title:lmdb'", "full-text query, column 1"),
        ("body SEARCH[c] 'lmdb'", "SEARCH takes no [c]/[d] options"),
    ])
    func badTextQueriesThrowTypedErrorsNamingWhatAndWhere(predicate: String, message: String) throws {
        let (store, dir) = try makeStore()
        try store.write { tx throws in try tx.upsert(Post(id: 1, body: "lmdb", city: "Berlin", score: 1)) }
        try store.read { tx throws in
            do {
                _ = try tx.query(Post.self).where(predicate).ids()
                Issue.record("\(predicate) ran")
            } catch let error as StrataError {
                #expect(error.code == .invalidQuery, "\(error)")
                #expect(error.message.contains(message), "\(error)")
                #expect(error.entity == "Post", "\(error)")
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aFormatStringSearchNeedsAStringQuery() throws {
        let (store, dir) = try makeStore()
        try store.read { tx throws in
            #expect(throws: StrataError.self) { try tx.query(Post.self).where("body SEARCH 3").ids() }
        }
        withExtendedLifetime(dir) {}
    }
}
