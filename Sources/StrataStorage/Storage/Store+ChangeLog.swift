import Foundation
import LMDB

extension Store {
    /// Starts logging every commit that changes records, with `retention` (or changes the
    /// retention of a log already kept). From the next commit on, each write transaction that
    /// changes records appends one ``LoggedCommit`` in the same LMDB transaction, so the log and
    /// the data never disagree; any process writing the store logs too, since the setting lives in
    /// the store. Read it with ``changes(after:)`` or ``ReadTransaction/loggedCommits(after:limit:)``.
    public func enableChangeLog(retention: ChangeLogRetention = .commits(100_000)) throws {
        if case .commits(let count) = retention, count < 1 {
            throw StrataError(.invalidValue, "a change log keeps at least one commit (retention .commits(\(count)))")
        }
        if case .seconds(let seconds) = retention, !(seconds > 0 && seconds.isFinite) {
            throw StrataError(.invalidValue, "a change log keeps commits for a positive, finite time (retention .seconds(\(seconds)))")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let entry = Array(try encoder.encode(retention))
        try write { tx in try tx.setChangeLog(entry) }
    }

    /// Stops logging and deletes the log (readers of it then get `.notFound`); registered readers
    /// are forgotten.
    public func disableChangeLog() throws {
        try write { tx in try tx.setChangeLog(nil) }
    }

    /// Registers `reader` with the log (``ChangeLogRetention/acknowledged`` keeps every commit it
    /// has not acknowledged), at `sequence` (by default the last logged commit).
    public func registerChangeReader(_ reader: String, at sequence: UInt64? = nil) throws {
        try write { tx in
            let position = try sequence ?? tx.changeLogRange()?.upperBound ?? 0
            try tx.setChangeReader(reader, ChangeLogReaders.value(position))
        }
    }

    /// Tells the log that `reader` has applied every commit up to `sequence`, which an
    /// ``ChangeLogRetention/acknowledged`` retention may now prune.
    public func acknowledgeChanges(through sequence: UInt64, reader: String) throws {
        try write { tx in try tx.setChangeReader(reader, ChangeLogReaders.value(sequence)) }
    }

    /// Forgets `reader`: the log no longer keeps commits for it.
    public func removeChangeReader(_ reader: String) throws {
        try write { tx in try tx.setChangeReader(reader, nil) }
    }

    /// The registered readers and the sequence each has acknowledged.
    public func changeReaders() throws -> [String: UInt64] {
        try read { tx in try tx.lmdb(entity: "changelog") { try ChangeLogReaders.all(in: tx.raw, catalog: catalog) } }
    }
}

extension WriteTransaction {
    /// Writes (or, for nil, removes with the log itself) the catalog's change log entry.
    fileprivate func setChangeLog(_ entry: [UInt8]?) throws {
        let wasOn = try lmdb(entity: "changelog") { try raw.contains(ChangeLogFormat.catalogKey, in: store.catalog) }
        if wasOn != (entry != nil) { try setChangeLogEpoch(started: entry != nil) }   // a log enabled anew starts a new epoch
        try lmdb(entity: "changelog") {
            if let entry {
                try raw.put(entry, forKey: ChangeLogFormat.catalogKey, in: store.catalog)
                _ = try raw.openDatabase(ChangeLogFormat.databaseName, options: .create)
            } else {
                _ = try raw.delete(ChangeLogFormat.catalogKey, in: store.catalog)
                if let database = try raw.openDatabase(ChangeLogFormat.databaseName) { try raw.drop(database) }
                for reader in try ChangeLogReaders.all(in: raw, catalog: store.catalog).keys {
                    _ = try raw.delete(ChangeLogReaders.key(reader), in: store.catalog)
                }
            }
        }
        changeLog = nil   // this transaction's own changes stay unlogged either way: the log starts after it
    }

    fileprivate func setChangeReader(_ reader: String, _ value: [UInt8]?) throws {
        guard !reader.isEmpty, reader.utf8.count <= 200 else {
            throw StrataError(.invalidValue, "a change reader's name has 1 to 200 bytes ('\(reader.prefix(40))')")
        }
        guard try changeLogRetention() != nil else {
            throw StrataError(.notFound, "the store at \(store.path) keeps no change log; enable it first")
        }
        try lmdb(entity: "changelog") {
            if let value { try raw.put(value, forKey: ChangeLogReaders.key(reader), in: store.catalog) }
            else { _ = try raw.delete(ChangeLogReaders.key(reader), in: store.catalog) }
        }
    }
}
