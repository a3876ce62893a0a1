/// What hears the commits this process makes to a store (the observation center): asked when a
/// write begins whether anyone wants its changes, told after each commit.
package protocol CommitListener: AnyObject, Sendable {
    /// Whether a write beginning now should track what it changes (``ChangeSet``).
    var isObserved: Bool { get }
    /// A commit of this process, with transaction id `transactionID`, changed `changes`.
    func didCommit(_ changes: ChangeSet, transactionID: Int)
}

/// The objects the layers above storage keep for one ``Store`` (the query planner's plan cache,
/// the observation center), each made at its first use and kept while the store is open: the
/// store holds them without naming their types, and a store nobody queries or observes makes
/// neither. One object of each type; the first attached ``CommitListener`` hears the commits.
package final class StoreAttachments: Sendable {
    private struct State {
        var objects: [ObjectIdentifier: any AnyObject & Sendable] = [:]
        var listener: (any CommitListener)?
    }

    private let state = ConditionLock(State())

    /// The store's object of type `T`, made by `make` when it has none.
    package func attachment<T: AnyObject & Sendable>(_ make: () -> T) -> T {
        let id = ObjectIdentifier(T.self)
        if let kept = state.withLockWakingNone({ $0.objects[id] }) { return unsafeDowncast(kept, to: T.self) }
        let made = make()
        return state.withLockWakingNone { state in
            if let kept = state.objects[id] { return unsafeDowncast(kept, to: T.self) }   // made meanwhile by another thread
            state.objects[id] = made
            if state.listener == nil, let listener = made as? any CommitListener { state.listener = listener }
            return made
        }
    }

    /// The attached ``CommitListener``, if any.
    var commitListener: (any CommitListener)? { state.withLockWakingNone { $0.listener } }
}
