import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

extension FieldUser: Record {
    static let primaryKey = \FieldUser.id
}

/// `FieldCodable` records through a store: point reads reuse their transaction's buffers and scans
/// pack a batch's values into one buffer, so records of different sizes must never bleed into each other.
@Suite struct FieldCodableStoreTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// Users whose sizes alternate between small and large.
    func users(_ count: Int) -> [FieldUser] {
        (1...count).map { i in
            var user = FieldUser.sample(i)
            user.id = Int64(i)
            if i.isMultiple(of: 2) { user.email = String(repeating: "long-", count: 40) + "\(i)@example.com" }
            if i.isMultiple(of: 3) { user.tags = [] }
            return user
        }
    }

    @Test func pointReadsOfMixedSizesInOneTransactionReadBackEqual() throws {
        let users = users(40)
        try store.write { tx in try tx.upsert(users) }
        let read = try store.read { tx in
            try users.reversed().map { try tx.get(FieldUser.self, key: $0.id) } + [try tx.get(FieldUser.self, key: 999)]
        }
        #expect(read == users.reversed() + [nil])
    }

    @Test(arguments: [10, 700, 5000])
    func scansAndBatchedReadsOfMixedSizesReadBackEqual(_ count: Int) throws {
        let users = users(count)
        try store.write { tx in try tx.upsert(users) }
        #expect(try store.read { tx in try tx.all(FieldUser.self) } == users)
        let keys = users.map(\.id).shuffled()
        #expect(try store.read { tx in try tx.get(FieldUser.self, keys: keys) } == keys.map { users[Int($0) - 1] })
    }

    /// Batches are decoded last record first and handed out in order: the error must still be the
    /// one of the first bad record in key order, wherever the bad records fall in a batch.
    @Test(arguments: [(30, [7, 20]), (5000, [100, 900]), (5000, [1500, 1900]), (5000, [2100, 3900]), (5000, [300, 4000])])
    func theFirstOfSeveralCorruptRecordsIsTheOneReported(_ count: Int, _ bad: [Int64]) throws {
        try store.write { tx in try tx.upsert(users(count)) }
        try store.environment.write { txn in
            let db = try #require(try txn.openDatabase("records/FieldUser"))
            try txn.put([0xA1, 0x01, 0x01], forKey: bad[0].orderedKey, in: db)   // {id: 1}: fields missing
            try txn.put([0x1F], forKey: bad[1].orderedKey, in: db)               // not CBOR
        }
        for read in [{ (tx: ReadTransaction) in _ = try tx.all(FieldUser.self) },
                     { (tx: ReadTransaction) in _ = try tx.get(FieldUser.self, keys: (1...Int64(count)).reversed().reversed()) }] {
            let error = try #require(throws: StrataError.self) { try store.read(read) }
            #expect(error.key == "\(bad[0])", "\(error)")
            #expect(error.code == .missingField)
        }
        var seen = 0
        #expect(throws: StrataError.self) { try store.read { tx in try tx.forEach(FieldUser.self) { _ in seen += 1 } } }
        #expect(seen < bad[0])
    }
}
