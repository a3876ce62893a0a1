import Foundation
import Testing
import TestSupport
@testable import Strata

/// One entity, "Member", as its declared indexes change between releases.
enum Members {
    struct Plain: Record {
        var id: Int64
        var name: String
        var score: Int
        static let primaryKey = \Plain.id
        static var entityName: String { "Member" }
    }
    struct ByName: Record {
        var id: Int64
        var name: String
        var score: Int
        static let primaryKey = \ByName.id
        static var entityName: String { "Member" }
        static let indexes: [IndexDefinition<ByName>] = [.index(\.name), .index(\.score)]
    }
    struct ByFoldedName: Record {
        var id: Int64
        var name: String
        var score: Int
        static let primaryKey = \ByFoldedName.id
        static var entityName: String { "Member" }
        static let indexes: [IndexDefinition<ByFoldedName>] = [.index(\.name, collation: .caseInsensitive, name: "name"), .index(\.score)]
    }
    struct UniqueScore: Record {
        var id: Int64
        var name: String
        var score: Int
        static let primaryKey = \UniqueScore.id
        static var entityName: String { "Member" }
        static let indexes: [IndexDefinition<UniqueScore>] = [.unique(\.score)]
    }
}

@Suite struct IndexMigrationTests {
    let dir: TemporaryDirectory
    let store: Store
    let reports = ProgressLog()

    final class ProgressLog: @unchecked Sendable {
        // @unchecked Sendable: `entries` is only touched with `lock` held.
        private let lock = NSLock()
        private var entries: [IndexBuildProgress] = []
        func append(_ progress: IndexBuildProgress) { lock.withLock { entries.append(progress) } }
        var all: [IndexBuildProgress] { lock.withLock { entries } }
    }

    init() throws {
        let reports = self.reports
        (store, dir) = try makeStore { $0.indexBuildProgress = { reports.append($0) } }
        try store.write { tx throws in
            try tx.insert((1...25_000).map { Members.Plain(id: $0, name: $0 % 2 == 0 ? "Ann" : "ann", score: Int($0 % 100)) })
        }
    }

    func schema() throws -> EntitySchema {
        try store.read { tx in try #require(try tx.context(for: Members.Plain.self)).schema }
    }

    @Test func aNewlyDeclaredIndexIsBuiltFromExistingRecordsWithProgress() throws {
        try store.prepare(Members.ByName.self)
        #expect(try schema().indexes.map(\.name) == ["name", "score"])
        #expect(try indexEntries(store, "Member", "name").count == 25_000)
        #expect(try indexEntries(store, "Member", "score").count == 25_000)
        let progress = reports.all
        #expect(progress.first?.completed == 0 && progress.first?.total == 25_000)
        #expect(progress.map(\.completed) == [0, 10_000, 20_000, 25_000])
        #expect(progress.last?.fractionCompleted == 1)
    }

    @Test func aChangedIndexIsRebuiltAndARemovedOneEmptied() throws {
        try store.prepare(Members.ByName.self)
        #expect(Set(try indexEntries(store, "Member", "name").map(\.0)).count == 2)   // "Ann", "ann"
        try store.prepare(Members.ByFoldedName.self)
        #expect(Set(try indexEntries(store, "Member", "name").map(\.0)).count == 1)   // folded: one key
        #expect(try schema().indexes.first?.fields.first?.collation == .caseInsensitive)
        try store.prepare(Members.Plain.self)
        #expect(try schema().indexes.isEmpty)
        #expect(try indexEntries(store, "Member", "name").isEmpty)
        #expect(try indexEntries(store, "Member", "score").isEmpty)
    }

    @Test func theFirstWriteOfATypeMigratesItsIndexes() throws {
        try store.write { tx in try tx.upsert(Members.ByName(id: 30_000, name: "Zed", score: 1)) }
        #expect(try indexEntries(store, "Member", "name").count == 25_001)
    }

    @Test func buildingAUniqueIndexOverDuplicatesFailsAndChangesNothing() throws {
        #expect {
            try store.prepare(Members.UniqueScore.self)
        } throws: { ($0 as? StrataError)?.code == .uniqueViolation }
        #expect(try schema().indexes.isEmpty)
    }
}

@Suite struct SavepointIndexTests {
    @Test func anIndexMigrationInsideAFailedSavepointIsRedoneByTheParent() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...50).map { Members.Plain(id: $0, name: "n\($0)", score: Int($0)) }) }
        struct Boom: Error {}
        try store.write { tx in
            _ = try tx.count(Members.ByName.self)          // the context exists in the parent
            _ = try? tx.savepoint { nested in
                try nested.upsert(Members.ByName(id: 1, name: "changed", score: 1))   // migrates inside the savepoint
                throw Boom()
            }
            try tx.upsert(Members.ByName(id: 2, name: "later", score: 2))            // must migrate again, here
        }
        let names = try indexEntries(store, "Member", "name").count
        #expect(names == 50)
        #expect(try store.read { tx in try tx.query(Members.ByName.self).where(\.name == "later").ids() } == [2])
        #expect(try store.read { tx in try tx.query(Members.ByName.self).where(\.name == "changed").ids() }.isEmpty)
        withExtendedLifetime(dir) {}
    }
}
