import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Strata

/// Versions of "Pet" for the operations: version 1, then after each operation.
enum PetV1 {
    struct Pet: Record, Equatable {
        var id: Int64
        var fullName: String
        var age: String
        var nickname: String
        static let primaryKey = \Pet.id
        static var entityName: String { "Pet" }
        static let indexes: [IndexDefinition<Pet>] = [.index(\.fullName), .index(\.age)]
    }
}

enum PetV2 {
    /// `fullName` renamed to `name`, `nickname` removed, `age` an integer.
    struct Pet: Record, Equatable {
        var id: Int64
        var name: String
        var age: Int
        static let primaryKey = \Pet.id
        static var entityName: String { "Pet" }
        static let indexes: [IndexDefinition<Pet>] = [.index(\.name), .index(\.age)]
    }
    /// The entity renamed to "Animal".
    struct Animal: Record, Equatable {
        var id: Int64
        var fullName: String
        var age: String
        var nickname: String
        static let primaryKey = \Animal.id
        static let indexes: [IndexDefinition<Animal>] = [.index(\.fullName), .index(\.age)]
    }
}

@Suite struct MigrationOperationTests {
    let dir: TemporaryDirectory
    let store: Store
    let pets = (1...8).map { PetV1.Pet(id: $0, fullName: "pet \($0)", age: "\($0 * 3)", nickname: "n\($0)") }

    init() throws {
        (store, dir) = try makeStore()
        try store.write { [pets] tx in try tx.insert(pets) }
    }

    /// Every record's stored bytes, by key.
    func storedBytes(_ entity: String) throws -> [[UInt8]: [UInt8]] {
        try store.read { tx throws in
            var result: [[UInt8]: [UInt8]] = [:]
            try tx.forEachStoredRecord(try #require(try tx.context(named: entity))) { key, bytes in result[key] = bytes; return true }
            return result
        }
    }

    func indexScan(_ plan: QueryPlan) -> String? {
        if case .indexScan(let index, _, _) = plan.access { return index }
        return nil
    }

    // MARK: Renames

    @Test func aFieldRenameRewritesNoRecordAndKeepsItsIndexWhileTheOldNameIsAnErrorWithAHint() throws {
        let before = try storedBytes("Pet")
        let built = Mutex(0)
        try store.write { tx in try tx.renameField("fullName", to: "name", in: "Pet") }
        #expect(try storedBytes("Pet") == before)
        try store.read { tx throws in
            #expect(try tx.query(entity: "Pet").where("name == 'pet 3'").count() == 1)
            #expect(indexScan(try tx.query(entity: "Pet").where("name == 'pet 3'").explain()) == "name")
            #expect(try tx.verifyIndexes(entity: "Pet").isConsistent)
            #expect {
                try tx.query(entity: "Pet").where("fullName == 'pet 3'").count()
            } throws: { error in
                (error as? StrataError)?.code == .unknownField && (error as? StrataError)?.message.contains("renamed to 'name'") == true
            }
        }
        // A type declaring the index under its new name finds it built: nothing is rebuilt.
        let reopened = try Store(path: store.path, configuration: { var c = Store.Configuration(); c.indexBuildProgress = { _ in built.withLock { $0 += 1 } }; return c }())
        try reopened.write { tx in try tx.upsert(PetV2.Animal(id: 100, fullName: "x", age: "1", nickname: "y")) }   // another entity
        struct Renamed: Record {
            var id: Int64
            var name: String
            var age: String
            static let primaryKey = \Renamed.id
            static var entityName: String { "Pet" }
            static let indexes: [IndexDefinition<Renamed>] = [.index(\.name), .index(\.age)]
        }
        built.withLock { $0 = 0 }
        try reopened.prepare(Renamed.self)
        #expect(built.withLock { $0 } == 0)
        #expect(try reopened.read { tx in try tx.query(Renamed.self).where(\.name == "pet 5").first()?.id } == 5)
    }

