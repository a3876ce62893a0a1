import Foundation
import Testing
import TestSupport
@testable import Strata

/// A `SEARCH` in a condition checked on stored records outside a query's plan: an import's sync
/// scope searches each record's own texts with the entity's full-text index, and an observed
/// query holding one is read again at every commit of its entity's records.
@Suite struct FullTextConditionTests {
    static let posts = [
        Post(id: 1, body: "lmdb store", city: "Berlin", score: 1),
        Post(id: 2, body: "swift index", city: "Berlin", score: 2),
        Post(id: 3, body: "lmdb tree", city: "Paris", score: 3),
        Post(id: 4, body: "page query", city: "Rome", score: 4),
    ]

    func ids(_ store: Store) throws -> [Int64] {
        try store.read { tx in try tx.query(Post.self).all().map(\.id) }
    }

    @Test(arguments: [(#"body SEARCH "lmdb""#, [Int64(1), 2, 4]), (#"NOT body SEARCH "lmdb""#, [Int64(1), 3])])
    func aSyncScopeSearchesEachRecordsTexts(scope: String, kept: [Int64]) throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.upsert(Self.posts) }
        let page = Data(#"[{"id": 1, "body": "lmdb store", "city": "Berlin", "score": 1}]"#.utf8)
        let report = try store.importJSON(page, as: Post.self, options: ImportOptions(mode: .sync(scope: scope)))
        #expect(report.deleted == 4 - kept.count, "\(scope)")
        #expect(try ids(store) == kept, "\(scope)")
        withExtendedLifetime(dir) {}
    }

    @Test func aSyncScopeSearchingAFieldWithoutATextIndexIsRefused() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.upsert(Self.posts) }
        let page = Data(#"[{"id": 1, "body": "lmdb store", "city": "Berlin", "score": 1}]"#.utf8)
        #expect(throws: StrataError.self) {
            try store.importJSON(page, as: Post.self, options: ImportOptions(mode: .sync(scope: #"city SEARCH "berlin""#)))
        }
        #expect(try ids(store) == [1, 2, 3, 4], "nothing deleted")
        withExtendedLifetime(dir) {}
    }

    @Test func anObservedSearchSeesARecordThatComesToMatch() async throws {
        let (store, dir) = try makeStore()
        try await store.write { tx in try tx.upsert(Self.posts) }
        let observation = store.observe(Post.self) { try $0.where(#"body SEARCH "lmdb""#) }
        var values = observation.makeAsyncIterator()
        #expect(try await values.next()?.map(\.id) == [1, 3])
        try await store.write { tx in try tx.upsert(Post(id: 4, body: "page query lmdb", city: "Rome", score: 4)) }
        #expect(try await values.next()?.map(\.id) == [1, 3, 4])
        try await store.write { tx in try tx.upsert(Post(id: 3, body: "tree", city: "Paris", score: 3)) }
        #expect(try await values.next()?.map(\.id) == [1, 4])
        withExtendedLifetime(dir) {}
    }
}
