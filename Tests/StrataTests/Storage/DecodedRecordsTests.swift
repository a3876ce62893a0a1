import Foundation
import LMDB
import Testing
@testable import Strata

/// How decoded records leave their runs: moved out for a caller that keeps them, or, for one that
/// lets them go (`forEach`), copied and freed by the thread that decoded them: a run a worker
/// filled goes back to a worker to be destroyed.
@Suite struct DecodedRecordsTests {
    /// Notes the thread that destroys it, once per destruction.
    final class Tracker: @unchecked Sendable {
        // @unchecked: `freedOn` is only touched under its own lock.
        let id: Int
        let freedOn: ConditionLock<[Int: [UInt]]>
        init(_ id: Int, _ freedOn: ConditionLock<[Int: [UInt]]>) {
            self.id = id
            self.freedOn = freedOn
        }
        deinit { freedOn.withLock { $0[id, default: []].append(UInt(pthread_self())) } }
    }

    /// A run of `count` trackers from `first` on.
    static func run(_ first: Int, _ count: Int, onWorker: Bool, _ freedOn: ConditionLock<[Int: [UInt]]>) -> RecordRun<Tracker> {
        let run = RecordRun<Tracker>(capacity: count, decodedOnWorker: onWorker)
        for id in first..<first + count { run.append(Tracker(id, freedOn)) }
        return run
    }

    /// Returns once the executor's workers have run everything offered (none queued, none busy).
    static func drain(_ executor: DecodeExecutor) {
        executor.pool.lock.withLock(untilDone: { state in state.hasWork || state.busy > 0 ? .wait : .done(()) })
    }

    @Test func recordsAWorkerDecodedAreFreedOnAWorkerWhenTheCallerLetsThemGo() {
        let executor = DecodeExecutor(threads: 1)
        let freedOn = ConditionLock<[Int: [UInt]]>([:])
        var seen: [Int] = []
        do {
            var records = DecodedRecords([Self.run(0, 100, onWorker: true, freedOn), Self.run(100, 50, onWorker: false, freedOn)])
            #expect(records.forEach(freeingOn: executor) { (tracker: consuming Tracker) in seen.append(tracker.id); return true })
        }
        Self.drain(executor)
        let here = UInt(pthread_self())
        let freed = freedOn.withLock { $0 }
        #expect(freed.values.allSatisfy { $0.count == 1 }, "a record was freed twice")
        let threads = freed.mapValues { $0[0] }
        #expect(seen == Array(0..<150))
        #expect(threads.count == 150, "every record was freed")
        #expect((0..<100).allSatisfy { threads[$0] != here }, "a worker's records were freed by this thread")
        #expect((100..<150).allSatisfy { threads[$0] == here }, "this thread's records were freed elsewhere")
    }

    @Test func movedRecordsAreTheCallersAndAnEarlyStopFreesTheRest() {
        let executor = DecodeExecutor(threads: 1)
        let freedOn = ConditionLock<[Int: [UInt]]>([:])
        var kept: [Tracker] = []
        do {
            var records = DecodedRecords([Self.run(0, 10, onWorker: true, freedOn), Self.run(10, 10, onWorker: false, freedOn)])
            #expect(!records.forEach { (tracker: consuming Tracker) in kept.append(tracker); return kept.count < 15 })
            var copied = DecodedRecords([Self.run(20, 10, onWorker: true, freedOn)])
            #expect(!copied.forEach(freeingOn: executor) { (tracker: consuming Tracker) in tracker.id < 24 })
        }
        Self.drain(executor)
        let freed = freedOn.withLock { Set($0.keys) }
        #expect(kept.map(\.id) == Array(0..<15))
        #expect(freed == Set(15..<30), "the records not kept, and every record of a run stopped early, are freed")
    }

    @Test func recordsAreMovedIntoTheArrayOnceEachInOrder() {
        let freedOn = ConditionLock<[Int: [UInt]]>([:])
        do {
            let started = Self.run(0, 5, onWorker: false, freedOn)
            let first = started.removeFirst()
            #expect(first.id == 0)
            var collected = DecodedRecords<Tracker>()
            var part = DecodedRecords([started, Self.run(5, 0, onWorker: false, freedOn), Self.run(5, 4, onWorker: true, freedOn)])
            collected.append(contentsOf: &part)
            #expect(part.count == 0)
            var more = DecodedRecords([Self.run(9, 3, onWorker: false, freedOn)])
            collected.append(contentsOf: &more)
            #expect(collected.count == 11)
            let array = collected.moveIntoArray()
            #expect(collected.count == 0)
            #expect(collected.moveIntoArray().isEmpty)
            #expect(array.map(\.id) == Array(1..<12))
            #expect(freedOn.withLock { $0 }.isEmpty, "no record was destroyed while moved")
        }
        let freed = freedOn.withLock { $0 }
        #expect(freed.keys.sorted() == Array(0..<12))
        #expect(freed.values.allSatisfy { $0.count == 1 }, "every record destroyed exactly once: \(freed)")
    }
}
