import Testing
import TestSupport
@testable import LMDB

/// `Transaction.prefetchLeaf(for:in:)`: the walk from the root finds the leaf page LMDB's own
/// look-up reads, for every key of a three-level tree, and nothing is prefetched where the walk
/// would not match LMDB's (sorted duplicates, a write transaction), in an empty database, or below
/// the threshold.
@Suite struct LeafPrefetchTests {
    /// Nine-byte keys (a tag and a big-endian number, as Strata's integer keys) and values of 100 bytes.
    static func key(_ number: Int) -> [UInt8] {
        [0x20] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(number) >> (56 - 8 * $0)) }
    }

    @Test func theWalkFindsTheLeafPageLMDBReadsForEveryKey() throws {
        let (env, dir) = try makeEnvironment("lmdb-prefetch", mapSize: 64 << 20)
        defer { withExtendedLifetime(dir) {} }
        env.prefetchThreshold.store(0, ordering: .relaxed)
        let numbers = (0..<20_000).map { $0 * 3 }
        let db = try env.write { txn in
            let db = try #require(try txn.openDatabase("records", options: [.create]))
            // Out of order, so that pages split at many places.
            for number in numbers.shuffled() {
                try txn.put(Array(repeating: UInt8(number % 251), count: 100), forKey: Self.key(number), in: db)
            }
            return db
        }
        try env.read { txn in
            let statistics = try txn.statistics(of: db)
            #expect(statistics.depth >= 3, "two branch levels to walk")
            #expect(txn.prefetches(db))
            let pageSize = UInt(statistics.pageSize)
            for number in numbers {
                let key = Self.key(number)
                // Where LMDB's own look-up found the value: inside its leaf page.
                let address = try #require(try txn.withValue(forKey: key, in: db) { value in
                    value.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
                })
                let lmdbPage = address & ~(pageSize - 1)
                let walked = key.withUnsafeBytes { txn.leafPage(for: $0, in: db) }
                #expect(walked.map { UInt(bitPattern: $0) } == lmdbPage, "key \(number)")
                key.withUnsafeBytes { txn.prefetchLeaf(for: $0, in: db) }
            }
            // Before the first key and after the last: the first and the last leaf.
            let first = Self.key(0).withUnsafeBytes { txn.leafPage(for: $0, in: db) }
            let below = [UInt8(0x10)].withUnsafeBytes { txn.leafPage(for: $0, in: db) }
            let last = Self.key(numbers.last!).withUnsafeBytes { txn.leafPage(for: $0, in: db) }
            let above = [UInt8](repeating: 0xFF, count: 12).withUnsafeBytes { txn.leafPage(for: $0, in: db) }
            #expect(first != nil && below == first)
            #expect(last != nil && above == last)
        }
    }

    @Test func nothingIsPrefetchedBelowTheThresholdForSortedDuplicatesAnEmptyDatabaseOrInAWrite() throws {
        let (env, dir) = try makeEnvironment("lmdb-prefetch-not", mapSize: 16 << 20)
        defer { withExtendedLifetime(dir) {} }
        let (plain, duplicates, empty) = try env.write { txn in
            let empty = try #require(try txn.openDatabase("empty", options: [.create]))
            let plain = try #require(try txn.openDatabase("plain", options: [.create]))
            let duplicates = try #require(try txn.openDatabase("duplicates", options: [.create, .sortedDuplicates]))
            for number in 0..<2_000 {
                try txn.put(Array(repeating: 1, count: 100), forKey: Self.key(number), in: plain)
                try txn.put(Self.key(number), forKey: Self.key(number % 7), in: duplicates)
            }
            return (plain, duplicates, empty)
        }
        // A small database, below the default threshold.
        try env.read { txn in #expect(!txn.prefetches(plain)) }
        env.prefetchThreshold.store(0, ordering: .relaxed)
        try env.read { txn in
            #expect(txn.prefetches(plain))
            #expect(!txn.prefetches(duplicates))
            // An empty database has no root page.
            #expect(!txn.prefetches(empty))
            Self.key(5).withUnsafeBytes { txn.prefetchLeaf(for: $0, in: empty) }
            #expect(Self.key(5).withUnsafeBytes { txn.leafPage(for: $0, in: duplicates) } == nil)
        }
        try env.write { txn in #expect(!txn.prefetches(plain)) }
    }
}
