import Dispatch
import LMDB

/// The observers of one store, told of every commit: those of this process right after they
/// commit, those of other processes within two ``pollInterval``s (LMDB has no notifications: a
/// timer compares the environment's last transaction id with the commits this process made).
final class ObservationCenter: Sendable {
    /// How often other processes' commits are looked for while anything is observed.
    static let pollInterval: DispatchTimeInterval = .milliseconds(100)

    private struct State {
        var observers: [UInt64: @Sendable (ChangeSet) -> Void] = [:]
        var nextID: UInt64 = 0
        /// The last transaction id accounted for, and this process's commits after it.
        var lastSeen = 0
        var ownCommits: Set<Int> = []
        /// The last transaction id the previous poll found. Only ids up to it are judged: a commit
        /// of this process is told to ``didCommit(_:transactionID:)`` just after LMDB commits it,
        /// and a poll in between must not take it for another process's.
        var previousPoll = 0
        var timer: DispatchSourceTimer?
    }

    private let state = ConditionLock(State())
    private let lastTransactionID: @Sendable () -> Int
    /// Where observers hear of commits: one hop per commit, off the committing thread, in
    /// commit order.
    private let queue = DispatchQueue(label: "strata.observers", qos: .userInitiated)

    init(lastTransactionID: @escaping @Sendable () -> Int) {
        self.lastTransactionID = lastTransactionID
    }

    /// Registers `notify` for every commit; returns the id to remove it with.
    func add(_ notify: @escaping @Sendable (ChangeSet) -> Void) -> UInt64 {
        let current = lastTransactionID()
        return state.withLock { state in
            if state.observers.isEmpty { state.lastSeen = current; state.previousPoll = current; state.ownCommits = [] }
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = notify
            if state.timer == nil {
                let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval)
                timer.setEventHandler { [weak self] in self?.poll() }
                timer.resume()
                state.timer = timer
            }
            return id
        }
    }

    func remove(_ id: UInt64) {
        state.withLock { state in
            state.observers[id] = nil
            if state.observers.isEmpty {
                state.timer?.cancel()
                state.timer = nil
            }
        }
    }

    var isObserved: Bool { state.withLock { !$0.observers.isEmpty } }

    /// A commit of this process, with transaction id `transactionID`, changed `changes`.
    func didCommit(_ changes: ChangeSet, transactionID: Int) {
        let observers = state.withLock { state -> [@Sendable (ChangeSet) -> Void] in
            guard !state.observers.isEmpty else { return [] }
            if transactionID > state.lastSeen { state.ownCommits.insert(transactionID) }
            return Array(state.observers.values)
        }
        guard !changes.isEmpty, !observers.isEmpty else { return }
        queue.async { for notify in observers { notify(changes) } }
    }

    /// Returns once every commit told to ``didCommit(_:transactionID:)`` before the call has
    /// been handed to the observers.
    func delivered() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    /// Tells every observer when another process committed since the last look (judging the
    /// commits up to the id the previous poll found, so within two ``pollInterval``s).
    private func poll() {
        let current = lastTransactionID()
        let observers = state.withLock { state -> [@Sendable (ChangeSet) -> Void] in
            let settled = min(state.previousPoll, current)
            state.previousPoll = current
            guard settled > state.lastSeen else { return [] }
            let own = state.ownCommits.filter { $0 > state.lastSeen && $0 <= settled }.count
            let external = settled - state.lastSeen > own
            state.lastSeen = settled
            state.ownCommits = state.ownCommits.filter { $0 > settled }
            return external ? Array(state.observers.values) : []
        }
        guard !observers.isEmpty else { return }
        queue.async { for notify in observers { notify(.external) } }
    }
}
