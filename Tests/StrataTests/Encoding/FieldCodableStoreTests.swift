import Foundation
import Testing
import TestSupport
@testable import Strata

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
}