    @Test func anEntityRenameMovesRecordsIndexesAndRelationshipsWithoutCopying() throws {
        let before = try storedBytes("Pet")
        let owner = EntityDescription(name: "Owner", primaryKey: "id",
                                      fields: [FieldDescription("id", .integer), FieldDescription("petID", .integer, optional: true)],
                                      relationships: [RelationshipDescription("pet", .toOne, target: "Pet", keyField: "petID")])
        try store.importJSON(Data(#"[{"id": 1, "petID": 2}]"#.utf8), entity: owner)
        try store.write { tx in try tx.renameEntity("Pet", to: "Animal") }
        #expect(try storedBytes("Animal") == before)
        try store.read { tx throws in
            #expect(try tx.entityNames() == ["Animal", "Owner"])
            #expect(try tx.get(PetV2.Animal.self, key: 4)?.nickname == "n4")
            #expect(indexScan(try tx.query(PetV2.Animal.self).where("fullName == 'pet 4'").explain()) == "fullName")
            #expect(try tx.verifyIndexes(entity: "Animal").isConsistent)
            #expect(try tx.query(entity: "Owner").where("pet.fullName == 'pet 2'").count() == 1)
        }
        // Writes through the new name keep the moved indexes in step.
        try store.write { tx in try tx.upsert(PetV2.Animal(id: 3, fullName: "renamed", age: "9", nickname: "r")) }
        try store.read { tx throws in
            #expect(try tx.query(PetV2.Animal.self).where("fullName == 'renamed'").count() == 1)
            #expect(try tx.verifyIndexes(entity: "Animal").isConsistent)
        }
        #expect { try store.write { tx in try tx.renameEntity("Pet", to: "Other") } } throws: { ($0 as? StrataError)?.code == .notFound }

        // A new entity of the old name gets databases of its own: the renamed one's stay whole.
        try store.write { tx in try tx.insert(PetV1.Pet(id: 1, fullName: "new pet", age: "1", nickname: "p")) }
        #expect(try storedBytes("Pet").count == 1)
        try store.read { tx throws in
            #expect(try tx.count(entity: "Animal") == 8)
            #expect(try tx.query(PetV2.Animal.self).where("fullName == 'pet 4'").count() == 1)
            #expect(try tx.query(PetV1.Pet.self).where("fullName == 'new pet'").count() == 1)
            #expect(try tx.verifyIndexes(entity: "Animal").isConsistent && tx.verifyIndexes(entity: "Pet").isConsistent)
        }
    }

    @Test func aReplicaFollowsAnEntityRename() throws {
        try store.enableChangeLog()
        try store.backup(to: dir.path("replica"))   // a replica starts as a backup
        let replica = try Store(path: dir.path("replica"))
        try store.write { tx in try tx.renameEntity("Pet", to: "Animal") }
        try store.write { tx in try tx.upsert(PetV2.Animal(id: 2, fullName: "after", age: "5", nickname: "a")) }
        try replica.replicate(from: store)
        try replica.read { tx throws in
            #expect(try tx.entityNames() == ["Animal"])
            #expect(try tx.get(PetV2.Animal.self, key: 2)?.fullName == "after")
            #expect(try tx.query(PetV2.Animal.self).where("fullName == 'pet 5'").count() == 1)
            #expect(try tx.verifyIndexes(entity: "Animal").isConsistent)
        }
    }

    @Test func observersOfARenamedEntitySeeItsChanges() async throws {
        try await store.write { tx in try tx.renameEntity("Pet", to: "Animal") }
        var counts = store.observeCount(PetV2.Animal.self).makeAsyncIterator()
        #expect(try await counts.next() == 8)
        try await store.write { tx in try tx.insert(PetV2.Animal(id: 100, fullName: "observed", age: "5", nickname: "o")) }
        #expect(try await counts.next() == 9)
    }

    // MARK: Removal

    @Test func aRemovedFieldIsSkippedDroppedByCompactionAndItsNameIsFreeForANewField() throws {
        try store.write { tx in try tx.removeField("nickname", from: "Pet") }
        try store.read { tx throws in
            #expect(try tx.record(entity: "Pet", key: .int(1))?["nickname"] == nil)
            #expect { try tx.query(entity: "Pet").where("nickname == 'n1'").count() } throws: { ($0 as? StrataError)?.code == .unknownField }
        }
        // The old name comes back as a new field: old values do not come back with it.
        try store.write { tx in try tx.addField("nickname", to: "Pet", default: "none") }
        #expect(try store.read { tx in try tx.get(PetV1.Pet.self, key: 2)?.nickname } == "none")
        let before = try storedBytes("Pet")
        let compacted = try store.write { tx in try tx.compactRecords(of: "Pet") }
        #expect(compacted == 8)
        let after = try storedBytes("Pet")
        #expect(after.keys.allSatisfy { after[$0]!.count < before[$0]!.count })
        #expect(try store.write { tx in try tx.compactRecords(of: "Pet") } == 0)
        #expect(try store.read { tx in try tx.get(PetV1.Pet.self, key: 2)?.fullName } == "pet 2")
    }

    // MARK: Added fields

    @Test func anAddedFieldIsBackfilledFromEachStoredRecord() throws {
        try store.write { tx in
            try tx.addField("label", to: "Pet") { record -> String in
                guard case .string(let name)? = record["fullName"], case .string(let nick)? = record["nickname"] else { return "" }
                return "\(name) (\(nick))"
            }
            try tx.addIndex(IndexDescription(fields: ["label"]), toEntity: "Pet")
        }
        try store.read { tx throws in
            #expect(try tx.record(entity: "Pet", key: .int(5))?["label"] == .string("pet 5 (n5)"))
            #expect(indexScan(try tx.query(entity: "Pet").where("label == 'pet 5 (n5)'").explain()) == "label")
            #expect(try tx.verifyIndexes(entity: "Pet").isConsistent)
        }
        try store.write { tx in try tx.dropIndex(named: "label", fromEntity: "Pet") }
        #expect(try store.read { tx in try tx.query(entity: "Pet").where("label == 'pet 5 (n5)'").explain() }.access == .fullScan)
    }

    // MARK: Type changes

    @Test func aTypeChangeByTheImportersCoercionsRebuildsTheIndexOnTheField() throws {
        try store.write { tx in try tx.changeFieldType("age", in: "Pet", to: .integer) }
        try store.read { tx throws in
            #expect(try tx.record(entity: "Pet", key: .int(2))?["age"] == .int(6))
            #expect(try tx.query(entity: "Pet").where("age > 20").count() == 2)
            #expect(indexScan(try tx.query(entity: "Pet").where("age > 20").explain()) == "age")
            #expect(try tx.verifyIndexes(entity: "Pet").isConsistent)
        }
    }

    @Test func aTypeChangeByAClosureNamesTheRecordWhoseValueDoesNotConvert() throws {
        try store.write { tx in try tx.upsert(PetV1.Pet(id: 9, fullName: "odd", age: "old", nickname: "o")) }
        #expect {
            try store.write { tx in
                try tx.convertField("age", in: "Pet", from: String.self) { text -> Int in
                    guard let number = Int(text) else { throw StrataError(.invalidValue, "'\(text)' is not a number") }
                    return number
                }
            }
        } throws: { error in (error as? StrataError)?.key == "9" && (error as? StrataError)?.entity == "Pet" }
        try store.write { tx in
            try tx.convertField("age", in: "Pet", from: String.self) { Int($0) ?? -1 }
        }
        try store.read { tx throws in
            #expect(try tx.query(entity: "Pet").where("age < 0").count() == 1)
            #expect(try tx.verifyIndexes(entity: "Pet").isConsistent)
        }
    }

    // MARK: Transforms

    @Test func anUntypedTransformChangesAddsAndRemovesFieldsAndKeepsTheRestByteForByte() throws {
        try store.write { tx in
            try tx.transformRecords(of: "Pet") { record in
                record.fields.removeAll { $0.key == "nickname" }
                record.fields = record.fields.map { $0.key == "fullName" ? JSONMember(key: "fullName", value: .string("Pet")) : $0 }
                record.fields.append(JSONMember(key: "legs", value: .int(4)))
            }
        }
        try store.read { tx throws in
            let record = try #require(try tx.record(entity: "Pet", key: .int(7)))
            #expect(record.fields.map(\.key).sorted() == ["age", "fullName", "id", "legs"])
            #expect(record["fullName"] == .string("Pet") && record["legs"] == .int(4) && record["age"] == .string("21"))
            #expect(try tx.query(entity: "Pet").where("fullName == 'Pet'").count() == 8)
            #expect(try tx.verifyIndexes(entity: "Pet").isConsistent)
        }
        #expect {
            try store.write { tx in try tx.transformRecords(of: "Pet") { $0.key = .int(1_000) } }
        } throws: { ($0 as? StrataError)?.code == .invalidValue }
    }

    @Test func aTypedTransformGoesFromTheOldCodableTypeToTheNewRecordType() throws {
        try store.write { tx in
            try tx.renameField("fullName", to: "name", in: "Pet")
            try tx.transformRecords(from: PetV1OldShape.self, to: PetV2.Pet.self) { old in
                PetV2.Pet(id: old.id, name: old.name.uppercased(), age: Int(old.age) ?? 0)
            }
        }
        try store.read { tx throws in
            #expect(try tx.get(PetV2.Pet.self, key: 3) == PetV2.Pet(id: 3, name: "PET 3", age: 9))
            #expect(try tx.query(PetV2.Pet.self).where(\.age > 20).count() == 2)
            #expect(try tx.verifyIndexes(entity: "Pet").isConsistent)
        }
    }
}

/// The stored shape of a pet after the rename, for reading in a typed transform.
struct PetV1OldShape: Decodable {
    var id: Int64
    var name: String
    var age: String
}
