import Foundation
import Testing
import TestSupport
@testable import LMDB

/// `Cursor.countEntries(upTo:throughPrefix:limit:)` and `KeyOrder` against a brute-force count
/// over every stored entry, on random keys of varied lengths with random duplicate counts.
@Suite struct CursorCountTests {
    let dir: TemporaryDirectory
    let env: Environment

    init() throws { (env, dir) = try makeEnvironment("lmdb-count", mapSize: 8 << 20) }

    /// Bytewise order, a key before the longer keys it prefixes (LMDB's default).
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    static func isWithin(_ key: [UInt8], _ upper: [UInt8]?, throughPrefix: Bool) -> Bool {
        guard let upper else { return true }
        return precedes(key, upper) || (throughPrefix && key.starts(with: upper))
    }

    @Test(arguments: [1, 2, 3])
    func countsAgreeWithABruteForceCount(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let db = try env.write { txn in try #require(try txn.openDatabase("dups", options: [.create, .sortedDuplicates])) }
        var stored: [[UInt8]: Int] = [:]
        try env.write { txn in
            for _ in 0..<600 {
                // Short keys over a small alphabet, so that prefixes and equal keys are common.
                let key = (0..<Int.random(in: 1...4, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }
                let values = Int.random(in: 1...3, using: &random)
                for value in 0..<values { try txn.put([UInt8(value), UInt8.random(in: 0...255, using: &random)], forKey: key, in: db) }
                stored[key, default: 0] = try txn.withCursor(db) { cursor in
                    _ = try cursor.seek(exactly: key)
                    return try cursor.duplicateCount()
                }
            }
        }
        let keys = stored.keys.sorted(by: Self.precedes)
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                for _ in 0..<400 {
                    let start = (0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }
                    let upper: [UInt8]? = Bool.random(using: &random) ? nil
                        : (0..<Int.random(in: 1...4, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }
                    let throughPrefix = Bool.random(using: &random)
                    let limit = Bool.random(using: &random) ? Int.max : Int.random(in: 0...40, using: &random)

                    var expected = Cursor.EntryCount()
                    for key in keys where !Self.precedes(key, start) {
                        guard Self.isWithin(key, upper, throughPrefix: throughPrefix) else { break }
                        guard expected.entries < limit else { expected.reachedLimit = true; break }
                        expected.entries += stored[key]!
                        expected.longestKey = max(expected.longestKey, key.count)
                    }
                    let positioned = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
                    let counted = positioned ? try cursor.countEntries(upTo: upper, throughPrefix: throughPrefix, limit: limit) : Cursor.EntryCount()
                    #expect(counted == expected, "from \(start) to \(upper.map { "\($0)" } ?? "the end") through prefix \(throughPrefix), limit \(limit)")
                }
            }
        }
    }

    @Test func keyOrderComparesTheCommonLengthThenTheLength() {
        func within(_ key: [UInt8], _ upper: [UInt8], _ throughPrefix: Bool) -> Bool {
            key.withUnsafeBytes { key in upper.withUnsafeBytes { upper in KeyOrder.isKey(key, within: upper, throughPrefix: throughPrefix) } }
        }
        #expect(within([1, 2], [1, 3], false))
        #expect(!within([1, 4], [1, 3], true))
        #expect(within([1], [1, 3], false))               // a proper prefix sorts first
        #expect(!within([1, 3], [1, 3], false))           // the bound itself, exclusive
        #expect(within([1, 3], [1, 3], true))
        #expect(within([1, 3, 0], [1, 3], true))          // keys the bound prefixes, through it
        #expect(!within([1, 3, 0], [1, 3], false))
        #expect(within([], [0], false))
        #expect([UInt8]([]).withUnsafeBytes { empty in [UInt8]([7]).withUnsafeBytes { KeyOrder.compareCommon(empty, $0) } } == 0)
    }
}
