import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A user with every kind of index of the issue's example.
struct IndexedUser: Record, Equatable {
    var id: Int64
    var lastName: String
    var luckyNumber: Int?
    var email: String
    var tags: [String]
    static let primaryKey = \IndexedUser.id
    static let indexes: [IndexDefinition<IndexedUser>] = [
        .index(\.lastName, collation: .caseAndDiacriticInsensitive),
        .index(\.luckyNumber),
        .index(\.lastName, \.luckyNumber),
        .unique(\.email),
        .index(\.tags, multiValue: true),
    ]

    static func make(_ id: Int64, _ last: String, _ lucky: Int?, tags: [String] = []) -> IndexedUser {
        IndexedUser(id: id, lastName: last, luckyNumber: lucky, email: "user\(id)@example.com", tags: tags)
    }
}

/// Reads an index's raw entries (key, primary key) in LMDB order.
func indexEntries(_ store: Store, _ entity: String, _ index: String) throws -> [([UInt8], [UInt8])] {
    try store.environment.read { txn in
        guard let db = try txn.openDatabase("index/\(entity)/\(index)") else { return [] }
        return try txn.withCursor(db) { cursor in
            var entries: [([UInt8], [UInt8])] = []
            var more = try cursor.first()
            while more { entries.append((cursor.key, cursor.value)); more = try cursor.next() }
            return entries
        }
    }
}

/// The entries an index must hold for `records`, computed from scratch.
func expectedEntries<T: Record>(_ records: [T], _ definition: IndexDefinition<T>) -> [([UInt8], [UInt8])] {
    var entries: [([UInt8], [UInt8])] = []
    for record in records {
        for key in Set(definition.keys(record).map(IndexKey.stored)) { entries.append((key, record.primaryKeyValue.orderedKey)) }
    }
    return entries.sorted { $0.0 == $1.0 ? $0.1.lexicographicallyPrecedes($1.1) : $0.0.lexicographicallyPrecedes($1.0) }
}

func sameEntries(_ a: [([UInt8], [UInt8])], _ b: [([UInt8], [UInt8])]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
}

