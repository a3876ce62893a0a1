import Dispatch
import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// Async `read` and `write`: cancellation before the transaction starts skips it, after it starts
/// changes nothing; writes stay in call order; a long write does not hold up reads. Ordering comes
/// from signals and semaphores, never from sleeping.
@Suite struct AsyncTransactionTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.upsert([User.sample(1), User.sample(2)]) }
    }

    func ids() throws -> [Int64] { try store.read { tx in try tx.all(User.self).map(\.id) } }

    @Test func aWriteCancelledWhileQueuedNeverRuns() async throws {
        let holding = TestSignal(), queued = TestSignal(), events = Events()
        let release = DispatchSemaphore(value: 0)
        let first = Task { [store] in
            try await store.write { tx in
                try tx.upsert(User.sample(3))
                holding.fire()
                release.wait()
            }
        }
        await holding.wait()
        // The writer queue is busy with the first write; the second waits behind it.
        let second = Task { [store] in
            try await store.write(durability: .synchronous, queued: { queued.fire() }) { tx in
                events.note("second ran")
                try tx.upsert(User.sample(4))
            }
        }
        await queued.wait()
        second.cancel()
        release.signal()
        await #expect(throws: CancellationError.self) { try await second.value }
        try await first.value
        // A write queued after the cancelled one runs when the queue has passed it.
        try await store.write { tx in events.note("third ran"); try tx.upsert(User.sample(5)) }
        #expect(events.all == ["third ran"])
        #expect(try ids() == [1, 2, 3, 5])
    }

    @Test func aWriteCancelledAfterItStartedCommitsWhole() async throws {
        let started = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let task = Task { [store] in
            try await store.write { tx in
                try tx.upsert(User.sample(3))
                started.fire()
                release.wait()
                try tx.upsert(User.sample(4))
                return "done"
            }
        }
        await started.wait()
        task.cancel()
        release.signal()
        #expect(try await task.value == "done")
        #expect(try ids() == [1, 2, 3, 4])
    }

    @Test func aWriteCancelledAfterItStartedRollsBackWholeAndReportsItsError() async throws {
        struct Refused: Error {}
        let started = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let task = Task { [store] in
            try await store.write { tx in
                try tx.upsert(User.sample(3))
                started.fire()
                release.wait()
                throw Refused()
            }
        }
        await started.wait()
        task.cancel()
        release.signal()
        await #expect(throws: Refused.self) { try await task.value }
        #expect(try ids() == [1, 2])
    }

    @Test func aTaskCancelledBeforeCallingQueuesNothing() async throws {
        let events = Events()
        let write = Task { [store] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.write(durability: .synchronous, queued: { events.note("write queued") }) { tx in
                events.note("write ran")
                try tx.upsert(User.sample(3))
            }
        }
        let read = Task { [store] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.read(on: .global(), queued: { events.note("read queued") }) { tx in
                events.note("read ran")
                return try tx.count(User.self)
            }
        }
        await #expect(throws: CancellationError.self) { try await write.value }
        await #expect(throws: CancellationError.self) { try await read.value }
        try await store.write { _ in }   // the writer queue is drained
        #expect(events.all == [])
        #expect(try ids() == [1, 2])
    }

    @Test func writesRunInCallOrder() async throws {
        let events = Events()
        let holding = TestSignal(), release = DispatchSemaphore(value: 0)
        let first = Task { [store] in try await store.write { _ in holding.fire(); release.wait() } }
        await holding.wait()
        var tasks: [Task<Void, any Error>] = []
        for n in 0..<5 {
            let queued = TestSignal()
            tasks.append(Task { [store] in
                try await store.write(durability: .synchronous, queued: { queued.fire() }) { tx in
                    events.note("\(n)")
                    try tx.upsert(User.sample(Int64(10 + n)))
                }
            })
            await queued.wait()   // queued before the next one is called
        }
        release.signal()
        try await first.value
        for task in tasks { try await task.value }
        #expect(events.all == ["0", "1", "2", "3", "4"])
    }

    /// Reads run on a queue of the test's, held busy so that a read waits to start.
    @Test func aReadCancelledWhileQueuedNeverRuns() async throws {
        let queue = DispatchQueue(label: "test.reads")
        let holding = TestSignal(), queued = TestSignal(), events = Events()
        let release = DispatchSemaphore(value: 0)
        queue.async { holding.fire(); release.wait() }
        await holding.wait()
        let read = Task { [store] in
            try await store.read(on: queue, queued: { queued.fire() }) { tx in
                events.note("read ran")
                return try tx.count(User.self)
            }
        }
        await queued.wait()
        read.cancel()
        release.signal()
        await #expect(throws: CancellationError.self) { try await read.value }
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in queue.async { drained.resume() } }
        #expect(events.all == [])
    }

    @Test func aReadCancelledAfterItStartedReturnsItsResult() async throws {
        let started = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let read = Task { [store] in
            try await store.read { tx in
                started.fire()
                release.wait()
                return try tx.count(User.self)
            }
        }
        await started.wait()
        read.cancel()
        release.signal()
        #expect(try await read.value == 2)
    }

    @Test func aLongWriteDoesNotHoldUpReads() async throws {
        let holding = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let writer = Task { [store] in
            try await store.write { tx in
                try tx.upsert((100..<2_100).map { User.sample(Int64($0)) })
                holding.fire()
                // The test releases the write once its reads are done; the limit only keeps a
                // broken build (reads waiting for the writer) from hanging: the write then
                // reports that nobody released it.
                return release.wait(timeout: .now() + 120) == .success
            }
        }
        await holding.wait()
        // The write holds its transaction open with 2,000 uncommitted records: reads run now and
        // see the last commit.
        for _ in 0..<3 {
            #expect(try await store.read { tx throws in try tx.count(User.self) } == 2)
        }
        let a = Task { [store] in try await store.read { tx throws in try tx.count(User.self) } }
        let b = Task { [store] in try await store.read { tx throws in try tx.all(User.self).map(\.id) } }
        #expect(try await a.value == 2)
        #expect(try await b.value == [1, 2])
        release.signal()
        #expect(try await writer.value, "the reads waited for the write")
        #expect(try await store.read { tx throws in try tx.count(User.self) } == 2_002)
    }
}

/// A signal from any thread to one awaiting task; firing before the wait is kept.
final class TestSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    func fire() { continuation.yield() }

    /// Returns after the first `fire()` (call it from one task only).
    func wait() async {
        for await _ in stream { return }
    }
}

/// Things that happened, in order, noted from any thread.
final class Events: Sendable {
    private let log = ConditionLock<[String]>([])

    func note(_ event: String) { log.withLock { $0.append(event) } }

    var all: [String] { log.withLock { $0 } }
}
