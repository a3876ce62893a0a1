import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// Scans longer than a batch overlap gathering with decoding on another thread: order, early
/// stops and errors must be those of a plain scan.
@Suite struct LargeScanTests {
    @Test func scansOfManyBatchesKeepKeyOrderAndStopEarly() throws {
        let (store, dir) = try makeStore()
        _ = dir
        let count = BatchDecoder<User>.batchSize * 3 + 17
        try store.write { tx in try tx.upsert((1...count).map { User.sample(Int64($0)) }) }
        var seen: [Int64] = []
        try store.read { tx in try tx.forEach(User.self) { seen.append($0.id) } }
        #expect(seen == (1...count).map(Int64.init))
        #expect(try store.read { tx in try tx.all(User.self).map(\.id) } == seen)
        struct Stop: Error {}
        var visited = 0
        #expect(throws: Stop.self) {
            try store.read { tx in
                try tx.forEach(User.self) { _ in
                    visited += 1
                    if visited == BatchDecoder<User>.batchSize + 5 { throw Stop() }
                }
            }
        }
        #expect(visited == BatchDecoder<User>.batchSize + 5)
    }

    @Test func aCorruptRecordInALargeScanIsNamed() throws {
        let (store, dir) = try makeStore()
        _ = dir
        let count = BatchDecoder<User>.batchSize * 2 + 3
        try store.write { tx in try tx.upsert((1...count).map { User.sample(Int64($0)) }) }
        // Overwrite one record in the middle of the first batch with bytes that are not a record.
        try store.write { tx in
            let context = try #require(try tx.context(for: User.self))
            try tx.raw.put([0xFF, 0x00], forKey: Int64(100).orderedKey, in: context.records)
        }
        let error = try #require(throws: StrataError.self) { try store.read { tx in try tx.all(User.self) } }
        #expect(error.code == .corruptRecord)
        #expect(error.message.contains("100"), "\(error.message)")
    }
}
