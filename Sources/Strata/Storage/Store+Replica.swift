import Foundation
import LMDB

/// A replica's place in its primary's change log: the catalog entry `replica`, JSON
/// `{"sequence": N}`, written in the same transaction as the changes of commit N.
struct ReplicaState: Codable, Equatable {
    static let catalogKey = Array("replica".utf8)
    var sequence: UInt64
}

extension Store {
    /// The id of the last transaction committed to the store by any process: it changes with
    /// every commit (what the tool's `--follow` waits on). It is read from the meta page, which
    /// LMDB writes (and syncs) before it lets new read transactions see the commit: compare it
    /// with the ``ReadTransaction/snapshotID`` of a read, never with an id taken before the read.
    package var lastTransactionID: Int { environment.lastTransactionID }

    /// The last commit of its primary this store has applied, when it is a replica; nil otherwise.
    public func replicaPosition() throws -> UInt64? {
        try read { tx in try tx.replicaState()?.sequence }
    }

    /// Applies commits of a primary's change log (``ReadTransaction/loggedCommits(after:limit:)``,
    /// ``Store/changes(after:)``, the lines of `strata changes`) in one write transaction, and
    /// returns the last commit applied.
    ///
    /// The first call makes this store a replica: programs' writes then throw `.readOnlyReplica`.
    /// It starts after the last commit its own change log holds (a backup of the primary holds the
    /// primary's log up to the copy), or from the beginning; its own log is then dropped. Commits
    /// applied already are skipped, so a feed can be replayed after a restart without harm; a
    /// commit that does not follow the last one applied (a gap) throws `.changesPruned`. Each
    /// commit's schema entries are applied first (new entities, field ids, indexes, which the
    /// replica builds from its records), then its records, through the record writer, which keeps
    /// the replica's indexes; the position is recorded in the same transaction.
    @discardableResult
    public func applyChanges(_ commits: [LoggedCommit], durability: Durability = .synchronous) throws -> UInt64 {
        try write(durability: durability, replicating: true) { tx in try tx.apply(commits) }
    }

    /// Brings this store, a replica, up to the last commit of `source`'s change log, reading it in
    /// pages of `pageSize` commits, each page applied in one transaction; returns the position.
    @discardableResult
    public func replicate(from source: Store, pageSize: Int = 256) throws -> UInt64 {
        var position = try read { tx in try tx.replicaStartingPosition() }
        while true {
            let after = position
            let commits = try source.read { tx in try tx.loggedCommits(after: after, limit: max(pageSize, 1)) }
            guard !commits.isEmpty else { return position }
            position = try applyChanges(commits)
        }
    }
}

extension ReadTransaction {
    /// The catalog's `replica` entry.
    func replicaState() throws -> ReplicaState? {
        guard let stored = try lmdb(entity: "replica", { try raw.value(forKey: ReplicaState.catalogKey, in: store.catalog) }) else {
            return nil
        }
        do { return try JSONDecoder().decode(ReplicaState.self, from: Data(stored)) } catch {
            throw StrataError(.incompatibleStore, "the catalog's replica entry is unreadable", cause: error)
        }
    }

    /// Where applying a feed starts: the replica's position, or for a store not yet a replica the
    /// last commit its own change log holds (a backup of the primary), or 0.
    func replicaStartingPosition() throws -> UInt64 {
        if let state = try replicaState() { return state.sequence }
        return try changeLogRange()?.upperBound ?? 0
    }
}

