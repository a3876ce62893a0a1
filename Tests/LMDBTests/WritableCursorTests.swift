import Foundation
import Testing
import TestSupport
@testable import LMDB

/// `WritableCursor`: the only cursor that writes, lent by `Transaction.withWritableCursor` in a write
/// transaction; its puts and deletes leave the database as the transaction's own puts and deletes would.
@Suite struct WritableCursorTests {
    let dir: TemporaryDirectory
    let env: Environment

    init() throws { (env, dir) = try makeEnvironment("lmdb-writable-cursor", mapSize: 8 << 20) }

    func contents(_ db: Database) throws -> [[UInt8]: [UInt8]] {
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                var entries: [[UInt8]: [UInt8]] = [:]
                var more = try cursor.first()
                while more { entries[cursor.key] = cursor.value; more = try cursor.next() }
                return entries
            }
        }
    }

    @Test func putsAndDeletesMatchTheTransactionsOwn() throws {
        var random = SeededGenerator(seed: 7)
        let (viaCursor, viaTransaction) = try env.write { txn in
            (try #require(try txn.openDatabase("cursor", options: [.create])), try #require(try txn.openDatabase("txn", options: [.create])))
        }
        let keys = (0..<500).map { index in [UInt8(index >> 8), UInt8(index & 0xFF)] }    // ascending
        let deleted = Set(keys.filter { _ in Bool.random(using: &random) })
        try env.write { txn in
            try txn.withWritableCursor(viaCursor) { cursor in
                for key in keys { try cursor.put(key + [1], forKey: key, options: .append) }
                // Each delete leaves the cursor where `next()` reaches the entry after the deleted one.
                var more = try cursor.first()
                while more {
                    if deleted.contains(cursor.key) { try cursor.deleteCurrent() }
                    more = try cursor.next()
                }
            }
            for key in keys where !deleted.contains(key) { try txn.put(key + [1], forKey: key, in: viaTransaction) }
        }
        let stored = try contents(viaCursor)
        #expect(stored.count == keys.count - deleted.count)
        #expect(stored == (try contents(viaTransaction)))
    }

    @Test func anAppendOutOfOrderIsRefusedAndLeavesTheTransactionUsable() throws {
        let db = try env.write { txn in try #require(try txn.openDatabase("append", options: [.create])) }
        try env.write { txn in
            try txn.withWritableCursor(db) { cursor in
                try cursor.put([1], forKey: [5], options: .append)
                #expect(throws: LMDBError.self) { try cursor.put([1], forKey: [3], options: .append) }
                do { try cursor.put([1], forKey: [3], options: .append) } catch let error as LMDBError { #expect(error.isKeyExists) }
                try cursor.put([2], forKey: [3])
            }
        }
        #expect(try contents(db) == [[3]: [2], [5]: [1]])
    }
}
