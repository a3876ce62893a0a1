import Synchronization

/// Set when the task awaiting an async transaction is cancelled, for the queries running in it.
final class CancellationFlag: Sendable {
    private let flag = Atomic(false)

    var isCancelled: Bool { flag.load(ordering: .relaxed) }

    func cancel() { flag.store(true, ordering: .relaxed) }
}
