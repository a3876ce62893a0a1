import Synchronization

/// Set when the task awaiting an async transaction is cancelled, for the queries running in it.
package final class CancellationFlag: Sendable {
    private let flag = Atomic(false)

    package var isCancelled: Bool { flag.load(ordering: .relaxed) }

    package func cancel() { flag.store(true, ordering: .relaxed) }
}