extension WriteTransaction {
    /// Applies `commits` after the replica's position; returns the new position.
    fileprivate func apply(_ commits: [LoggedCommit]) throws -> UInt64 {
        var position = try replicaStartingPosition()
        if try replicaState() == nil {
            // Becoming a replica: the copied log is the primary's past, not this store's to serve.
            try lmdb(entity: "replica") {
                _ = try raw.delete(ChangeLogFormat.catalogKey, in: store.catalog)
                if let database = try raw.openDatabase(ChangeLogFormat.databaseName) { try raw.drop(database) }
            }
        }
        for commit in commits {
            guard commit.sequence > position else { continue }
            guard commit.sequence == position + 1 else {
                throw StrataError(.changesPruned,
                    "the change feed jumps from commit \(position) to \(commit.sequence): the commits between are missing (pruned at the primary?); start the replica again from a fresh backup")
            }
            for change in commit.changes where change.operation == .schema { try applySchema(change, commit: commit.sequence) }
            for change in commit.changes where change.operation != .schema { try applyRecord(change, commit: commit.sequence) }
            position = commit.sequence
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let state = Array(try encoder.encode(ReplicaState(sequence: position)))
        try lmdb(entity: "replica") { try raw.put(state, forKey: ReplicaState.catalogKey, in: store.catalog) }
        return position
    }

    /// Makes the replica's entity `change.entity` what the primary's catalog entry says: created
    /// with its records database, its field table taken whole (field ids are the primary's, which
    /// the records' bytes use), its indexes built or dropped to match.
    private func applySchema(_ change: LoggedChange, commit: UInt64) throws {
        let schema: EntitySchema
        do { schema = try JSONDecoder().decode(EntitySchema.self, from: Data(change.bytes ?? [])) } catch {
            throw StrataError(.corruptRecord, "commit \(commit): the schema entry of \(change.entity) is unreadable", entity: change.entity, cause: error)
        }
        guard schema.name == change.entity else {
            throw StrataError(.corruptRecord, "commit \(commit): the schema entry of \(change.entity) describes '\(schema.name)'", entity: change.entity)
        }
        let context = try context(named: schema.name) ?? renamedEntity(to: schema)
            ?? createEntity(named: schema.name, primaryKey: schema.primaryKey, primaryKeyKind: schema.primaryKeyKind ?? .other)
        var adopted = schema
        adopted.indexes = context.schema.indexes   // built below, from the records this replica holds
        adopted.recordsDatabase = context.schema.recordsDatabase
        context.schema = adopted
        context.indexMaintainer = nil
        context.needsSaving = true
        try migrate(context, to: schema.indexes) { toBuild in try buildIndexes(toBuild, context) }
    }

    /// The replica's entity that the primary renamed to `schema`'s name (``WriteTransaction/renameEntity(_:to:)``),
    /// renamed here too; nil when there is none. A rename keeps the entity's records database,
    /// so it is the entity of another name whose records database has the entry's name.
    private func renamedEntity(to schema: EntitySchema) throws -> EntityContext? {
        for name in try catalogEntityNames() where name != schema.name {
            guard let other = try context(named: name), other.schema.recordsDatabase == schema.recordsDatabase else { continue }
            try renameCatalogEntity(other, to: schema.name)
            return other
        }
        return nil
    }

    private func applyRecord(_ change: LoggedChange, commit: UInt64) throws {
        guard let context = try context(named: change.entity) else {
            throw StrataError(.notFound,
                "commit \(commit) changes \(change.entity), an entity the replica does not have: the entity existed before the source's log began, so start the replica from a backup of the source (strata backup) taken since",
                entity: change.entity)
        }
        switch change.operation {
        case .insert, .update:
            guard let bytes = change.bytes, Self.isRecordMap(bytes) else {
                throw StrataError(.corruptRecord, "commit \(commit): the record of \(change.entity) with key \(describeStoredKey(change.key)) is not a CBOR map",
                                  entity: change.entity)
            }
            try writeRecord(bytes, forKey: change.key, context, replacing: true) { describeStoredKey(change.key) }
        case .delete:
            try deleteRecord(forKey: change.key, context)
        case .deleteAll:
            _ = try deleteAllRecords(context)
        case .schema:
            break
        }
    }

    /// Whether `bytes` are one whole CBOR map, as every stored record is.
    private static func isRecordMap(_ bytes: [UInt8]) -> Bool {
        let reader = CBORReader(bytes: bytes)
        var offset = 0
        guard (try? reader.readHead(at: &offset))?.major == .map else { return false }
        offset = 0
        return (try? reader.skipItem(at: &offset)) != nil && offset == bytes.count
    }
}
