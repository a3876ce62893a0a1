import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat
import StrataText

/// A book and its chapters, deleted with it, whose text is indexed.
struct Book: Record {
    var id: Int64
    var title: String
    static let primaryKey = \Book.id
}

struct Chapter: Record {
    var id: Int64
    var bookID: Int64?
    var text: String
    static let primaryKey = \Chapter.id
    static let indexes: [IndexDefinition<Chapter>] = [.fullText(\.text)]
    static let book = ToOne<Chapter, Book>("book", \.bookID, inverse: "chapters", deleteRule: .cascade)
    static let relationships: [AnyRelationship<Chapter>] = [.init(book)]
}

/// Full-text indexes kept by the one index maintainer in the records' own write transactions:
/// typed writes, savepoints, imports and syncs, cascades and index builds all leave the postings
/// exactly what the records' texts give, which `verifyIndexes` checks and these tests read.
@Suite struct FullTextMaintenanceTests {
    static let words = ["lmdb", "Swift", "running", "runs", "Fünke", "funke", "the", "東京タワー", "store", "index", "v1.2.3", "ÉLAN"]

    static func text(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
    }

    static func article(_ id: Int64, _ random: inout SeededGenerator) -> Articles.Searchable {
        Articles.Searchable(id: id, title: text(&random), body: Bool.random(using: &random) ? text(&random) : nil, views: Int.random(in: 0...9, using: &random))
    }

