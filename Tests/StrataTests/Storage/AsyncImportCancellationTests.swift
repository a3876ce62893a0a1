import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// Async imports go through the store's one async write dispatch (`Store.onWriter`): queued
/// after earlier async writes, skipped when cancelled while queued, and, once running, stopped
/// between batches by the task's cancellation with `.cancelled`, their transaction rolled back.
@Suite struct AsyncImportCancellationTests {
    /// Blocks the writer thread at the first progress report until the test has cancelled.
    final class Pause: Sendable {
        private let state = ConditionLock((reached: false, released: false))
        func reach() {
            state.withLock { $0.reached = true }
            state.withLock(untilDone: { $0.released ? .done(()) : .wait })
        }
        func waitUntilReached() { state.withLock(untilDone: { $0.reached ? .done(()) : .wait }) }
        func release() { state.withLock { $0.released = true } }
    }

    static let records = (1...30_000).map { (id: $0, first: "F\($0)", last: "L", city: "C") }

    @Test(arguments: [false, true])
    func anImportCancelledWhileItRunsRollsBackAndThrowsCancelled(described: Bool) async throws {
        let (store, dir) = try makeStore()
        _ = dir
        try await store.write { tx in try tx.upsert(Member(1, "Kept", "Before")) }
        let pause = Pause()
        let options = ImportOptions(progress: { progress in
            if progress.recordsRead == 10_000 { pause.reach() }
        })
        let data = membersJSON(Self.records)
        let description = try EntityDescription(Member.self)
        let task = Task {
            if described {
                try await store.importJSON(data, entity: description, options: options)
            } else {
                try await store.importJSON(data, as: Member.self, options: options)
            }
        }
        // Blocking waits off the cooperative pool: the import runs on the store's writer thread.
        await Task.detached { pause.waitUntilReached() }.value
        task.cancel()
        pause.release()
        let error = try await #require(throws: StrataError.self) { try await task.value }
        #expect(error.code == .cancelled)
        #expect(error.message.contains("Member"), "\(error.message)")
        // Rolled back whole: the record from before is as it was, none of the payload is there.
        #expect(try await store.read { tx in try tx.count(Member.self) } == 1)
        #expect(try store.members().first?.firstName == "Kept")
        #expect(try store.indexesConsistent())
        // The writer goes on: the next async import runs whole.
        #expect(try await store.importJSON(membersJSON(Array(Self.records.prefix(20))), as: Member.self).records == 20)
    }

    @Test func aBatchedImportCancelledStopsBeforeTheNextBatch() async throws {
        let (store, dir) = try makeStore()
        _ = dir
        let pause = Pause()
        let options = ImportOptions(batchSize: 10_000, progress: { progress in
            if progress.recordsRead == 10_000 { pause.reach() }
        })
        let task = Task { try await store.importJSON(membersJSON(Self.records), as: Member.self, options: options) }
        await Task.detached { pause.waitUntilReached() }.value
        task.cancel()
        pause.release()
        let error = try await #require(throws: StrataError.self) { try await task.value }
        #expect(error.code == .cancelled)
        // The first batch was committed before the cancellation; no later one was.
        #expect(try await store.read { tx in try tx.count(Member.self) } == 10_000)
    }

    @Test func anImportCancelledWhileQueuedNeverRuns() async throws {
        let (store, dir) = try makeStore()
        _ = dir
        let pause = Pause()
        // An async write holds the writer thread until the import behind it has been cancelled.
        let blocker = Task { try await store.write { _ in pause.reach() } }
        await Task.detached { pause.waitUntilReached() }.value
        let task = Task { try await store.importJSON(membersJSON(Array(Self.records.prefix(5))), as: Member.self) }
        task.cancel()
        pause.release()
        try await blocker.value
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await store.read { tx in try tx.count(Member.self) } == 0)
    }
}
