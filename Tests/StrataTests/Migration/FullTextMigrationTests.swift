import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage
@testable import StrataFormat

/// Migration operations that add and drop a full-text index (``WriteTransaction/addFullTextIndex(_:toEntity:)``,
/// ``WriteTransaction/dropFullTextIndex(named:fromEntity:)``, and the `addFullTextIndex` and
/// `dropFullTextIndex` steps of a plan): an added index answers `SEARCH` as one the store was
/// created with, a dropped one leaves its databases empty and `SEARCH` refused with
/// `.invalidQuery`, each is in the migration history, and a failed migration leaves no index.
@Suite struct FullTextMigrationTests {
    static let posts = #"""
        [{"id": 1, "title": "LMDB", "body": "LMDB keeps pages in a B-tree; LMDB maps them", "views": 3},
         {"id": 2, "title": "Swift", "body": "Swift code reads an LMDB store", "views": 4},
         {"id": 3, "title": "Trees", "body": "nothing about stores, running", "views": 5},
         {"id": 4, "title": "Fünke", "body": "other words: funke runs", "views": 6}]
        """#
    static let index = FullTextIndexDescription(fields: ["title", "body"], weights: [2, 1], stemming: .english)
    static let queries = ["lmdb", "run", "lmdb OR trees", "\"reads an lmdb\"", "title:funke", "stor*", "NEAR(lmdb pages, 3)"]

    static func description(fullText: [FullTextIndexDescription]) -> EntityDescription {
        var description = EntityDescription(name: "Post", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("title", .string), FieldDescription("body", .string), FieldDescription("views", .integer),
        ])
        description.fullTextIndexes = fullText
        return description
    }

    static func store(fullText: [FullTextIndexDescription]) throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.importJSON(Data(posts.utf8), entity: description(fullText: fullText))
        return (store, dir)
    }

    /// The ids and scores `query` finds by relevance.
    static func search(_ store: Store, _ query: String) throws -> [String] {
        try store.read { tx in
            try tx.query(entity: "Post").where("body SEARCH %@", arguments: [query]).sorted(by: .relevance).all()
                .map { "\($0.key)" }
        }
    }

    static func entries(_ store: Store, _ index: String) throws -> Int? {
        try store.read { tx throws -> Int? in
            let context = try #require(try tx.context(named: "Post"))
            guard let databases = try tx.existingTextIndexDatabases(index, of: context.schema) else { return nil }
            var count = 0
            for database in databases.all {
                try tx.forEachTextIndexEntry(in: database, entity: "Post") { _, _ in count += 1; return true }
            }
            return count
        }
    }

    @Test func anAddedIndexSearchesAsOneTheStoreWasCreatedWith() throws {
        let (created, createdDir) = try Self.store(fullText: [Self.index])
        let (migrated, migratedDir) = try Self.store(fullText: [])
        _ = (createdDir, migratedDir)
        let plan = try MigrationPlan(json: Data(#"""
            {"migrations": [{"name": "search", "steps": [
                {"op": "addFullTextIndex", "entity": "Post", "fields": ["title", "body"], "weights": [2, 1], "stemming": "english"}]}]}
            """#.utf8))
        #expect(plan.migrations.first?.steps == [.addFullTextIndex(entity: "Post", index: Self.index)])
        #expect(plan.migrations.first?.steps.first?.description == "add full-text index Post(title,body)")
        #expect(try migrated.migrate(with: plan.migrator) == ["search"])
        #expect(try migrated.migrationHistory().map(\.name) == ["search"])
        for query in Self.queries {
            let found = try Self.search(migrated, query)
            #expect(found == (try Self.search(created, query)), "\(query)")
        }
        #expect(!(try Self.search(migrated, "lmdb")).isEmpty)
        #expect(try migrated.read { tx in try tx.entityDescription(named: "Post").fullTextIndexes } == [Self.index])
        #expect(try migrated.read { tx in try tx.verifyIndexes(entity: "Post").problems }.isEmpty)
    }

    @Test func anAddedIndexReportsItsBuild() throws {
        let reports = Mutex<[IndexBuildProgress]>([])
        let (store, dir) = try makeStore { $0.indexBuildProgress = { report in reports.withLock { $0.append(report) } } }
        _ = dir
        try store.importJSON(Data(Self.posts.utf8), entity: Self.description(fullText: []))
        reports.withLock { $0 = [] }
        try store.write { tx in try tx.addFullTextIndex(Self.index, toEntity: "Post") }
        let seen = reports.withLock { $0 }
        #expect(seen.first == IndexBuildProgress(entity: "Post", indexes: ["title,body"], completed: 0, total: 4))
        #expect(seen.last == IndexBuildProgress(entity: "Post", indexes: ["title,body"], completed: 4, total: 4))
    }

    @Test func aDroppedIndexFreesItsDatabasesAndSearchIsRefused() throws {
        let (store, dir) = try Self.store(fullText: [Self.index])
        _ = dir
        #expect(try Self.entries(store, "title,body") ?? 0 > 0)
        var migrator = Migrator()
        migrator.registerMigration("drop search") { tx in try tx.dropFullTextIndex(named: "title,body", fromEntity: "Post") }
        #expect(try store.migrate(with: migrator) == ["drop search"])
        #expect(try store.migrationHistory().map(\.name) == ["drop search"])
        // Emptied in place (handles of this process may still be open), none left behind.
        #expect(try Self.entries(store, "title,body") ?? 0 == 0)
        #expect {
            _ = try Self.search(store, "lmdb")
        } throws: { error in
            (error as? StrataError)?.code == .invalidQuery && (error as? StrataError)?.message.contains("Post.body is in no full-text index") == true
        }
        #expect(try store.read { tx in try tx.entityDescription(named: "Post").fullTextIndexes }.isEmpty)
        // Dropping it again is refused, naming the entity's full-text indexes.
        #expect {
            try store.write { tx in try tx.dropFullTextIndex(named: "title,body", fromEntity: "Post") }
        } throws: { error in
            (error as? StrataError)?.code == .notFound && (error as? StrataError)?.message == "Post has no full-text index 'title,body'; it has none"
        }
    }

    @Test func aFailedMigrationLeavesNoIndex() throws {
        let (store, dir) = try Self.store(fullText: [])
        _ = dir
        let plan = try MigrationPlan(json: Data(#"""
            {"migrations": [{"name": "search", "steps": [
                {"op": "addFullTextIndex", "entity": "Post", "fields": ["title", "body"]},
                {"op": "dropIndex", "entity": "Post", "index": "nothing"}]}]}
            """#.utf8))
        #expect(throws: StrataError.self) { try store.migrate(with: plan.migrator) }
        #expect(try store.migrationHistory().isEmpty)
        #expect(try Self.entries(store, "title,body") == nil)
        #expect(try store.read { tx in try tx.entityDescription(named: "Post").fullTextIndexes }.isEmpty)
        #expect(throws: StrataError.self) { try Self.search(store, "lmdb") }
    }

    @Test func badDeclarationsAreTypedErrors() throws {
        let (store, dir) = try Self.store(fullText: [Self.index])
        _ = dir
        func refused(_ index: FullTextIndexDescription, _ code: StrataError.Code, _ message: String) {
            #expect {
                try store.write { tx in try tx.addFullTextIndex(index, toEntity: "Post") }
            } throws: { error in
                guard let error = error as? StrataError else { return false }
                return error.code == code && error.message.contains(message)
            }
        }
        refused(FullTextIndexDescription(fields: ["title", "bdoy"]), .unknownField, "names the unknown field 'bdoy'")
        refused(FullTextIndexDescription(fields: ["views"]), .invalidValue, "needs a text field, not the")
        refused(FullTextIndexDescription(fields: ["title"], weights: [0]), .invalidValue, "has the weight 0.0")
        refused(Self.index, .invalidValue, "Post already has the full-text index 'title,body'")
        #expect {
            try store.write { tx in try tx.addFullTextIndex(Self.index, toEntity: "Nope") }
        } throws: { error in (error as? StrataError)?.code == .notFound }
        #expect {
            _ = try MigrationPlan(json: Data(#"{"migrations": [{"name": "v2", "steps": [{"op": "addFullTextIndex", "entity": "Post", "fields": ["a"], "stemming": "klingon"}]}]}"#.utf8))
        } throws: { error in
            (error as? StrataError)?.code == .invalidValue && (error as? StrataError)?.message.contains("full-text \"stemming\" is none or english") == true
        }
    }
}
