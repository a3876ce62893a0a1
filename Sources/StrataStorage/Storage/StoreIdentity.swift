import Foundation
import LMDB

/// Where a logged commit comes from: which store, and which run of its change log.
///
/// A replica records the origin of the commits it applies and refuses commits of any other
/// (``StrataError/Code/replicaSourceMismatch``): another store, or the same store's log after it
/// was disabled and enabled again, whose sequences start at 1 once more.
public struct ChangeLogOrigin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The store's identity: a random id given when the store was created (or, for a store made by
    /// an earlier version of Strata, at its first opening with write access). A backup keeps it; a
    /// store that becomes a replica gets an identity of its own.
    public var store: String
    /// The change log's epoch: a random id given each time the log is enabled while it is off.
    public var epoch: String
    /// Whether the epoch began on a store without records, so that its commits from 1 hold every
    /// record the store has (otherwise a replica starts from a copy of the store, never from an
    /// empty one).
    public var beganEmpty: Bool

    /// The origin of the commits of `store`'s log in `epoch`.
    public init(store: String, epoch: String, beganEmpty: Bool) {
        self.store = store
        self.epoch = epoch
        self.beganEmpty = beganEmpty
    }

    public var description: String { "store \(store), change log epoch \(epoch)" }

    /// What differs between `self` (what a replica follows) and `other`, as a phrase; nil when
    /// they are the same source.
    package func difference(from other: ChangeLogOrigin) -> String? {
        if store != other.store { return "it is another store (identity \(other.store), not \(store))" }
        if epoch != other.epoch {
            return "its change log was restarted since (disabled and enabled again: epoch \(other.epoch), not \(epoch)), so its sequences start again at 1"
        }
        return nil
    }
}

/// The catalog entry `identity` (JSON): the store's random id, and while the store keeps a change
/// log, the log's epoch and whether it began on a store without records.
package struct StoreIdentity: Codable, Equatable {
    package static let catalogKey = Array("identity".utf8)

    package var id: String
    package var epoch: String?
    var epochBeganEmpty: Bool?

    package static func newID() -> String { UUID().uuidString.lowercased() }

    package static func read(in txn: LMDB.Transaction, catalog: Database) throws -> StoreIdentity? {
        guard let bytes = try txn.value(forKey: catalogKey, in: catalog) else { return nil }
        do { return try JSONDecoder().decode(StoreIdentity.self, from: Data(bytes)) } catch {
            throw StrataError(.incompatibleStore, "the catalog's identity entry is unreadable", cause: error)
        }
    }

    package static func write(_ identity: StoreIdentity, in txn: LMDB.Transaction, catalog: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try txn.put(Array(try encoder.encode(identity)), forKey: catalogKey, in: catalog)
    }

    /// Whether the store lacks what ``ensure(in:catalog:)`` writes: an identity, or the epoch of
    /// the change log it keeps (a store made by an earlier version of Strata).
    package static func isIncomplete(in txn: LMDB.Transaction, catalog: Database) throws -> Bool {
        guard let identity = try read(in: txn, catalog: catalog) else { return true }
        guard identity.epoch == nil else { return false }
        return try txn.contains(ChangeLogFormat.catalogKey, in: catalog)
    }

    /// Gives a store made by an earlier version of Strata its identity and, when it keeps a change
    /// log, the log's epoch (which cannot know whether the log began on an empty store, so says
    /// it did not: replicas of it start from a backup).
    package static func ensure(in txn: LMDB.Transaction, catalog: Database) throws {
        var identity = try read(in: txn, catalog: catalog) ?? StoreIdentity(id: newID())
        if identity.epoch == nil, try txn.contains(ChangeLogFormat.catalogKey, in: catalog) {
            identity.epoch = newID()
            identity.epochBeganEmpty = false
        }
        try write(identity, in: txn, catalog: catalog)
    }
}

extension ReadTransaction {
    /// The store's identity (see ``ChangeLogOrigin/store``); nil for a store made by an earlier
    /// version of Strata that was not opened with write access since.
    public func storeIdentity() throws -> String? {
        try lmdb(entity: "identity") { try StoreIdentity.read(in: raw, catalog: store.catalog)?.id }
    }

    /// The origin of the commits this store logs: its identity and its change log's epoch; nil
    /// when it keeps no log.
    public func changeLogOrigin() throws -> ChangeLogOrigin? {
        guard let identity = try lmdb(entity: "identity", { try StoreIdentity.read(in: raw, catalog: store.catalog) }),
              let epoch = identity.epoch else { return nil }
        return ChangeLogOrigin(store: identity.id, epoch: epoch, beganEmpty: identity.epochBeganEmpty ?? false)
    }
}

extension WriteTransaction {
    /// Starts a new epoch of the change log (it was off and is being enabled), or, for `false`,
    /// ends it (the log is being disabled).
    package func setChangeLogEpoch(started: Bool) throws {
        let beganEmpty = started ? try catalogEntityNames().allSatisfy { name in (try context(named: name).map { try recordCount($0) } ?? 0) == 0 } : false
        try lmdb(entity: "identity") {
            var identity = try StoreIdentity.read(in: raw, catalog: store.catalog) ?? StoreIdentity(id: StoreIdentity.newID())
            identity.epoch = started ? StoreIdentity.newID() : nil
            identity.epochBeganEmpty = started ? beganEmpty : nil
            try StoreIdentity.write(identity, in: raw, catalog: store.catalog)
        }
    }

    /// Gives a store that becomes a replica an identity of its own, without a log: it is no longer
    /// the copy of its primary it may have been made as.
    package func takeReplicaIdentity() throws {
        try lmdb(entity: "identity") {
            try StoreIdentity.write(StoreIdentity(id: StoreIdentity.newID()), in: raw, catalog: store.catalog)
        }
    }
}
