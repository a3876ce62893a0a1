import Foundation
import LMDB
import Synchronization
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// Folded indexes record the folding rules their keys were made with; one made with other rules
/// is not used by queries and is rebuilt at the first write that touches its entity.
@Suite struct FoldingVersionTests {
    /// Makes the catalog entry of `entity` say that its folded indexes were built with `version`
    /// (nil: no version, as catalogs written before versions were recorded), and gives the
    /// Ørsted record (id 1) the key the old rules folded it to ("orsted"), as an old store has.
    static func ageFoldedIndex(_ store: Store, entity: String, index: String, version: Int?) throws {
        try store.environment.write { txn in
            let catalog = try #require(try txn.openDatabase("catalog"))
            let key = Array("entity/\(entity)".utf8)
            let bytes = try #require(try txn.value(forKey: key, in: catalog))
            var schema = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            var indexes = try #require(schema["indexes"] as? [[String: Any]])
            for position in indexes.indices where indexes[position]["name"] as? String == index {
                indexes[position]["foldingVersion"] = version
            }
            schema["indexes"] = indexes
            try txn.put(Array(try JSONSerialization.data(withJSONObject: schema, options: [.sortedKeys])), forKey: key, in: catalog)

            let database = try #require(try txn.openDatabase("index/\(entity)/\(index)"))
            let primaryKey = Int64(1).orderedKey
            let current = try #require(IndexKey.encode(.string("Ørsted"), kind: .string, collation: .caseAndDiacriticInsensitive))
            let old = try #require(IndexKey.encode(.string("orsted"), kind: .string, collation: .binary))
            _ = try txn.delete(current, value: primaryKey, in: database)
            try txn.put(primaryKey, forKey: old, in: database)
        }
    }

    static func recordedVersions(_ store: Store, entity: String) throws -> [Int?] {
        try store.read { tx in try #require(try tx.context(named: entity)).schema.indexes.map(\.foldingVersion) }
    }

    @Test func aFoldedIndexRecordsTheCurrentFoldingRulesVersionAndABinaryOneNone() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(IndexedUser.make(1, "Ørsted", 3)) }
        let indexes = try store.read { tx in try #require(try tx.context(named: "IndexedUser")).schema.indexes }
        #expect(indexes.first { $0.name == "lastName[cd]" }?.foldingVersion == Collation.rulesVersion)
        #expect(indexes.filter { $0.name != "lastName[cd]" }.allSatisfy { $0.foldingVersion == nil })
        // A binary index's catalog entry has no version key at all.
        let entry = try store.environment.read { txn in
            try txn.value(forKey: Array("entity/IndexedUser".utf8), in: try #require(try txn.openDatabase("catalog")))
        }
        #expect(String(decoding: try #require(entry), as: UTF8.self).components(separatedBy: "foldingVersion").count == 2)
        withExtendedLifetime(dir) {}
    }

    @Test(arguments: [nil, 1] as [Int?])
    func anIndexFoldedByOlderRulesIsNotUsedAndIsRebuiltAtTheFirstWrite(olderVersion: Int?) throws {
        let progress = Mutex<[IndexBuildProgress]>([])
        let (store, dir) = try makeStore { $0.indexBuildProgress = { report in progress.withLock { $0.append(report) } } }
        try store.write { tx in
            try tx.insert([FoldedName(id: 1, name: "Ørsted"), FoldedName(id: 2, name: "Orsted"), FoldedName(id: 3, name: "Łódź")])
        }
        try Self.ageFoldedIndex(store, entity: "FoldedName", index: "name[cd]", version: olderVersion)
        progress.withLock { $0.removeAll() }

        // Another Store value on the path reads the aged catalog entry.
        let reopened = try Store(path: store.path, configuration: store.configuration)
        try reopened.read { tx in
            let request = try tx.query(FoldedName.self).where("name ==[cd] 'orsted'").using(index: "name[cd]")
            #expect(!(try request.explain().description.contains("name[cd]")))
            #expect(try request.ids() == [2])
            let verification = try tx.verifyIndexes(entity: "FoldedName")
            #expect(!verification.isConsistent)
            #expect(verification.problems.contains { $0.contains("name[cd]") && $0.contains("folding rules") }, "\(verification.problems)")
        }
        #expect(progress.withLock { $0.isEmpty })

        try reopened.write { tx in try tx.upsert(FoldedName(id: 4, name: "Ørsted")) }
        #expect(try Self.recordedVersions(reopened, entity: "FoldedName") == [Collation.rulesVersion])
        #expect(progress.withLock { $0.last?.indexes } == ["name[cd]"])
        #expect(progress.withLock { $0.last?.completed } == 3)
        try reopened.read { tx in
            #expect(try tx.verifyIndexes(entity: "FoldedName").isConsistent)
            let request = try tx.query(FoldedName.self).where("name ==[cd] 'orsted'").using(index: "name[cd]")
            #expect(try request.explain().description.contains("name[cd]"))
            #expect(try request.ids() == [2])
            #expect(try tx.query(FoldedName.self).where("name ==[cd] 'ØRSTED'").ids() == [1, 4])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aDescribedEntitysOldFoldedIndexIsRebuiltByAnUntypedWrite() throws {
        let (store, dir) = try makeStore()
        let description = EntityDescription(name: "Scientist", primaryKey: "id",
                                            fields: [FieldDescription("id", .integer), FieldDescription("name", .string)],
                                            indexes: [IndexDescription(fields: ["name"], collation: .caseAndDiacriticInsensitive)])
        _ = try store.importJSON(Data(#"[{"id": 1, "name": "Ørsted"}, {"id": 2, "name": "Orsted"}]"#.utf8), entity: description)
        try Self.ageFoldedIndex(store, entity: "Scientist", index: "name[cd]", version: nil)
        let reopened = try Store(path: store.path, configuration: store.configuration)
        #expect(try reopened.read { tx in try tx.query(entity: "Scientist").where("name ==[cd] 'orsted'").storedKeys().count } == 1)
        // Deleting a record that is not there is a write to the entity all the same.
        try reopened.write { tx in _ = try tx.delete(entity: "Scientist", key: .int(99)) }
        #expect(try Self.recordedVersions(reopened, entity: "Scientist") == [Collation.rulesVersion])
        try reopened.read { tx in
            #expect(try tx.verifyIndexes(entity: "Scientist").isConsistent)
            let request = try tx.query(entity: "Scientist").where("name ==[cd] 'orsted'").using(index: "name[cd]")
            #expect(try request.explain().description.contains("name[cd]"))
            #expect(try request.storedKeys().count == 1)
        }
        withExtendedLifetime(dir) {}
    }
}
