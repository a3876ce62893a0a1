import Dispatch
import Synchronization

/// The observers of one store, told of every commit: those of this process right after they
/// commit, those of other processes within ``pollInterval`` (LMDB has no notifications: a timer
/// compares the environment's last transaction id with the commits this process made).
final class ObservationCenter: Sendable {
    /// How often other processes' commits are looked for while anything is observed.
    static let pollInterval: DispatchTimeInterval = .milliseconds(100)

    private struct State {
        var observers: [UInt64: @Sendable (ChangeSet) -> Void] = [:]
        var nextID: UInt64 = 0
        /// The last transaction id accounted for, and this process's commits after it.
        var lastSeen = 0
        var ownCommits: Set<Int> = []
        var timer: DispatchSourceTimer?
    }

    private let state = Mutex(State())
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
            if state.observers.isEmpty { state.lastSeen = current; state.ownCommits = [] }
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

    /// Tells every observer when another process committed since the last look.
    private func poll() {
        let current = lastTransactionID()
        let observers = state.withLock { state -> [@Sendable (ChangeSet) -> Void] in
            guard current > state.lastSeen else { return [] }
            let own = state.ownCommits.filter { $0 > state.lastSeen && $0 <= current }.count
            let external = current - state.lastSeen > own
            state.lastSeen = current
            state.ownCommits = state.ownCommits.filter { $0 > current }
            return external ? Array(state.observers.values) : []
        }
        guard !observers.isEmpty else { return }
        queue.async { for notify in observers { notify(.external) } }
    }
}