    /// The stored primary keys whose documents hold `term` in the stored index `index` of
    /// `entity`: read from the postings of every segment, deleted documents left out.
    static func postedKeys(_ store: Store, _ entity: String, _ index: String, _ term: String) throws -> Set<[UInt8]> {
        try store.read { tx throws in
            let context = try #require(try tx.context(named: entity))
            let databases = try #require(context.textIndexes[index])
            var keys: [DocumentID: [UInt8]] = [:]
            try tx.forEachTextIndexEntry(in: databases.keys, entity: entity) { key, value in
                keys[try #require(TextIndexKeys.document(of: value))] = key
                return true
            }
            var found = Set<[UInt8]>()
            try tx.forEachTextIndexEntry(in: databases.postings, entity: entity) { key, value in
                let parts = try #require(TextIndexKeys.parts(of: key))
                guard parts.term == Array(term.utf8), parts.document != 0 else { return true }
                for id in try PostingBlock(bytes: value).documents().ids { if let key = keys[id] { found.insert(key) } }
                return true
            }
            return found
        }
    }

    /// The stored primary keys of the records whose `fields` texts tokenize to `term`.
    static func expectedKeys(_ store: Store, _ entity: String, fields: [String], tokenizer: TextTokenizer, _ term: String) throws -> Set<[UInt8]> {
        try store.read { tx throws in
            let context = try #require(try tx.context(named: entity))
            var found = Set<[UInt8]>()
            try tx.forEachStoredRecord(context) { key, bytes in
                let record = try StoredRecord(key: key, bytes: bytes, fields: context.schema.fields, entity: entity)
                for field in fields {
                    guard case .string(let text)? = record.fields.first(where: { $0.key == field })?.value else { continue }
                    if tokenizer.tokens(in: text).contains(where: { $0.term == term }) { found.insert(key) }
                }
                return true
            }
            return found
        }
    }

    /// Every word's postings are the records' and `verifyIndexes` finds nothing wrong.
    static func expectExact(_ store: Store, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tokenizer = TextTokenizer(stemming: .english, stopWords: .english)
        let terms = Set(words.flatMap { tokenizer.tokens(in: $0).map(\.term) })
        #expect(terms.contains("run") && terms.contains("funk") && !terms.contains("the"), sourceLocation: sourceLocation)
        for term in terms {
            let posted = try postedKeys(store, "Article", "title,body", term)
            let expected = try expectedKeys(store, "Article", fields: ["title", "body"], tokenizer: tokenizer, term)
            #expect(posted == expected, "\(step): '\(term)'", sourceLocation: sourceLocation)
        }
        let verification = try store.read { tx in try tx.verifyIndexes(entity: "Article") }
        #expect(verification.problems == [], "\(step)", sourceLocation: sourceLocation)
    }

    @Test func typedWritesUpdatesDeletesAndSavepointsKeepThePostingsExact() throws {
        let (store, dir) = try makeStore()
        var random = SeededGenerator(seed: 0xF7_5EA2C4)
        try store.write { tx in try tx.insert((1...60).map { Self.article($0, &random) }) }
        try Self.expectExact(store, "after the inserts")
        struct Boom: Error {}
        for round in 0..<6 {
            try store.write { tx in
                for _ in 0..<25 {
                    let id = Int64.random(in: 1...80, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: _ = try tx.delete(Articles.Searchable.self, key: id)
                    case 1:
                        // The text unchanged: nothing to do for the text index.
                        if var article = try tx.get(Articles.Searchable.self, key: id) { article.views += 1; try tx.upsert(article) }
                    default: try tx.upsert(Self.article(id, &random))
                    }
                }
                // A failed savepoint leaves nothing of its writes, in records or postings.
                _ = try? tx.savepoint { nested in
                    try nested.upsert(Self.article(1, &random))
                    _ = try nested.delete(Articles.Searchable.self, key: 2)
                    throw Boom()
                }
                try tx.savepoint { nested in try nested.upsert(Self.article(Int64(100 + round), &random)) }
            }
            try Self.expectExact(store, "after round \(round)")
        }
        // A reopened store goes on from the stored header: ids are not given twice.
        let reopened = try Store(path: dir.path("store"))
        try reopened.write { tx in try tx.upsert((1...10).map { Self.article($0, &random) }) }
        try Self.expectExact(reopened, "after the reopened store's write")
    }

    /// One record per transaction, as an app writes: each transaction adds a segment, the four
    /// newest are merged whenever they share a level, and a merge drops the postings of replaced
    /// and deleted documents and their `deleted` entries.
    @Test func manySmallWritesMergeSegmentsAndDropDeletedDocuments() throws {
        let (store, dir) = try makeStore()
        var random = SeededGenerator(seed: 0x5E6_3E47)
        for step in 0..<300 {
            try store.write { tx in
                let id = Int64.random(in: 1...40, using: &random)
                if step % 7 == 6 { _ = try tx.delete(Articles.Searchable.self, key: id) } else { try tx.upsert(Self.article(id, &random)) }
            }
        }
        try Self.expectExact(store, "after 300 one-record transactions")
        try store.read { tx throws in
            let context = try #require(try tx.context(named: "Article"))
            let databases = try #require(context.textIndexes["title,body"])
            let header = try TextIndexHeader(bytes: try #require(try tx.textIndexValue(forKey: TextIndexKeys.document(0), in: databases.documents, entity: "Article")))
            // A counter in base four: at most three segments of each of the five levels 300 documents reach.
            #expect(header.segments.count <= 15, "\(header.segments.count) segments")
            #expect(header.segments.contains { $0.level >= 2 }, "\(header.segments.map(\.level))")
            #expect(header.segments.map(\.number) == header.segments.map(\.number).sorted())
            // `deleted` lists exactly the documents some segment still posts that no record holds.
            var live = Set<DocumentID>(), posted = Set<DocumentID>(), deleted = Set<DocumentID>()
            try tx.forEachTextIndexEntry(in: databases.keys, entity: "Article") { _, value in
                live.insert(try #require(TextIndexKeys.document(of: value)))
                return true
            }
            try tx.forEachTextIndexEntry(in: databases.postings, entity: "Article") { key, value in
                guard try #require(TextIndexKeys.parts(of: key)).document != 0 else { return true }
                posted.formUnion(try PostingBlock(bytes: value).documents().ids)
                return true
            }
            try tx.forEachTextIndexEntry(in: databases.deleted, entity: "Article") { key, _ in
                deleted.insert(try #require(TextIndexKeys.document(of: key)))
                return true
            }
            // Every posted document no record holds is listed (else a query would find it); the
            // others listed are documents of stop words alone, which no segment posts.
            let gone = posted.subtracting(live)
            #expect(gone.isSubset(of: deleted), "\(gone.subtracting(deleted).count) posted documents of no record are not listed")
            #expect(deleted.subtracting(gone).count <= 10, "\(deleted.subtracting(gone).count) listed documents are posted nowhere")
            // About 250 documents were replaced or deleted: without merges all of them would be posted and listed.
            #expect(deleted.count < 150, "\(deleted.count) deleted documents still listed: merges dropped too few")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func deletingEveryRecordEmptiesTheIndexAndLaterWritesStartAnew() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 0xDE1E7E)
        try store.write { tx in try tx.insert((1...30).map { Self.article($0, &random) }) }
        try store.write { tx in
            try tx.upsert((20...40).map { Self.article($0, &random) })   // held changes, then every record gone
            #expect(try tx.deleteAll(Articles.Searchable.self) == 40)
            try tx.insert((50...55).map { Self.article($0, &random) })
        }
        try Self.expectExact(store, "after deleting every record")
    }

    @Test func importsAndSyncsGoThroughTheMaintainer() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        func payload(_ ids: ClosedRange<Int>, _ word: String) -> Data {
            Data(("[" + ids.map { #"{"id": \#($0), "title": "\#(word) \#($0 % 2 == 0 ? "lmdb" : "swift")", "views": 1}"# }
                .joined(separator: ",") + "]").utf8)
        }
        _ = try store.importJSON(payload(1...30, "running"), as: Articles.Searchable.self)
        try Self.expectExact(store, "after the import")
        #expect(try Self.postedKeys(store, "Article", "title,body", "run").count == 30)
        _ = try store.importJSON(payload(10...20, "store"), as: Articles.Searchable.self, options: ImportOptions(mode: .sync))
        try Self.expectExact(store, "after the sync")
        #expect(try Self.postedKeys(store, "Article", "title,body", "run").isEmpty)
        #expect(try Self.postedKeys(store, "Article", "title,body", "store").count == 11)
    }

    @Test func aCascadeDeletesTheDocumentsOfTheRecordsItDeletes() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx in
            try tx.insert([Book(id: 1, title: "A"), Book(id: 2, title: "B")])
            try tx.insert((1...9).map { Chapter(id: $0, bookID: $0 % 3 == 0 ? 2 : 1, text: "chapter lmdb \($0)") })
        }
        #expect(try Self.postedKeys(store, "Chapter", "text", "lmdb").count == 9)
        try store.write { tx throws in #expect(try tx.delete(Book.self, key: 1)) }
        #expect(try Self.postedKeys(store, "Chapter", "text", "lmdb").count == 3)
        #expect(try store.read { tx in try tx.verifyIndexes(entity: "Chapter") }.problems == [])
    }

    @Test func aNewlyDeclaredIndexIsBuiltFromTheStoredRecordsAndADroppedOneEmptied() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 0xB01D)
        try store.write { tx in
            try tx.insert((Int64(1)...300).map { id in
                let article = Self.article(id, &random)
                return Articles.Plain(id: id, title: article.title, body: article.body, views: article.views)
            })
        }
        try store.prepare(Articles.Searchable.self)
        try Self.expectExact(store, "after the build")
        try store.prepare(Articles.TitleOnly.self)
        let titles = try store.read { tx throws in try #require(try tx.context(named: "Article")).textIndexes }
        #expect(titles.keys.sorted() == ["titles"])
        #expect(try store.read { tx in try tx.verifyIndexes(entity: "Article") }.problems == [])
        #expect(try store.read { tx throws in
            try tx.existingTextIndexDatabases("title,body", of: #require(try tx.context(named: "Article")).schema)
                .map { try tx.entryCount(of: $0.postings, entity: "Article") }
        } == 0)
    }

    @Test func verifyNamesPostingsThatDifferFromTheRecords() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx in
            try tx.insert([Articles.Searchable(id: 1, title: "lmdb swift", body: nil, views: 0),
                           Articles.Searchable(id: 2, title: "lmdb", body: "store", views: 0)])
        }
        #expect(try store.read { tx in try tx.verifyIndexes(entity: "Article") }.problems == [])
        // Damage: the postings of "swift" go missing.
        try store.write { tx throws in
            let databases = try #require(try tx.context(named: "Article")?.textIndexes["title,body"])
            var doomed: [[UInt8]] = []
            try tx.forEachTextIndexEntry(in: databases.postings, entity: "Article") { key, _ in
                if TextIndexKeys.parts(of: key)?.term == Array("swift".utf8) { doomed.append(key) }
                return true
            }
            #expect(doomed.count == 2)   // the summary and one block
            for key in doomed { try tx.deleteTextIndexKey(key, in: databases.postings, entity: "Article") }
        }
        let problems = try store.read { tx in try tx.verifyIndexes(entity: "Article") }.problems
        #expect(problems.count == 1)
        #expect(problems.first?.contains("the postings of 'swift' differ") == true)
    }

