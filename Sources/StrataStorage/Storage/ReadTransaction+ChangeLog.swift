import Foundation
import LMDB

extension ReadTransaction {
    /// The sequences of the commits the change log holds, or nil when the store keeps no log or it
    /// holds nothing yet. The upper bound is the last logged commit.
    public func changeLogRange() throws -> ClosedRange<UInt64>? {
        guard let database = try changeLogDatabase() else { return nil }
        return try lmdb(entity: "changelog") {
            try raw.withCursor(database) { cursor -> ClosedRange<UInt64>? in
                guard try cursor.last(), let last = ChangeLogFormat.parse(cursor.key)?.sequence else { return nil }
                // The first commit whose header remains (a bounded prune may have left a commit's tail).
                var more = try cursor.first()
                while more {
                    if let (sequence, position) = ChangeLogFormat.parse(cursor.key), position == 0 { return sequence...last }
                    more = try cursor.next()
                }
                return nil
            }
        }
    }

    /// Whether the store keeps a change log, and how long (nil: it keeps none).
    public func changeLogRetention() throws -> ChangeLogRetention? {
        guard let stored = try lmdb(entity: "changelog", { try raw.value(forKey: ChangeLogFormat.catalogKey, in: store.catalog) }) else {
            return nil
        }
        do { return try JSONDecoder().decode(ChangeLogRetention.self, from: Data(stored)) } catch {
            throw StrataError(.incompatibleStore, "the catalog's change log entry is unreadable", cause: error)
        }
    }

    /// Calls `body` with every logged change of the commits after `sequence`, in commit order and
    /// within a commit in the order made, with its commit's sequence and time, until `body`
    /// returns false. Streams: memory holds one change at a time, however large a commit.
    ///
    /// Throws `.changesPruned` when the log no longer holds the commit after `sequence`, and
    /// `.notFound` when the store keeps no log.
    public func forEachLoggedChange(after sequence: UInt64,
                                    _ body: (_ sequence: UInt64, _ time: Date, LoggedChange) throws -> Bool) throws {
        guard let database = try changeLogDatabase() else {
            throw StrataError(.notFound, "the store at \(store.path) keeps no change log; enable it with Store.enableChangeLog(retention:) or Configuration.changeLog")
        }
        // No commit comes after the largest sequence (and `sequence + 1` would overflow).
        guard sequence < .max else { return }
        if let range = try changeLogRange(), sequence < range.upperBound, sequence + 1 < range.lowerBound {
            throw StrataError(.changesPruned,
                "the change log of \(store.path) holds commits \(range.lowerBound) through \(range.upperBound); those after \(sequence) up to \(range.lowerBound - 1) were pruned, so the reader needs a fresh copy of the store and the log after it")
        }
        try lmdb(entity: "changelog") {
            try raw.withCursor(database) { cursor in
                var more = try cursor.seek(atLeast: ChangeLogFormat.key(sequence + 1, 0))
                var time = Date(timeIntervalSince1970: 0)
                while more {
                    guard let (current, position) = ChangeLogFormat.parse(cursor.key) else {
                        throw StrataError(.corruptRecord, "the change log holds a key of \(cursor.key.count) bytes, not a commit's")
                    }
                    var change: LoggedChange?
                    do throws(CBORReadFailure) {
                        if position == 0 {
                            time = try ChangeLogFormat.readHeader(cursor.value)
                        } else {
                            change = try ChangeLogFormat.readChange(cursor.value)
                        }
                    } catch {
                        throw StrataError(.corruptRecord, "the change log's entry \(position) of commit \(current) is damaged: \(error)", cause: error)
                    }
                    if let change, try !body(current, time, change) { return }
                    more = try cursor.next()
                }
            }
        }
    }

    /// The commits after `sequence`, at most `limit` of them, each with all its changes (see
    /// ``forEachLoggedChange(after:_:)`` to stream changes of large commits instead).
    public func loggedCommits(after sequence: UInt64, limit: Int = 1000) throws -> [LoggedCommit] {
        let origin = try changeLogOrigin()
        var commits: [LoggedCommit] = []
        var current: (sequence: UInt64, time: Date, changes: [LoggedChange])?
        try forEachLoggedChange(after: sequence) { sequence, time, change in
            if let open = current, open.sequence != sequence {
                commits.append(LoggedCommit(sequence: open.sequence, time: open.time, changes: open.changes, origin: origin))
                current = nil
                if commits.count == limit { return false }
            }
            if current == nil { current = (sequence, time, []) }
            current!.changes.append(change)
            return true
        }
        if let open = current, commits.count < limit {
            commits.append(LoggedCommit(sequence: open.sequence, time: open.time, changes: open.changes, origin: origin))
        }
        return commits
    }

    /// The change log's database, when the store keeps a log.
    private func changeLogDatabase() throws -> Database? {
        guard try lmdb(entity: "changelog", { try raw.contains(ChangeLogFormat.catalogKey, in: store.catalog) }) else { return nil }
        if let known = store.published.withLockWakingNone({ $0.changeLog }) { return known }
        return try lmdb(entity: "changelog") { try raw.openDatabase(ChangeLogFormat.databaseName) }
    }
}
