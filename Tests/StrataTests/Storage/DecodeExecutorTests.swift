import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// The store's bounded executor (`DecodeExecutor`): never more threads than its limit, work taken
/// back when no worker started it (and then never run), started work waited for, threads ended
/// when the executor is released, and decoding through it in order with the first corrupt record
/// named, however busy its workers are and however many threads read at once.
@Suite struct DecodeExecutorTests {
    /// A gate a job waits at until the test opens it.
    final class Gate: Sendable {
        private let state = ConditionLock((entered: 0, open: false))
        func pass() {
            state.withLock { $0.entered += 1 }
            state.withLock(untilDone: { $0.open ? .done(()) : .wait })
        }
        func waitUntilEntered(_ count: Int = 1) { state.withLock(untilDone: { $0.entered >= count ? .done(()) : .wait }) }
        func open() { state.withLock { $0.open = true } }
    }

    #if os(Linux)
    /// The cores a store's executor counts are those the process may run on: the CPUs of
    /// `/proc/self/status`'s `Cpus_allowed_list`, and one for a thread pinned to one CPU (as
    /// `taskset -c 0` pins a process), which then starts no worker to share that CPU.
    @Test func coresAreTheCPUsThisThreadMayRunOn() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        let allowed = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
            .split(separator: ",").reduce(0) { count, range in
                let bounds = range.split(separator: "-").compactMap { Int($0) }
                return count + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : 1)
            }
        #expect(DecodeThreads.allowedProcessors() == allowed)

        var saved = [UInt64](repeating: 0, count: 16)
        let read = saved.withUnsafeMutableBytes { getAffinity(0, $0.count, $0.baseAddress!) }
        try #require(read == 0)
        let first = try #require(saved.indices.lazy.compactMap { word in
            saved[word] == 0 ? nil : word * 64 + saved[word].trailingZeroBitCount
        }.first)
        var pinned = [UInt64](repeating: 0, count: 16)
        pinned[first / 64] = 1 << UInt64(first % 64)
        let pinning = pinned.withUnsafeMutableBytes { setAffinity(0, $0.count, $0.baseAddress!) }
        try #require(pinning == 0)
        defer { _ = saved.withUnsafeMutableBytes { setAffinity(0, $0.count, $0.baseAddress!) } }
        #expect(DecodeThreads.allowedProcessors() == 1)
    }
    #endif

    @Test func workersNeverOutnumberTheLimitHoweverManyThreadsOffer() {
        let executor = DecodeExecutor(threads: 2)
        let seen = ConditionLock((inside: 0, most: 0, threads: Set<UInt>(), ran: 0))
        let callers = 8, offers = 40
        DispatchQueue.concurrentPerform(iterations: callers) { _ in
            for _ in 0..<offers {
                let ticket = executor.offer {
                    seen.withLock { state in
                        state.inside += 1
                        state.most = max(state.most, state.inside)
                        state.threads.insert(UInt(pthread_self()))
                    }
                    usleep(100)
                    seen.withLock { state in state.inside -= 1; state.ran += 1 }
                }
                usleep(50)
                if !ticket.reclaim() { ticket.wait() }
            }
        }
        let state = seen.withLock { $0 }
        #expect(state.most <= 2)
        #expect(state.threads.count <= 2)
        #expect(state.ran > 0, "no offered work ran on a worker")
        #expect(executor.pool.runningThreads <= 2)
    }

    @Test func withoutWorkersEveryOfferIsTakenBackAndNeverRuns() {
        let executor = DecodeExecutor(threads: 0)
        let ran = ConditionLock(false)
        let ticket = executor.offer { ran.withLock { $0 = true } }
        #expect(ticket.reclaim())
        #expect(ticket.reclaimUnlessStarting())
        ticket.wait()   // returns at once
        #expect(!ran.withLock { $0 })
        #expect(executor.pool.runningThreads == 0)
    }

    @Test func workNoWorkerStartedIsTakenBackAndNeverRuns() {
        let executor = DecodeExecutor(threads: 1)
        let gate = Gate()
        let blocking = executor.offer { gate.pass() }
        gate.waitUntilEntered()
        let ran = ConditionLock(false)
        let queued = executor.offer { ran.withLock { $0 = true } }
        // The only worker is busy: the long-work variant takes it back too instead of waiting.
        #expect(queued.reclaimUnlessStarting())
        #expect(queued.reclaim())
        #expect(!blocking.reclaim(), "started work cannot be taken back")
        gate.open()
        blocking.wait()
        #expect(blocking.isDone)
        // Work offered after it runs: the taken-back work was skipped, not run late.
        let after = executor.offer {}
        if !after.reclaim() { after.wait() }
        #expect(!ran.withLock { $0 })
        #expect(!queued.isDone)
    }

    @Test func startedWorkIsWaitedForToItsEnd() {
        let executor = DecodeExecutor(threads: 1)
        let gate = Gate()
        let result = ConditionLock(0)
        let ticket = executor.offer {
            gate.pass()
            result.withLock { $0 = 42 }
        }
        gate.waitUntilEntered()
        #expect(!ticket.reclaim())
        #expect(!ticket.reclaimUnlessStarting())
        #expect(!ticket.isDone)
        gate.open()
        ticket.wait()
        #expect(ticket.isDone)
        #expect(result.withLock { $0 } == 42)
    }

    @Test func releasingTheExecutorEndsItsThreads() {
        var executor: DecodeExecutor? = DecodeExecutor(threads: 2)
        let gate = Gate()
        let tickets = (0..<2).map { _ in executor!.offer { gate.pass() } }
        gate.waitUntilEntered(2)
        let pool = executor!.pool
        #expect(pool.runningThreads == 2)
        gate.open()
        for ticket in tickets { ticket.wait() }
        executor = nil
        // The release joined the workers: none is left.
        #expect(pool.runningThreads == 0)
    }

    @Test func storesOfOneEnvironmentShareOneExecutorThatEndsWithTheLast() throws {
        let dir = try TemporaryDirectory("strata")
        var first: Store? = try Store(path: dir.path("store"))
        var second: Store? = try Store(path: dir.path("store"))
        #expect(first!.decodeExecutor === second!.decodeExecutor)
        #expect(first!.decodeExecutor.threadLimit == max(0, ProcessInfo.processInfo.activeProcessorCount - 1))
        try first!.write { tx in try tx.upsert((1...5_000).map { User.sample(Int64($0)) }) }
        #expect(try second!.read { tx in try tx.all(User.self).count } == 5_000)
        weak let executor = first!.decodeExecutor
        let pool = first!.decodeExecutor.pool
        first = nil
        #expect(executor != nil, "the second store still holds it")
        second = nil
        #expect(executor == nil)
        #expect(pool.runningThreads == 0)
    }

    /// 2,048 encoded users, with the records at `corrupt` (0-based positions) replaced by bytes
    /// that do not decode.
    static func batch(corrupt: Set<Int>) throws -> RawBatch {
        var fields = FieldTable()
        var batch = RawBatch(capacity: 2_048)
        for position in 0..<2_048 {
            let id = Int64(position + 1)
            let bytes = corrupt.contains(position) ? [0xFF, 0x00] : try CodecHarness.encode(User.sample(id), fields: &fields)
            batch.append(key: id.orderedKey, value: bytes)
        }
        return batch
    }

    static var fields: FieldTable {
        var fields = FieldTable()
        _ = try? CodecHarness.encode(User.sample(1), fields: &fields)
        return fields
    }

    @Test(arguments: [0, 1, 3])
    func batchesDecodeInOrderAndNameTheFirstCorruptRecord(threads: Int) throws {
        let executor = DecodeExecutor(threads: threads)
        let decoder = BatchDecoder<User>(fields: Self.fields, entity: "User", executor: executor)
        let describe = { (key: [UInt8]) -> String in
            var position = 0
            return "\((try? Int64.readOrderedKey(from: key, at: &position)) ?? -1)"
        }
        let whole = try decoder.decode(try Self.batch(corrupt: []), describeKey: describe)
        #expect(whole == (1...2_048).map { User.sample(Int64($0)) })
        // The first bad record in batch order is named, wherever the chunks are cut.
        for corrupt in [[5, 1_900], [1_900, 1_901], [700, 1_500], [2_047]] {
            let error = try #require(throws: StrataError.self) {
                _ = try decoder.decode(try Self.batch(corrupt: Set(corrupt)), describeKey: describe)
            }
            #expect(error.code == .corruptRecord)
            #expect(error.message.contains("\(corrupt.min()! + 1)"), "\(corrupt): \(error.message)")
        }
    }

    @Test func aBusyExecutorLeavesTheWholeBatchToTheCaller() throws {
        let executor = DecodeExecutor(threads: 1)
        let gate = Gate()
        let blocking = executor.offer { gate.pass() }
        gate.waitUntilEntered()
        defer {
            gate.open()
            blocking.wait()
        }
        let decoder = BatchDecoder<User>(fields: Self.fields, entity: "User", executor: executor)
        let records = try decoder.decode(try Self.batch(corrupt: []), describeKey: { _ in "" })
        #expect(records == (1...2_048).map { User.sample(Int64($0)) })
        let pipeline = DecodePipeline<User>(fields: Self.fields, entity: "User", executor: executor)
        var fields = FieldTable()
        for id in Int64(1)...100 { pipeline.append(key: id.orderedKey, value: try CodecHarness.encode(User.sample(id), fields: &fields)) }
        var decoded = try pipeline.finish(describeKey: { _ in "" })
        var ids: [Int64] = []
        _ = decoded.forEach { ids.append($0.id); return true }
        #expect(ids == Array(1...100))
        #expect(!pipeline.helperIsRunning)
    }

    @Test func manyThreadsReadingAtOnceEachGetTheirRecordsInOrder() throws {
        let (store, dir) = try makeStore()
        _ = dir
        let count = 6_000
        try store.write { tx in try tx.upsert((1...count).map { User.sample(Int64($0)) }) }
        let expected = (1...count).map { User.sample(Int64($0)) }
        let problems = ConditionLock<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { reader in
            do {
                try store.read { tx in
                    for round in 0..<3 {
                        let all = try tx.all(User.self)
                        if all != expected { problems.withLock { $0.append("reader \(reader) round \(round): all") } }
                        let queried = try tx.query(User.self, "id > %@", 1_000).all()
                        if queried != Array(expected[1_000...]) { problems.withLock { $0.append("reader \(reader): query") } }
                        let keys = (0..<3_000).map { Int64(($0 * 7 + reader) % count + 1) }
                        let got = try tx.get(User.self, keys: keys)
                        if got.map(\.id) != keys { problems.withLock { $0.append("reader \(reader): get(keys:)") } }
                    }
                }
            } catch {
                problems.withLock { $0.append("reader \(reader): \(error)") }
            }
        }
        #expect(problems.withLock { $0 } == [])
        #expect(store.decodeExecutor.pool.runningThreads <= store.decodeExecutor.threadLimit)
    }
}

#if os(Linux)
@_silgen_name("sched_getaffinity")
private func getAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32
@_silgen_name("sched_setaffinity")
private func setAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32
#endif