@Suite struct IndexMaintenanceTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    func checkAllIndexes(_ file: SourceLocation = #_sourceLocation) throws {
        let records = try store.read { tx in try tx.all(IndexedUser.self) }
        for definition in IndexedUser.indexes {
            let stored = try indexEntries(store, "IndexedUser", definition.name)
            #expect(sameEntries(stored, expectedEntries(records, definition)), "index \(definition.name)", sourceLocation: file)
        }
    }

    @Test func indexNamesDescribeFieldsAndCollations() {
        #expect(IndexedUser.indexes.map(\.name) == ["lastName[cd]", "luckyNumber", "lastName,luckyNumber", "email", "tags"])
    }

    @Test func insertingAddsOneEntryPerIndexAndElement() throws {
        try store.write { tx in try tx.insert(IndexedUser.make(1, "Bluth", 13, tags: ["vip", "beta", "vip"])) }
        #expect(try indexEntries(store, "IndexedUser", "tags").count == 2)
        #expect(try indexEntries(store, "IndexedUser", "email").count == 1)
        try checkAllIndexes()
    }

    @Test func updatingAnIndexedFieldMovesIndexEntry() throws {
        try store.write { tx in try tx.insert(IndexedUser.make(1, "Bluth", 13)) }
        let before = try indexEntries(store, "IndexedUser", "luckyNumber")
        try store.write { tx in try tx.upsert(IndexedUser.make(1, "Bluth", 7)) }
        let after = try indexEntries(store, "IndexedUser", "luckyNumber")
        #expect(before.count == 1 && after.count == 1)
        #expect(before[0].0 != after[0].0)
        #expect(after[0].0 == Optional(7).orderedKey)
        try checkAllIndexes()
    }

    @Test func deletingRemovesEveryEntryOfTheRecord() throws {
        try store.write { tx in try tx.insert([IndexedUser.make(1, "Bluth", 13, tags: ["a"]), IndexedUser.make(2, "Fünke", nil, tags: ["a", "b"])]) }
        try store.write { tx throws in #expect(try tx.delete(IndexedUser.self, key: 1)) }
        try checkAllIndexes()
        try store.write { tx throws in #expect(try tx.deleteAll(IndexedUser.self) == 1) }
        for definition in IndexedUser.indexes { #expect(try indexEntries(store, "IndexedUser", definition.name).isEmpty) }
    }

    @Test func nilValuesAreIndexedAndSortFirst() throws {
        try store.write { tx in try tx.insert([IndexedUser.make(1, "A", 5), IndexedUser.make(2, "B", nil), IndexedUser.make(3, "C", -1)]) }
        let keys = try indexEntries(store, "IndexedUser", "luckyNumber").map(\.1)
        #expect(keys == [Int64(2), 3, 1].map(\.orderedKey))
    }

    @Test func foldedCollationsGiveOneKeyBeyondASCII() throws {
        try store.write { tx throws in
            try tx.insert([IndexedUser.make(1, "Fünke", 1), IndexedUser.make(2, "FUNKE", 2), IndexedUser.make(3, "funke", 3),
                           IndexedUser.make(4, "ÉLAN", 4), IndexedUser.make(5, "elan", 5)])
        }
        let entries = try indexEntries(store, "IndexedUser", "lastName[cd]")
        #expect(Set(entries.map(\.0)).count == 2)
        try checkAllIndexes()
    }

    @Test func aUniqueViolationNamesTheIndexAndLeavesNoTrace() throws {
        try store.write { tx in try tx.insert(IndexedUser.make(1, "Bluth", 13)) }
        var clash = IndexedUser.make(2, "Other", 1)
        clash.email = "user1@example.com"
        try store.write { tx throws in
            do {
                try tx.insert(clash)
                Issue.record("expected uniqueViolation")
            } catch let error as StrataError {
                #expect(error.code == .uniqueViolation)
                #expect(error.field == "email")
                #expect(error.message.contains("email") && error.message.contains("key 1"))
                // The clashing value itself is named.
                #expect(error.message.contains("the value 'user1@example.com'"), "\(error.message)")
            }
            #expect(try tx.exists(IndexedUser.self, key: 2) == false)
            // The same record may change its own unique value, and keep it.
            var renamed = IndexedUser.make(1, "Bluth", 13)
            renamed.email = "new@example.com"
            try tx.upsert(renamed)
            try tx.upsert(renamed)
        }
        try checkAllIndexes()
    }

    @Test func indexKeysLongerThanLMDBsLimitWork() throws {
        let prefix = String(repeating: "x", count: 600)
        var a = IndexedUser.make(1, prefix + "a", 1), b = IndexedUser.make(2, prefix + "b", 2)
        a.email = prefix + "@a"
        b.email = prefix + "@b"
        try store.write { tx in try tx.insert([a, b]) }   // same 480-byte prefix, different values: not a violation
        var c = IndexedUser.make(3, "c", 3)
        c.email = a.email
        #expect { try store.write { tx in try tx.insert(c) } } throws: { ($0 as? StrataError)?.code == .uniqueViolation }
        try checkAllIndexes()
        #expect(try indexEntries(store, "IndexedUser", "lastName[cd]").allSatisfy { $0.0.count <= IndexKey.maxLength })
    }

    @Test func aRolledBackWriteLeavesIndexesAsTheyWere() throws {
        try store.write { tx in try tx.insert(IndexedUser.make(1, "Bluth", 13)) }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.write { tx throws in
                try tx.upsert(IndexedUser.make(1, "Changed", 2))
                try tx.insert(IndexedUser.make(2, "New", 3))
                throw Boom()
            }
        }
        try checkAllIndexes()
    }

    @Test(arguments: [1, 2, 3])
    func randomWritesKeepEveryIndexExact(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let names = ["Bluth", "bluth", "Fünke", "Funke", "Howser", "Swanson", "ÉLAN", "elan"]
        let tags = ["vip", "beta", "new", "old"]
        for _ in 0..<20 {
            try store.write { tx throws in
                for _ in 0..<25 {
                    let id = Int64.random(in: 1...60, using: &random)
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<2: try tx.delete(IndexedUser.self, key: id)
                    default:
                        let user = IndexedUser(
                            id: id, lastName: names.randomElement(using: &random)!,
                            luckyNumber: Bool.random(using: &random) ? nil : Int.random(in: -3...3, using: &random),
                            email: "u\(id)-\(Int.random(in: 0..<2, using: &random))@x",
                            tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in tags.randomElement(using: &random)! })
                        try tx.upsert(user)
                    }
                }
            }
        }
        try checkAllIndexes()
    }
}
