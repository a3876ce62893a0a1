import Foundation
import Testing
import TestSupport
@testable import Strata

/// A page with a weighted title, a body and a second full-text index on the body alone.
struct SearchedPage: Record {
    var id: Int64
    var title: String
    var body: String
    static let primaryKey = \SearchedPage.id
    static let indexes: [IndexDefinition<SearchedPage>] = [
        .fullText(\.title, \.body, weights: [2, 1]),
        .fullText(\.body, stemming: .english, stopWords: .english, name: "stemmed"),
    ]
}

/// A text with English stemming and stop words.
struct StemmedText: Record {
    var id: Int64
    var text: String
    static let primaryKey = \StemmedText.id
    static let indexes: [IndexDefinition<StemmedText>] = [.fullText(\.text, stemming: .english, stopWords: .english)]
}

/// What the "Searching text" article says of the query language, ranking and languages, through
/// the public API.
@Suite struct FullTextArticleTests {
    static func store<R: Record>(_ records: [R]) throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.write { tx throws in try tx.insert(records) }
        return (store, dir)
    }

    func ids(_ tx: ReadTransaction, _ query: String) throws -> [Int64] {
        try tx.query(SearchedPage.self).where(.matches(\.body, query)).ids()
    }

    @Test func aSearchReadsTheFirstFullTextIndexHoldingItsField() throws {
        let (store, dir) = try Self.store([SearchedPage(id: 1, title: "t", body: "the runners were running")])
        try store.read { tx throws in
            // The first index is unstemmed and keeps stop words: "run" is not a term of it, "the" is.
            #expect(try ids(tx, "run") == [])
            #expect(try ids(tx, "the") == [1])
            #expect(try ids(tx, "running") == [1])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aSchemaFilesArrayOfFieldNamesIsOneIndexAndItsObjectsOneEach() throws {
        func indexes(_ member: String) throws -> [FullTextIndexDescription] {
            let text = #"{"entities": {"Note": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "title": {"type": "string"}, "#
                + #""body": {"type": "string"}}, "fullText": \#(member)}}}"#
            return try #require(try SchemaFile(json: Data(text.utf8)).entity("Note")).fullTextIndexes
        }
        #expect(try indexes(#"["title", "body"]"#) == [FullTextIndexDescription(fields: ["title", "body"])])
        #expect(try indexes(#"[{"fields": ["title"]}, {"fields": ["body"], "stemming": "english"}]"#)
                == [FullTextIndexDescription(fields: ["title"]), FullTextIndexDescription(fields: ["body"], stemming: .english)])
    }

    @Test func operatorsPrecedenceAndScopesAreTheArticles() throws {
        let (store, dir) = try Self.store([
            SearchedPage(id: 1, title: "lmdb", body: "a b"),
            SearchedPage(id: 2, title: "swift", body: "a b c"),
            SearchedPage(id: 3, title: "other", body: "d"),
            SearchedPage(id: 4, title: "other", body: "a or b"),
        ])
        try store.read { tx throws in
            #expect(try ids(tx, "a b") == [1, 2, 4])
            #expect(try ids(tx, "a AND b") == [1, 2, 4])
            // a b NOT c OR d is (a AND (b NOT c)) OR d.
            #expect(try ids(tx, "a b NOT c OR d") == [1, 3, 4])
            // Lower-case `or` is a word.
            #expect(try ids(tx, "a or b") == [4])
            #expect(try ids(tx, "title:(swift OR lmdb)") == [1, 2])
            #expect(try ids(tx, "title:lmdb") == [1])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func nearTakesTenWordsUnlessToldAndThereIsNoTypoTolerance() throws {
        let gap = (1...10).map { "w\($0)" }.joined(separator: " ")
        let (store, dir) = try Self.store([
            SearchedPage(id: 1, title: "t", body: "alpha \(gap) omega"),
            SearchedPage(id: 2, title: "t", body: "alpha x \(gap) omega"),
            SearchedPage(id: 3, title: "t", body: "lmdb readers"),
        ])
        try store.read { tx throws in
            #expect(try ids(tx, "NEAR(alpha omega)") == [1])
            #expect(try ids(tx, "NEAR(omega alpha, 11)") == [1, 2])
            #expect(try ids(tx, "lmbd") == [])
            #expect(try ids(tx, "readres") == [])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func wordsFoldIdentifiersStayWholeAndCJKTextIsSearchedInPairs() throws {
        let (store, dir) = try Self.store([
            SearchedPage(id: 1, title: "t", body: "Köln ÉLAN Straße l'élève"),
            SearchedPage(id: 2, title: "t", body: "snake_case v1.2.3 3.14 full-text"),
            SearchedPage(id: 3, title: "t", body: "東京都に行く"),
            SearchedPage(id: 4, title: "t", body: "東京タワー"),
            SearchedPage(id: 5, title: "t", body: "ภาษาไทย"),
        ])
        try store.read { tx throws in
            #expect(try ids(tx, "koln elan STRASSE eleve") == [1])
            #expect(try ids(tx, "snake") == [])
            #expect(try ids(tx, "snake_case v1.2.3 3.14") == [2])
            #expect(try ids(tx, "text") == [2])
            #expect(try ids(tx, "full-text") == [2])
            #expect(try ids(tx, "東京") == [3, 4])
            #expect(try ids(tx, "東") == [3, 4])
            #expect(try ids(tx, "東京タワー") == [4])
            #expect(try ids(tx, "ภาษาไทย") == [5])
            #expect(try ids(tx, "ภาษา") == [])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func stemmingAndStopWordsAreEnglishAndAStopWordKeepsItsPlace() throws {
        let (store, dir) = try Self.store([
            StemmedText(id: 1, text: "She runs to the Lord of the Rings"),
            StemmedText(id: 2, text: "Lord Rings, running"),
            StemmedText(id: 3, text: "die Häuser"),
        ])
        try store.read { tx throws in
            func ids(_ query: String) throws -> [Int64] { try tx.query(StemmedText.self).where(.matches(\.text, query)).ids() }
            #expect(try ids("running") == [1, 2])
            #expect(try ids(#""lord of the rings""#) == [1])
            #expect(try ids(#""lord rings""#) == [2])
            #expect(try ids("the of") == [])
            // No German stemmer: the plural is not found by its singular.
            #expect(try ids("haus") == [])
            #expect(try ids("hauser") == [3])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aTitleWordWeighsMoreThanABodyWordAndScoresComeBestFirst() throws {
        let (store, dir) = try Self.store([
            SearchedPage(id: 1, title: "plain words", body: "lmdb here too"),
            SearchedPage(id: 2, title: "lmdb words", body: "plain here too"),
            SearchedPage(id: 3, title: "other", body: "nothing"),
        ])
        try store.read { tx throws in
            let request = tx.query(SearchedPage.self).where(.matches(\.body, "lmdb OR title:lmdb")).sorted(by: .relevance).limit(10)
            let scored = try request.scored()
            #expect(scored.map(\.record.id) == [2, 1])
            #expect(scored[0].score > scored[1].score && scored[1].score > 0)
            // Neighbouring matched words are one span; a custom ellipsis.
            let both = tx.query(SearchedPage.self).where(.matches(\.body, "lmdb readers"))
            #expect(try both.highlight("LMDB readers never block", field: "body", open: "<b>", close: "</b>") == "<b>LMDB readers</b> never block")
            #expect(try both.snippet("one two three lmdb four five", field: "body", words: 2, open: "[", close: "]", ellipsis: "...")
                    == "...three [lmdb]...")
        }
        withExtendedLifetime(dir) {}
    }
}
