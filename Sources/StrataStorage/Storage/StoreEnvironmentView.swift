import LMDB

/// What the layers above the storage target may know of a store's LMDB environment: its commits (from
/// any process), its sizes and its readers; no transaction, so no way to write. ``Store/environment``
/// itself is internal to the storage target, so that the record writer and the index maintainer stay
/// the only code that changes the database.
package struct StoreEnvironmentView: Sendable {
    private let environment: Environment

    init(_ environment: Environment) { self.environment = environment }

    /// The id of the last committed transaction a reader starting now would see, by any process.
    package var visibleTransactionID: Int { environment.visibleTransactionID }

    /// Calls `handler` after commits to the environment, by this process or another, until the
    /// subscription is released (``Environment/observeCommits(_:)``).
    package func observeCommits(_ handler: @escaping @Sendable (Int) -> Void) -> CommitSubscription {
        environment.observeCommits(handler)
    }

    /// The longest key LMDB stores.
    package var maxKeySize: Int { environment.maxKeySize }
    /// The memory map's size now, in bytes.
    package var mapSize: Int { environment.currentMapSize }
    /// The bytes of the map in use (pages up to the last one written).
    package var usedBytes: Int { environment.usedBytes }
    /// Reader slots in use and available.
    package var readers: (used: Int, max: Int) { environment.readers }
}

extension Store {
    /// The store's environment, for what may be known of it above the storage target.
    package var environmentView: StoreEnvironmentView { StoreEnvironmentView(environment) }
}
