import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// Large scans gather batches in one call per batch (`Cursor.copyEntries`), start the other
/// thread on a batch before handing the previous one to `body`, and balance the shares as they
/// go (`ScanShare`): ranges, errors and early stops must still be those of a plain scan.
@Suite struct ScanOverlapTests {
    static let batch = BatchDecoder<User>.batchSize

    static func store(count: Int) throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.upsert((1...count).map { User.sample(Int64($0)) }) }
        return (store, dir)
    }

    @Test func rangesAcrossBatchBoundariesMatchAFilteredScan() throws {
        let count = Self.batch * 3 + 9
        let (store, dir) = try Self.store(count: count)
        _ = dir
        let bounds: [Int64] = [1, 2, Int64(Self.batch) - 1, Int64(Self.batch), Int64(Self.batch) + 1,
                               Int64(Self.batch * 2), Int64(count) - 1, Int64(count), Int64(count) + 5]
        try store.read { tx throws in
            for lower in bounds.prefix(4) {
                for upper in bounds where upper >= lower {
                    #expect(try tx.all(User.self, in: lower...upper).map(\.id) == Array(lower...min(upper, Int64(count))))
                    #expect(try tx.all(User.self, in: lower..<upper).map(\.id) == Array(lower..<min(upper, Int64(count) + 1)))
                }
                #expect(try tx.all(User.self, in: lower...).map(\.id) == Array(lower...Int64(count)))
            }
            #expect(try tx.all(User.self, in: ...Int64(Self.batch)).map(\.id) == Array(1...Int64(Self.batch)))
            #expect(try tx.all(User.self, in: ..<Int64(Self.batch)).map(\.id) == Array(1..<Int64(Self.batch)))
            #expect(try tx.first(User.self)?.id == 1)
            #expect(try tx.last(User.self)?.id == Int64(count))
        }
    }

    @Test(arguments: [1, 700, 1_500, 2_048, 2_049, 3_000, 4_500, 6_150, 6_153])
    func theFirstCorruptRecordIsNamedAfterEveryRecordBeforeIt(corrupt: Int) throws {
        let count = Self.batch * 3 + 9   // 6,153: three full batches and a partial one
        let (store, dir) = try Self.store(count: count)
        _ = dir
        try store.write { tx in
            let context = try #require(try tx.context(for: User.self))
            try tx.raw.put([0xFF, 0x00], forKey: Int64(corrupt).orderedKey, in: context.records)
            if corrupt + 10 <= count {   // a later corrupt record must not be the one named
                try tx.raw.put([0xFF], forKey: Int64(corrupt + 10).orderedKey, in: context.records)
            }
        }
        var seen: [Int64] = []
        let error = try #require(throws: StrataError.self) {
            try store.read { tx in try tx.forEach(User.self) { seen.append($0.id) } }
        }
        #expect(error.code == .corruptRecord)
        #expect(error.key == String(corrupt), "\(error.message)")
        // Records are handed out batch by batch: every one before the bad record's batch was seen, in order.
        let batchStart = (corrupt - 1) / Self.batch * Self.batch
        #expect(seen == (0..<batchStart).map { Int64($0 + 1) })
        let allError = try #require(throws: StrataError.self) { try store.read { tx in try tx.all(User.self) } }
        #expect(allError.key == String(corrupt))
    }

    @Test(arguments: [1, 2_047, 2_048, 2_049, 5_000, 6_153])
    func stoppingAnywhereStopsThereAndLeavesNothingRunning(at stop: Int) throws {
        let count = Self.batch * 3 + 9
        let (store, dir) = try Self.store(count: count)
        _ = dir
        struct Stop: Error {}
        var seen: [Int64] = []
        #expect(throws: Stop.self) {
            try store.read { tx in
                try tx.forEach(User.self) { user in
                    seen.append(user.id)
                    if seen.count == stop { throw Stop() }
                }
            }
        }
        #expect(seen == (1...stop).map(Int64.init))
        // The store stays usable, and a complete scan after the stop sees everything.
        #expect(try store.read { tx in try tx.all(User.self).count } == count)
    }

    @Test func theShareMovesByOneStepAndStaysWithinBounds() {
        var share = ScanShare()
        #expect(share.count(of: 64) == 40)
        share.adjust(otherWasDone: true)
        #expect(share.sixtyFourths == 41)
        for _ in 0..<100 { share.adjust(otherWasDone: true) }
        #expect(share.sixtyFourths == 60)
        for _ in 0..<100 { share.adjust(otherWasDone: false) }
        #expect(share.sixtyFourths == 16)
        #expect(share.count(of: 2_048) == 512)
    }

    @Test func aRunDestroysTheRecordsItStillHolds() {
        final class Token: @unchecked Sendable { let onDeinit: () -> Void; init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }; deinit { onDeinit() } }
        var destroyed = 0
        do {
            let run = RecordRun<Token>(capacity: 4)
            for _ in 0..<3 { run.append(Token { destroyed += 1 }) }
            let first = run.removeFirst()
            #expect(run.count == 2)
            _ = first
        }
        #expect(destroyed == 3)
    }

    @Test func prefaultingAReservedArrayLeavesItWorkingAsAnArray() {
        // Large: the pages are faulted in on another thread while the array fills.
        var large: [UInt64] = []
        large.reserveCapacity(3 << 20)   // 24 MiB
        let executor = DecodeExecutor(threads: 1)
        let prefault = ResultPrefault(reservedFor: large, executor: executor)
        for value in 0..<UInt64(3 << 20) { large.append(value &* 2_654_435_761) }
        prefault.wait()
        #expect(large.count == 3 << 20)
        #expect(large[12_345] == 12_345 &* 2_654_435_761)
        #expect(large.last == UInt64((3 << 20) - 1) &* 2_654_435_761)
        // Small, empty: nothing to do, and waiting returns at once.
        let small: [String] = ["a"]
        ResultPrefault(reservedFor: small, executor: executor).wait()
        ResultPrefault(reservedFor: [Int](), executor: executor).wait()
    }

    @Test func decodedRecordsComeOutInOrderAndStopEarly() {
        func run(_ values: [Int]) -> RecordRun<Int> {
            let run = RecordRun<Int>(capacity: values.count)
            for value in values { run.append(value) }
            return run
        }
        var records = DecodedRecords<Int>([run([1, 2, 3]), run([]), run([4, 5])])
        #expect(records.count == 5)
        var seen: [Int] = []
        #expect(records.forEach { seen.append($0); return true })
        #expect(seen == [1, 2, 3, 4, 5])
        var stopped = DecodedRecords<Int>([run([1, 2]), run([3, 4])])
        var first: [Int] = []
        #expect(!stopped.forEach { first.append($0); return first.count < 3 })
        #expect(first == [1, 2, 3])
    }
}
