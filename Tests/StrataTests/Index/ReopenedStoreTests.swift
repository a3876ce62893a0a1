import Foundation
import Testing
import TestSupport
@testable import Strata

/// A store opened afresh (a new process, or the last `Store` of a path released) knows its
/// databases only from the catalog and LMDB. Index counts, estimates and merges there must be the
/// same as in the process that wrote the store.
@Suite struct ReopenedStoreTests {
    /// 300 users: luckyNumber cycles through 0..<10, so each value has 30 records.
    private func writeStore(at path: String) throws {
        let store = try Store(path: path)
        try store.write { tx in
            try tx.upsert((1...300).map { IndexedUser.make(Int64($0), $0 % 2 == 0 ? "Bluth" : "Fünke", $0 % 10) })
        }
    }

    @Test func indexCountsEstimatesAndMergesMatchAfterReopening() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("store")
        try writeStore(at: path)   // the Store is released here, and with it the environment
        let store = try Store(path: path)
        try store.read { tx in
            #expect(try tx.query(IndexedUser.self).where(\.luckyNumber == 3).count() == 30)
            #expect(try tx.query(IndexedUser.self).where(\.luckyNumber == 3).explain().estimatedRows == 30)
            #expect(try tx.query(IndexedUser.self, "lastName ==[cd] 'bluth'").count() == 150)
            let merged = try tx.query(IndexedUser.self, "luckyNumber IN {1, 2}").all().map(\.id)
            #expect(merged == (1...300).filter { $0 % 10 == 1 || $0 % 10 == 2 }.map(Int64.init))
            // Untyped queries (the command-line tool's) see the same.
            #expect(try tx.query(entity: "IndexedUser").where("luckyNumber == 3", arguments: []).count() == 30)
        }
    }
}