    /// Ranking weighs a term by its summaries' counts, so a summary that miscounts its blocks is
    /// damage `verifyIndexes` names, as a missing one is; one written before counts per field were
    /// kept (version 1) is not.
    @Test func verifyNamesSummariesThatMiscountTheirBlocks() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx in
            try tx.insert([Articles.Searchable(id: 1, title: "lmdb swift", body: "lmdb", views: 0),
                           Articles.Searchable(id: 2, title: "lmdb", body: "store", views: 0)])
        }
        func rewrite(_ term: String, _ change: (inout TermSummary) -> Void) throws {
            try store.write { tx throws in
                let databases = try #require(try tx.context(named: "Article")?.textIndexes["title,body"])
                var found: ([UInt8], [UInt8])?
                try tx.forEachTextIndexEntry(in: databases.postings, entity: "Article") { key, value in
                    if let parts = TextIndexKeys.parts(of: key), parts.term == Array(term.utf8), parts.document == 0 { found = (key, value) }
                    return true
                }
                let (key, value) = try #require(found)
                var summary = try TermSummary(bytes: value)
                change(&summary)
                try tx.putTextIndexValue(summary.bytes, forKey: key, in: databases.postings, entity: "Article")
            }
        }
        func problems() throws -> [String] { try store.read { tx in try tx.verifyIndexes(entity: "Article") }.problems }
        #expect(try problems() == [])
        try rewrite("lmdb") { #expect($0.fieldDocumentCounts == [2, 1]); $0.fieldDocumentCounts = nil }
        #expect(try problems() == [])
        try rewrite("lmdb") { $0.fieldDocumentCounts = [2, 2] }
        #expect(try problems().count == 1)
        #expect(try problems().first?.contains("the summary of 'lmdb' in segment") == true)
        try rewrite("lmdb") { $0.fieldDocumentCounts = [2, 1]; $0.documentCount = 3 }
        #expect(try problems().count == 1)
        try rewrite("lmdb") { $0.documentCount = 2; $0.maximumFrequencies = [1, 2] }
        #expect(try problems().count == 1)
        try rewrite("lmdb") { $0.maximumFrequencies = [1, 1] }
        #expect(try problems() == [])
    }

    @Test func damagedHeaderBytesAreATypedErrorNamingTheIndex() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx in try tx.insert(Articles.Searchable(id: 1, title: "lmdb", body: nil, views: 0)) }
        try store.write { tx throws in
            let databases = try #require(try tx.context(named: "Article")?.textIndexes["title,body"])
            try tx.putTextIndexValue([1, 200], forKey: TextIndexKeys.document(0), in: databases.documents, entity: "Article")
        }
        #expect {
            try store.write { tx in try tx.upsert(Articles.Searchable(id: 2, title: "swift", body: nil, views: 0)) }
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .incompatibleStore && error.message.contains("title,body") && error.message.contains("header")
        }
    }
}

