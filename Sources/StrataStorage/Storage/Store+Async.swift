import Dispatch
import LMDB

extension Store {
    /// Runs `body` in a read transaction on a background thread, without blocking the caller's.
    ///
    /// ```swift
    /// let n = try await store.read { tx in try tx.count(User.self) }
    /// ```
    ///
    /// Cancelling the calling task before the transaction starts skips it: `read` throws
    /// `CancellationError` at once and `body` never runs (a task already cancelled does not even
    /// queue it). Once `body` runs, cancellation stops only the queries in it, which throw
    /// `.cancelled` (see ``QueryRequest/timeout(_:)``); otherwise its result or error is returned as usual.
    public func read<R: Sendable>(_ body: @escaping @Sendable (ReadTransaction) throws -> R) async throws -> R {
        try await read(on: .global(), body)
    }

    /// Runs `body` in the write transaction on the store's writer thread, without blocking the
    /// caller's. Async writes run one after another, in the order they were called.
    ///
    /// Cancelling the calling task before the transaction starts (while earlier writes still run)
    /// skips it: `write` throws `CancellationError` at once, `body` never runs and the store is
    /// left as it is; a task already cancelled does not even queue it. Once `body` runs, a query
    /// in it that is still reading records throws `.cancelled`; the transaction commits or rolls
    /// back whole, and its result or error is returned as usual.
    @discardableResult
    public func write<R: Sendable>(
        durability: Durability = .synchronous, _ body: @escaping @Sendable (WriteTransaction) throws -> R
    ) async throws -> R {
        try await write(durability: durability, queued: {}, body)
    }

    /// ``read(_:)`` on `queue`; `queued` runs once the work is queued (tests wait for it).
    package func read<R: Sendable>(
        on queue: DispatchQueue, queued: @Sendable () -> Void = {}, _ body: @escaping @Sendable (ReadTransaction) throws -> R
    ) async throws -> R {
        try await runQueued(on: queue, queued: queued) { flag in try self.read { tx in tx.cancellation = flag; return try body(tx) } }
    }

    /// ``write(durability:_:)``; `queued` runs once the work is on the writer queue.
    package func write<R: Sendable>(
        durability: Durability, queued: @Sendable () -> Void, _ body: @escaping @Sendable (WriteTransaction) throws -> R
    ) async throws -> R {
        try await onWriter(queued: queued) { flag in
            try self.write(durability: durability) { tx in tx.cancellation = flag; return try body(tx) }
        }
    }

    /// Runs `work` on the store's writer thread, after the async writes and imports queued before
    /// it: the one way async writing work is dispatched (``write(durability:_:)`` and the async
    /// `importJSON` go through it). Cancellation before `work` starts throws `CancellationError`;
    /// once it runs, `work` sees it through the flag it is given.
    package func onWriter<R: Sendable>(
        queued: @Sendable () -> Void = {}, _ work: @escaping @Sendable (CancellationFlag) throws -> R
    ) async throws -> R {
        try await runQueued(on: writerQueue, queued: queued, work)
    }

    /// Queues `work` on `queue` and returns its result; cancellation of the calling task before
    /// `work` starts takes it back (see ``QueuedWork``).
    private func runQueued<R: Sendable>(
        on queue: DispatchQueue, queued: @Sendable () -> Void, _ work: @escaping @Sendable (CancellationFlag) throws -> R
    ) async throws -> R {
        try Task.checkCancellation()
        let ticket = QueuedWork<R>()
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard ticket.wait(with: continuation) else { return }
                queue.async {
                    guard let continuation = ticket.start() else { return }
                    continuation.resume(with: Result { try work(flag) })
                }
                queued()
            }
        } onCancel: {
            flag.cancel()
            ticket.cancel()
        }
    }
}

/// The state an awaiting task shares with the work item it queued: who resumes the task.
///
/// Exactly one of two things happens: the work item starts first and owns the continuation (it
/// runs the transaction and resumes with its outcome; a later cancellation changes nothing), or
/// the task is cancelled first and the continuation is resumed with `CancellationError` at once
/// (the work item, when its turn comes, finds nothing to do).
package final class QueuedWork<R: Sendable>: Sendable {
    private enum State {
        /// Not started, not cancelled; the continuation once the task awaits.
        case pending(CheckedContinuation<R, any Error>?)
        case cancelled
        case started
    }

    private let state = ConditionLock(State.pending(nil))

    /// Stores the awaiting task's continuation; false (having resumed it with
    /// `CancellationError`) when the task was cancelled before, so that nothing is queued.
    package func wait(with continuation: CheckedContinuation<R, any Error>) -> Bool {
        let cancelled = state.withLock { state -> Bool in
            guard case .pending = state else { return true }
            state = .pending(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// The work item's turn: the continuation to resume with its outcome, nil when cancelled.
    package func start() -> CheckedContinuation<R, any Error>? {
        state.withLock { state in
            guard case .pending(let continuation?) = state else { return nil }
            state = .started
            return continuation
        }
    }

    /// The awaiting task was cancelled: resumes it with `CancellationError` unless the work
    /// started already.
    package func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<R, any Error>? in
            guard case .pending(let continuation) = state else { return nil }
            state = .cancelled
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }
}
