import Foundation

extension Store {
    /// Every commit after `sequence` that changed records: first those the change log holds, then
    /// each new one as it commits (this process's at once, other processes' within the
    /// observation poll interval), until the consuming task ends or is cancelled.
    ///
    /// ```swift
    /// for try await commit in store.changes(after: lastApplied) {
    ///     for change in commit.changes { print(commit.sequence, change.operation, change.entity) }
    /// }
    /// ```
    ///
    /// Pulls from the log as the consumer asks, so a slow consumer holds back nothing but its own
    /// position. Throws `.changesPruned` when the log no longer holds the commit after `sequence`,
    /// `.notFound` when the store keeps no log.
    public func changes(after sequence: UInt64) -> ChangeFeed {
        ChangeFeed(store: self, after: sequence)
    }

    /// The changes of one record type after `sequence`, decoded: each insert and update with its
    /// record, each delete with its key (see ``changes(after:)``; schema entries are left out).
    public func changes<T: Record>(of type: T.Type, after sequence: UInt64) -> TypedChangeFeed<T> {
        TypedChangeFeed(feed: changes(after: sequence), store: self)
    }
}

/// The commits of a store's change log, replayed then followed (``Store/changes(after:)``).
public struct ChangeFeed: AsyncSequence, Sendable {
    public typealias Element = LoggedCommit
    let store: Store
    let after: UInt64

    public func makeAsyncIterator() -> Iterator { Iterator(store: store, after: after) }

    /// Reads the log in pages of commits and waits for the next commit when it has read them all.
    public final class Iterator: AsyncIteratorProtocol {
        private let store: Store
        private var position: UInt64
        private var pending: [LoggedCommit] = []
        private var pendingIndex = 0
        private let commits: AsyncStream<Void>
        private var commitIterator: AsyncStream<Void>.Iterator
        private let observer: UInt64

        /// Commits read from the log at a time.
        static let page = 256

        init(store: Store, after: UInt64) {
            self.store = store
            position = after
            let (commits, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            self.commits = commits
            commitIterator = commits.makeAsyncIterator()
            observer = store.observers.addForEveryCommit { _ in signal.yield() }
        }

        deinit { store.observers.remove(observer) }

        public func next() async throws -> LoggedCommit? {
            while true {
                if pendingIndex < pending.count {
                    defer { pendingIndex += 1 }
                    return pending[pendingIndex]
                }
                if Task.isCancelled { return nil }
                let after = position
                let snapshot: Int
                (pending, snapshot) = try await store.read { tx in (try tx.loggedCommits(after: after, limit: Self.page), tx.snapshotID) }
                pendingIndex = 0
                if let last = pending.last {
                    position = last.sequence
                    continue
                }
                // Nothing new. A commit of another process whose meta page LMDB is still syncing
                // is noticed before reads can see it: read again shortly, as its notice may be spent.
                if store.lastTransactionID != snapshot {
                    try? await Task.sleep(for: .milliseconds(2))
                    continue
                }
                // Wait for a commit (one noticed since the read is already buffered).
                guard await commitIterator.next() != nil else { return nil }
            }
        }
    }
}

/// One change of a record type, decoded (``Store/changes(of:after:)``).
public struct TypedChange<T: Record>: Sendable {
    /// The commit's sequence number in the change log.
    public let sequence: UInt64
    /// When the commit was made (the writer's clock).
    public let time: Date
    /// What happened to the record.
    public let operation: LoggedChange.Operation
    /// The record's primary key; nil for ``LoggedChange/Operation/deleteAll``.
    public let key: T.PrimaryKey?
    /// The record after the change; nil for deletes.
    public let record: T?
}

/// The changes of one record type (``Store/changes(of:after:)``).
public struct TypedChangeFeed<T: Record>: AsyncSequence, Sendable {
    public typealias Element = TypedChange<T>
    let feed: ChangeFeed
    let store: Store

    public func makeAsyncIterator() -> Iterator { Iterator(commits: feed.makeAsyncIterator(), store: store) }

    /// Decodes each change of the record type as it arrives; the changes of other entities are skipped.
    public final class Iterator: AsyncIteratorProtocol {
        private let commits: ChangeFeed.Iterator
        private let store: Store
        private var pending: [TypedChange<T>] = []
        private var pendingIndex = 0

        init(commits: ChangeFeed.Iterator, store: Store) {
            self.commits = commits
            self.store = store
        }

        public func next() async throws -> TypedChange<T>? {
            while pendingIndex == pending.count {
                guard let commit = try await commits.next() else { return nil }
                let entity = store.entityName(of: T.self)
                let changes = commit.changes.filter { $0.entity == entity && $0.operation != .schema }
                guard !changes.isEmpty else { continue }
                pending = try await store.read { tx in try tx.decodeChanges(changes, of: T.self, in: commit) }
                pendingIndex = 0
            }
            defer { pendingIndex += 1 }
            return pending[pendingIndex]
        }
    }
}

extension ReadTransaction {
    /// `changes` of `commit`, all of `type`'s entity, decoded with the entity's field table.
    func decodeChanges<T: Record>(_ changes: [LoggedChange], of type: T.Type, in commit: LoggedCommit) throws -> [TypedChange<T>] {
        guard let context = try context(named: store.entityName(of: T.self)) else { return [] }
        return try changes.map { change in
            var position = 0
            let key = change.operation == .deleteAll ? nil : try T.PrimaryKey.readOrderedKey(from: change.key, at: &position)
            let record = try change.bytes.map { bytes in
                try decode(T.self, bytes, context) { describeStoredKey(change.key, of: T.self) }
            }
            return TypedChange(sequence: commit.sequence, time: commit.time, operation: change.operation, key: key, record: record)
        }
    }
}