/// A replica adopts the primary's full-text indexes and keeps its own postings, through the same
/// maintainer, as it applies the change log.
@Suite struct FullTextReplicaTests {
    @Test func aReplicaBuildsAndKeepsThePrimarysFullTextIndexes() throws {
        let (primary, dir) = try makeStore()
        try primary.enableChangeLog()
        let replica = try Store(path: dir.path("replica"))
        try primary.write { tx in
            try tx.insert((1...20).map { Articles.Searchable(id: $0, title: $0 % 2 == 0 ? "lmdb" : "swift", body: "running", views: 0) })
        }
        try replica.replicate(from: primary)
        #expect(try FullTextMaintenanceTests.postedKeys(replica, "Article", "title,body", "lmdb").count == 10)
        try primary.write { tx in
            _ = try tx.delete(Articles.Searchable.self, key: 2)
            try tx.upsert(Articles.Searchable(id: 3, title: "lmdb", body: nil, views: 1))
        }
        try replica.replicate(from: primary)
        #expect(try FullTextMaintenanceTests.postedKeys(replica, "Article", "title,body", "lmdb").count == 10)
        #expect(try FullTextMaintenanceTests.postedKeys(replica, "Article", "title,body", "run").count == 18)
        #expect(try replica.read { tx in try tx.verifyIndexes(entity: "Article") }.problems == [])
    }
}
