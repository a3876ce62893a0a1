import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// The untyped view of a store that the command-line tool uses: entity-named queries, records as
/// JSON values, schema descriptions, index administration, statistics and backups.
@Suite struct InspectionTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx throws in
            try tx.upsert((1...200).map { IndexedUser.make(Int64($0), ["Bluth", "Fünke", "Funke"][$0 % 3], $0 % 5 == 0 ? nil : $0 % 10,
                                                          tags: $0 % 4 == 0 ? ["vip"] : []) })
            try tx.upsert([User.sample(1), User.sample(2, "Doogie", "Howser", lucky: nil)])
        }
    }

    @Test func entityQueriesReturnWhatTypedQueriesReturn() throws {
        try store.read { tx throws in
            #expect(try tx.entityNames() == ["IndexedUser", "User"])
            let format = "lastName ==[cd] 'funke' AND luckyNumber > 3 ORDER BY luckyNumber DESC, id LIMIT 7 OFFSET 2"
            let typed = try tx.query(IndexedUser.self, format).all()
            let untyped = try tx.query(entity: "IndexedUser").where(format, arguments: []).all()
            #expect(untyped.map(\.key) == typed.map { .int($0.id) })
            #expect(untyped.map { $0["lastName"] } == typed.map { .string($0.lastName) })
            #expect(untyped.map { $0["luckyNumber"] } == typed.map { $0.luckyNumber.map { .int(Int64($0)) } ?? .null })
            #expect(try tx.query(entity: "IndexedUser").where(format, arguments: []).explain()
                    == tx.query(IndexedUser.self, format).explain())
            #expect(try tx.query(entity: "IndexedUser").where("luckyNumber == nil", arguments: []).count() == 40)
            // "Fünke" sorts after "Funke" by code point (ü is U+00FC).
            #expect(try tx.query(entity: "IndexedUser").sorted(by: "lastName desc,id").limit(2).all().map(\.key) == [.int(1), .int(4)])
        }
    }

    @Test func storedRecordsRenderAsImportableJSON() throws {
        let user = try #require(try store.read { tx in try tx.record(entity: "User", key: .string("2")) })
        #expect(user.key == .int(2))
        // The record codec leaves nil optionals out; a described import writes them as null.
        #expect(user.fields.map(\.key) == ["id", "firstName", "lastName", "createdDate"])
        #expect(user["luckyNumber"] == nil)
        #expect(user["createdDate"] == .string("2023-11-14T22:13:22Z"))
        #expect(user.jsonObject(renaming: ["createdDate": "created_at"])["created_at"] == .string("2023-11-14T22:13:22Z"))
        // The rendering imports back into an equal record.
        let json = Data(JSONValue.array([user.jsonObject()]).jsonText.utf8)
        let (other, otherDir) = try makeStore()
        _ = otherDir
        try other.importJSON(json, as: User.self)
        #expect(try other.read { tx in try tx.get(User.self, key: 2) } == User.sample(2, "Doogie", "Howser", lucky: nil))
    }

    @Test func missingEntitiesAndBadKeysAreTypedErrors() throws {
        try store.read { tx throws in
            #expect(try tx.record(entity: "User", key: .string("99")) == nil)
            let missing = #expect(throws: StrataError.self) { try tx.query(entity: "Users") }
            #expect(missing?.code == .notFound)
            #expect(missing?.message.contains("IndexedUser, User") == true)
            let badKey = #expect(throws: StrataError.self) { try tx.record(entity: "User", key: .string("seven")) }
            #expect(badKey?.code == .invalidValue)
            let badQuery = #expect(throws: StrataError.self) { try tx.query(entity: "User").where("lastNme == 'x'", arguments: []) }
            #expect(badQuery?.code == .unknownField)
        }
    }

    @Test func descriptionsAreReadFromStoredRecords() throws {
        let description = try store.read { tx in try tx.entityDescription(named: "IndexedUser") }
        #expect(description.primaryKey == "id")
        #expect(description.fields.map(\.name) == ["id", "lastName", "luckyNumber", "email", "tags"])
        #expect(description.field("luckyNumber") == FieldDescription("luckyNumber", .integer, optional: true))
        #expect(description.field("tags")?.type == .array(.string))
        #expect(description.indexes.count == IndexedUser.indexes.count)
        #expect(description.indexes.contains(IndexDescription(fields: ["lastName"], collation: .caseAndDiacriticInsensitive)))
        #expect(description.indexes.contains(IndexDescription(fields: ["email"], unique: true)))
        let user = try store.read { tx in try tx.entityDescription(named: "User") }
        #expect(user.field("createdDate")?.type == .date)
        #expect(user.field("luckyNumber")?.isOptional == true)
        #expect(user.field("firstName")?.isOptional == false)
    }

    /// The ids of the Bluths (every third) with a lucky number (not every fifth) below 4, but 3.
    static let bluthsBelow4 = (1...200).filter { $0 != 3 && $0 % 3 == 0 && $0 % 5 != 0 && $0 % 10 < 4 }

    @Test func deletesByKeyAndPredicateKeepIndexesInStep() throws {
        try store.write { tx throws in
            #expect(try tx.delete(entity: "IndexedUser", key: .int(3)))
            #expect(try !tx.delete(entity: "IndexedUser", key: .int(3)))
            #expect(try tx.delete(entity: "IndexedUser", where: "lastName == 'Bluth' AND luckyNumber < 4") == Self.bluthsBelow4.count)
        }
        try store.read { tx throws in
            #expect(try tx.count(IndexedUser.self) == 199 - Self.bluthsBelow4.count)
            #expect(try tx.query(IndexedUser.self, "lastName == 'Bluth' AND luckyNumber < 4").count() == 0)
        }
        #expect(try store.indexesConsistent("IndexedUser"))
    }

    @Test func indexesAreAddedAndDroppedByName() throws {
        try store.write { tx in try tx.addIndex(IndexDescription(fields: ["firstName"]), toEntity: "User") }
        try store.read { tx throws in
            // Two records: the planner rightly prefers a scan, so the hint shows the index is there.
            #expect(try tx.query(User.self, "firstName == 'Doogie'").using(index: "firstName").explain().description
                    == "IndexScan(User.firstName = \"Doogie\")")
            #expect(try tx.query(User.self, "firstName == 'Doogie'").using(index: "firstName").all().map(\.id) == [2])
        }
        #expect(try store.indexesConsistent("User"))
        let twice = #expect(throws: StrataError.self) {
            try store.write { tx in try tx.addIndex(IndexDescription(fields: ["firstName"]), toEntity: "User") }
        }
        #expect(twice?.code == .invalidValue)
        let unique = #expect(throws: StrataError.self) {
            try store.write { tx in try tx.addIndex(IndexDescription(fields: ["lastName"], unique: true), toEntity: "IndexedUser") }
        }
        #expect(unique?.code == .uniqueViolation)
        #expect(try store.statistics().entities.first { $0.name == "IndexedUser" }?.indexes.count == IndexedUser.indexes.count)
        try store.write { tx in try tx.dropIndex(named: "firstName", fromEntity: "User") }
        try store.read { tx throws in #expect(try tx.query(User.self, "firstName == 'Doogie'").explain().description.hasPrefix("FullScan")) }
        let unknown = #expect(throws: StrataError.self) { try store.write { tx in try tx.dropIndex(named: "nope", fromEntity: "User") } }
        #expect(unknown?.code == .notFound)
    }

    @Test func statisticsCountRecordsAndIndexEntries() throws {
        let statistics = try store.statistics()
        let indexed = try #require(statistics.entities.first { $0.name == "IndexedUser" })
        #expect(indexed.records == 200 && indexed.bytes > 0)
        #expect(indexed.indexes.first { $0.name == "tags" }?.entries == 50)
        #expect(indexed.indexes.first { $0.name == "email" }?.unique == true)
        #expect(statistics.usedBytes > 0 && statistics.usedBytes <= statistics.mapSize)
        #expect(statistics.readers <= statistics.maxReaders)
    }

    @Test func backupsAreCompleteStores() throws {
        try store.backup(to: dir.path("copy"), compact: true)
        let copy = try Store(path: dir.path("copy"))
        #expect(try copy.read { tx in try tx.all(IndexedUser.self) } == store.read { tx in try tx.all(IndexedUser.self) })
        #expect(try copy.indexesConsistent("IndexedUser"))
        let notEmpty = #expect(throws: StrataError.self) { try store.backup(to: dir.path("copy")) }
        #expect(notEmpty?.code == .invalidPath)
    }

    @Test func verificationFindsRecordsThatDoNotDecode() throws {
        let key = Int64(7).orderedKey
        try store.environment.write { txn in
            let records = try #require(try txn.openDatabase("records/IndexedUser"))
            var bytes = try #require(try txn.value(forKey: key, in: records))
            bytes[bytes.count - 1] = 0xFF   // the last value's last byte becomes a break code
            try txn.put(bytes, forKey: key, in: records)
        }
        let result = try store.read { tx in try tx.verifyIndexes(entity: "IndexedUser") }
        #expect(result.problems.contains { $0.contains("does not decode") })
    }
}
