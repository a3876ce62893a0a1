import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

@Suite struct BulkWriteTests {
    /// Checks that every index of `T` holds exactly one entry per record (per distinct element for
    /// multi-value ones) pointing at it: a stale or missing entry shows.
    static func checkIndexes<T: Record>(_ tx: ReadTransaction, _ records: [T]) throws {
        let context = try #require(try tx.context(for: T.self))
        let byKey = Dictionary(uniqueKeysWithValues: records.map { ($0.primaryKeyValue.orderedKey, $0) })
        for definition in T.indexes {
            let database = try #require(context.indexes[definition.name])
            var entries = Set<[[UInt8]]>()
            try tx.raw.withCursor(database) { cursor in
                var more = try cursor.first()
                while more {
                    let (key, primaryKey) = (cursor.key, cursor.value)
                    let record = try #require(byKey[primaryKey], "\(definition.name): an entry for a deleted record")
                    #expect(definition.keys(record).map(IndexKey.stored).contains(key), "\(definition.name): a stale entry")
                    entries.insert([key, primaryKey])
                    more = try cursor.next()
                }
            }
            let expected = records.reduce(0) { $0 + Set(definition.keys($1).map(IndexKey.stored)).count }
            #expect(entries.count == expected, "\(definition.name)")
        }
    }

    @Test func deleteAllWhereOnKernUsers() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(kernUsers) }
        let deleted = try store.write { tx in try tx.deleteAll(KernUser.self, where: \.luckyNumber == nil) }
        #expect(deleted == 2)
        let rest = kernUsers.filter { $0.luckyNumber != nil }
        try store.read { tx throws in
            #expect(try tx.query(KernUser.self).all() == rest)
            #expect(try tx.query(KernUser.self).where("lastName ==[cd] 'bluth'").count() == 3)
            try Self.checkIndexes(tx, rest)
        }
        #expect(try store.write { tx in try tx.deleteAll(KernUser.self, where: "lastName ==[cd] %@", "BLUTH") } == 3)
        #expect(try store.write { tx in try tx.deleteAll(KernUser.self, where: \.lastName == "Nobody") } == 0)
        try store.read { tx throws in
            #expect(try tx.query(KernUser.self).all().map(\.firstName) == ["Jimmy", "Doogie", "Ron"])
            try Self.checkIndexes(tx, kernUsers.filter { [1, 2, 8].contains($0.id) })
        }
        withExtendedLifetime(dir) {}
    }

    @Test func deleteAllOfAQueryHonoursItsOrderAndLimit() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(kernUsers) }
        let deleted = try store.write { tx in
            try tx.deleteAll(tx.query(KernUser.self).where(\.luckyNumber != nil).sorted(by: \.luckyNumber, .descending).limit(3))
        }
        #expect(deleted == 3)
        try store.read { tx throws in
            #expect(try tx.query(KernUser.self).ids() == [1, 2, 5, 6, 7])   // George, Michael (13) and Ron (11) gone
            try Self.checkIndexes(tx, kernUsers.filter { [1, 2, 5, 6, 7].contains($0.id) })
        }
        withExtendedLifetime(dir) {}
    }

    @Test func updateAllKeepsIndexesInStep() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(kernUsers) }
        let updated = try store.write { tx in
            try tx.updateAll(KernUser.self, where: \.lastName == "Bluth") { $0.luckyNumber = ($0.luckyNumber ?? 0) + 100 }
        }
        #expect(updated == 5)
        var expected = kernUsers
        for index in expected.indices where expected[index].lastName == "Bluth" {
            expected[index].luckyNumber = (expected[index].luckyNumber ?? 0) + 100
        }
        try store.read { tx throws in
            #expect(try tx.query(KernUser.self).all() == expected)
            #expect(try tx.query(KernUser.self).where(\.luckyNumber >= 100).count() == 5)   // index entries
            #expect(try tx.query(KernUser.self).where(\.luckyNumber == 13).count() == 0)
            #expect(try tx.query(KernUser.self).max(\.luckyNumber) == 113)
            try Self.checkIndexes(tx, expected)
        }
        let zeroed = try store.write { tx in
            try tx.updateAll(KernUser.self, where: "luckyNumber == %@", 7, change: { $0.luckyNumber = nil })
        }
        #expect(zeroed == 1)
        try store.read { tx throws in
            #expect(try tx.query(KernUser.self).where(\.luckyNumber == nil).ids() == [2])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func updateAllThatChangesAKeyOrThrowsRollsEverythingBack() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(kernUsers) }
        let error = #expect(throws: StrataError.self) {
            try store.write { tx in try tx.updateAll(KernUser.self, where: \.lastName == "Bluth") { $0.id += 100 } }
        }
        #expect(error?.code == .invalidValue)
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) {
            try store.write { tx in
                try tx.updateAll(KernUser.self, where: .all) { user in
                    seen += 1
                    if seen == 3 { throw Stop() }
                    user.lastName = "Changed"
                }
            }
        }
        try store.read { tx throws in
            #expect(try tx.query(KernUser.self).all() == kernUsers)
            try Self.checkIndexes(tx, kernUsers)
        }
        withExtendedLifetime(dir) {}
    }

    @Test(arguments: [UInt64(31), 32, 33])
    func randomBulkWritesMatchBruteForce(seed: UInt64) throws {
        let (store, dir) = try makeStore()
        var generator = QueryCaseGenerator(random: SeededGenerator(seed: seed))
        var records = (1...150).map { generator.record(Int64($0)) }
        try store.write { tx in try tx.insert(records) }
        for round in 0..<12 {
            let predicate = generator.predicate()
            let matching = Set(records.filter { predicate.evaluate(on: $0.fields) }.map(\.id))
            if round % 2 == 0 {
                let deleted = try store.write { tx in try tx.deleteAll(Sample.self, where: TypedPredicate(predicate)) }
                #expect(deleted == matching.count, "\(predicate.explained)")
                records.removeAll { matching.contains($0.id) }
            } else {
                let name = QueryCaseGenerator.names.randomElement(using: &generator.random)!
                let change: (inout Sample) -> Void = { sample in
                    sample.lucky = sample.lucky.map { $0 + 1 }
                    sample.name = name
                    sample.tags.append("new")
                }
                let updated = try store.write { tx in try tx.updateAll(Sample.self, where: TypedPredicate(predicate), change) }
                #expect(updated == matching.count, "\(predicate.explained)")
                for index in records.indices where matching.contains(records[index].id) { change(&records[index]) }
            }
            try store.read { tx throws in
                #expect(try tx.query(Sample.self).all() == records)
                try Self.checkIndexes(tx, records)
                for _ in 0..<20 {   // queries through the updated indexes
                    var query = Query<Sample>()
                    query.predicate = generator.comparison()
                    let request = QueryRequest<Sample>(transaction: tx, query: query)
                    let expected = DifferentialQueryTests.reference(records, query)
                    #expect(try request.ids() == expected, "\(query.predicate.explained)")
                    #expect(try request.count() == expected.count, "\(query.predicate.explained)")
                }
            }
        }
        withExtendedLifetime(dir) {}
    }
}
