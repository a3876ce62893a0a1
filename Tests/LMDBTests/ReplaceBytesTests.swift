import Testing
import TestSupport
@testable import LMDB

/// `Span.replaceBytes(of:)`, the copy of an entry into a reader's reused buffer: the buffer holds
/// exactly the new bytes whatever it held, and a copy of the buffer kept by a caller keeps its
/// own bytes (the index walk hands its buffers to the executor, which may keep them; a scan's
/// `Cursor.forEachEntry(buffer:_:)` hands its buffer to the query executor the same way).
@Suite struct ReplaceBytesTests {
    @Test func theBufferHoldsExactlyTheNewBytes() {
        var buffer: [UInt8] = []
        for bytes: [UInt8] in [[1, 2, 3], [4, 5, 6], [7], [], [8, 9, 10, 11], [12, 13, 14, 15], []] {
            bytes.span.replaceBytes(of: &buffer)
            #expect(buffer == bytes)
        }
    }

    @Test func aKeptCopyIsNotOverwritten() {
        // Entries of one width (overwritten in place) and of another (replaced).
        func entry(_ index: Int) -> [UInt8] {
            var bytes: [UInt8] = [UInt8(index), UInt8(index + 1)]
            if index % 5 == 4 { bytes.append(0xFF) }
            return bytes
        }
        var buffer: [UInt8] = []
        var kept: [[UInt8]] = []
        for index in 0..<20 {
            entry(index).span.replaceBytes(of: &buffer)
            if index % 3 == 0 { kept.append(buffer) }
        }
        let expected: [[UInt8]] = stride(from: 0, to: 20, by: 3).map(entry)
        #expect(kept == expected)
    }

    @Test func aScanHandsEachValueAndKeptValuesKeepTheirBytes() throws {
        let (env, dir) = try makeEnvironment("lmdb-scan-buffer", mapSize: 1 << 20)
        defer { withExtendedLifetime(dir) {} }
        // Values of one width in runs (overwritten in place), of other widths between them, and empty.
        func value(_ index: Int) -> [UInt8] {
            index % 7 == 6 ? [] : Array(repeating: UInt8(index), count: index % 5 == 4 ? 9 : 3)
        }
        let db = try env.write { txn in
            let db = try #require(try txn.openDatabase("scan", options: [.create]))
            for index in 0..<40 { try txn.put(value(index), forKey: [0, UInt8(index)], in: db) }
            return db
        }
        var seen: [[UInt8]] = [], kept: [[UInt8]] = []
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                var buffer: [UInt8] = [0xEE, 0xEE, 0xEE]
                guard try cursor.first() else { return }
                try cursor.forEachEntry(buffer: &buffer) { key, bytes in
                    seen.append(bytes.map { $0 })  // a copy of its own: the buffer stays unshared
                    if key[1] % 3 == 0 { kept.append(bytes) }
                    return true
                }
            }
        }
        #expect(seen == (0..<40).map(value))
        #expect(kept == stride(from: 0, to: 40, by: 3).map(value))
    }

    @Test func aScanPassesOverTheValuesItsAdmissionRefusesWithoutCopyingThem() throws {
        let (env, dir) = try makeEnvironment("lmdb-scan-admission", mapSize: 1 << 20)
        defer { withExtendedLifetime(dir) {} }
        let db = try env.write { txn in
            let db = try #require(try txn.openDatabase("scan", options: [.create]))
            for index in 0..<30 { try txn.put([UInt8(index), UInt8(index % 4)], forKey: [UInt8(index)], in: db) }
            return db
        }
        var offered: [UInt8] = [], handed: [[UInt8]] = [], last: [UInt8] = []
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                var buffer: [UInt8] = []
                guard try cursor.first() else { return }
                try cursor.forEachEntry(buffer: &buffer, admitting: { value in
                    offered.append(value[0])
                    return value[1] == 0
                }) { key, bytes in
                    handed.append(bytes.map { $0 })
                    return true
                }
                last = buffer
            }
        }
        #expect(offered == Array(0..<30))
        #expect(handed == stride(from: 0, to: 30, by: 4).map { [UInt8($0), 0] })
        // 29, refused, came last: the buffer still holds 28, the last value copied.
        #expect(last == [28, 0])
    }
}
