@_spi(Format) import StrataFormat
import Foundation
import LMDB

/// A replica's place in its primary's change log: the catalog entry `replica`, JSON
/// `{"digest": D, "origin": {...}, "sequence": N}`, written in the same transaction as the changes
/// of commit N: the source it follows (``ChangeLogOrigin``; absent in entries written before it was
/// recorded, which take the origin of the next commit applied) and the ``LoggedCommit/digest`` of
/// commit N (absent when unknown), by which it tells whether the source still holds that commit.
package struct ReplicaState: Codable, Equatable {
    package static let catalogKey = Array("replica".utf8)
    package var sequence: UInt64
    package var origin: ChangeLogOrigin?
    var digest: String?
}

extension Store {
    /// The id of the last transaction committed to the store by any process: it changes with
    /// every commit (what the tool's `--follow` waits on). It is read from the meta page, which
    /// LMDB writes (and syncs) before it lets new read transactions see the commit: compare it
    /// with the ``ReadTransaction/snapshotID`` of a read, never with an id taken before the read.
    package var lastTransactionID: Int { environment.lastTransactionID }

    /// Sleeps until a commit newer than `snapshot` (the ``ReadTransaction/snapshotID`` of a read
    /// that found nothing new) can be read, by this or any other process: what the tool's
    /// `--follow` waits on. Commits are noticed as they are written (inotify on the data file,
    /// ``LMDB/Environment/waitForCommit(after:timeout:)``), not polled; the last commit of a writer
    /// killed inside its commit is published (``LMDB/Environment/publishCommitOfDeadWriter()``).
    package func waitForCommit(after snapshot: Int) {
        while !environment.waitForCommit(after: snapshot, timeout: 3600) {}
    }

    /// The last commit of its primary this store has applied, when it is a replica; nil otherwise.
    public func replicaPosition() throws -> UInt64? {
        try read { tx in try tx.replicaState()?.sequence }
    }

    /// Applies commits of a primary's change log (``ReadTransaction/loggedCommits(after:limit:)``,
    /// ``Store/changes(after:)``, the lines of `strata changes`) in one write transaction, and
    /// returns the last commit applied.
    ///
    /// The first call makes this store a replica: programs' writes then throw `.readOnlyReplica`.
    /// It starts after the last commit its own change log holds (a copy of the primary taken with
    /// the log on holds the primary's log up to the copy), or, for an empty store, from the
    /// beginning of a log that began on a store without records; its own log is then dropped and
    /// it takes an identity of its own. It follows the origin of the commits
    /// (``LoggedCommit/origin``) from then on: commits of another store or another epoch of the
    /// log, a commit without an origin, and a commit at the replica's position that is not the one
    /// it applied throw `.replicaSourceMismatch`. Commits applied already are skipped, so a feed can
    /// be replayed after a restart without harm; a commit that does not follow the last one applied
    /// (a gap) throws `.changesPruned`. Each change is checked as a local write would be (field
    /// ids, key encoding and key fields, schema entries) and a failing one throws, applying nothing
    /// of the call. Each commit's schema entries are applied first (new entities, field ids,
    /// indexes, which the replica builds from its records), then its records, through the record
    /// writer, which keeps the replica's indexes; the position is recorded in the same transaction.
    @discardableResult
    public func applyChanges(_ commits: [LoggedCommit], durability: Durability = .synchronous) throws -> UInt64 {
        try write(durability: durability, replicating: true) { tx in try tx.apply(commits) }
    }

    /// Brings this store, a replica, up to the last commit of `source`'s change log, reading it in
    /// pages of `pageSize` commits, each page applied in one transaction; returns the position.
    ///
    /// Throws `.replicaSourceMismatch`, applying nothing, when `source` is not the store and log
    /// epoch this replica follows (or, before its first commit, the store it is a copy of), or when
    /// its log no longer holds the history applied (it ends before the replica's position, or its
    /// commit there differs: a primary restored from an older backup); `.changesPruned` when its log
    /// does not reach back to the replica's position (or, for an empty store, to records that
    /// predate the log: ``seedReplica(of:at:configuration:)`` starts a replica from a copy instead).
    @discardableResult
    public func replicate(from source: Store, pageSize: Int = 256) throws -> UInt64 {
        let (origin, range) = try source.read { tx in (try tx.changeLogOrigin(), try tx.changeLogRange()) }
        guard let origin else {
            throw StrataError(.notFound, "the store at \(source.path) keeps no change log (or has no identity yet: open it once with write access), so there is nothing to replicate")
        }
        let position = try read { tx in try tx.checkSource(origin, lastSequence: range?.upperBound ?? 0) }
        // The commit at the position again, when the log holds it: applying it checks that it is
        // the commit this replica applied.
        var after = position > 0 && range?.contains(position) == true ? position - 1 : position
        while true {
            let from = after
            let commits = try source.read { tx in try tx.loggedCommits(after: from, limit: max(pageSize, 1)) }
            guard !commits.isEmpty else { return after }
            after = try applyChanges(commits)
        }
    }

    /// Makes a new replica of `source` at `path` (a missing or empty directory): a consistent copy
    /// of `source` (``backup(to:compact:progress:)``), which holds its change log up to the copy,
    /// then brought up to `source`'s last commit (``replicate(from:pageSize:)``). The way to start a
    /// replica of a store whose records predate its change log.
    /// The replica is opened with `configuration`.
    public static func seedReplica(of source: Store, at path: String, configuration: Configuration = Configuration()) throws -> Store {
        guard try source.read({ tx in try tx.changeLogOrigin() }) != nil else {
            throw StrataError(.notFound, "the store at \(source.path) keeps no change log, so a replica of it could not follow it; enable the log first")
        }
        try source.backup(to: path)
        let replica = try Store(path: path, configuration: configuration)
        try replica.replicate(from: source)
        return replica
    }
}

extension ReadTransaction {
    /// The catalog's `replica` entry.
    package func replicaState() throws -> ReplicaState? {
        guard let stored = try lmdb(entity: "replica", { try raw.value(forKey: ReplicaState.catalogKey, in: store.catalog) }) else {
            return nil
        }
        do { return try JSONDecoder().decode(ReplicaState.self, from: Data(stored)) } catch {
            throw StrataError(.incompatibleStore, "the catalog's replica entry is unreadable", cause: error)
        }
    }

    /// Where applying a feed starts: the replica's position, or for a store not yet a replica the
    /// last commit its own change log holds (a backup of the primary), or 0.
    package func replicaStartingPosition() throws -> UInt64 {
        if let state = try replicaState() { return state.sequence }
        return try changeLogRange()?.upperBound ?? 0
    }

    /// Checks that this store may apply the commits of `origin`, whose log ends at `lastSequence`
    /// (nil: unknown, for a feed), and returns where applying starts (``replicaStartingPosition()``).
    ///
    /// A replica follows the origin it recorded; a store not yet a replica is either a copy of the
    /// source taken with the log on (the same identity and epoch: it starts after the last commit
    /// its log holds) or an empty store, which can start at 0 only when the source's log began on
    /// a store without records.
    package func checkSource(_ origin: ChangeLogOrigin, lastSequence: UInt64?) throws -> UInt64 {
        let position: UInt64
        if let state = try replicaState() {
            if let followed = state.origin, let difference = followed.difference(from: origin) {
                throw StrataError(.replicaSourceMismatch,
                    "the replica at \(store.path) follows \(followed) at commit \(state.sequence), and its source differs: \(difference); nothing was applied (to follow that source, start a replica anew in an empty directory)")
            }
            position = state.sequence
        } else if let own = try changeLogOrigin() {
            if let difference = own.difference(from: origin) {
                throw StrataError(.replicaSourceMismatch,
                    "the store at \(store.path) is a copy of \(own), and the source differs: \(difference); nothing was applied (start the replica from a backup of the source taken since, or in an empty directory)")
            }
            position = try changeLogRange()?.upperBound ?? 0
        } else {
            guard origin.beganEmpty else {
                throw StrataError(.changesPruned,
                    "the source's change log (\(origin)) began on a store that already held records, which no commit of its log holds, and the store at \(store.path) is not a copy of it: the replica would miss them; start it from a copy (strata replicate SOURCE into an empty directory, Store.seedReplica(of:at:), or a backup taken since the log was enabled)")
            }
            let entities = try catalogEntityNames()
            guard entities.isEmpty else {
                throw StrataError(.replicaSourceMismatch,
                    "the store at \(store.path) holds entities (\(entities.prefix(5).joined(separator: ", "))) but is not a copy of the source (\(origin)) taken with its change log on; nothing was applied (start the replica in an empty directory)")
            }
            position = 0
        }
        if let lastSequence, lastSequence < position {
            throw StrataError(.replicaSourceMismatch,
                "the source's change log (\(origin)) ends at commit \(lastSequence), before commit \(position), which the store at \(store.path) holds: the source's history is older than the replica's (restored from an older backup?); nothing was applied (start the replica anew in an empty directory)")
        }
        return position
    }
}

extension WriteTransaction {
    /// Applies `commits` after the replica's position; returns the new position.
    /// (Internal rather than private for the `replicate` fuzz target, which applies feeds in
    /// transactions it rolls back.)
    package func apply(_ commits: [LoggedCommit]) throws -> UInt64 {
        var state: ReplicaState
        if let existing = try replicaState() {
            state = existing
        } else {
            guard let origin = commits.first?.origin else { return try replicaStartingPosition() }
            let position = try checkSource(origin, lastSequence: nil)
            // The digest of the copied log's last commit: the source must still hold that commit.
            let digest = position > 0 ? try loggedCommits(after: position - 1, limit: 1).first { $0.sequence == position }?.digest : nil
            state = ReplicaState(sequence: position, origin: origin, digest: digest)
            // Becoming a replica: the copied log is the primary's past, not this store's to serve,
            // and the store is no longer the copy of its primary it was made as.
            try lmdb(entity: "replica") {
                _ = try raw.delete(ChangeLogFormat.catalogKey, in: store.catalog)
                if let database = try raw.openDatabase(ChangeLogFormat.databaseName) { try raw.drop(database) }
            }
            try takeReplicaIdentity()
        }
        var checked: ChangeLogOrigin?
        for commit in commits {
            guard let origin = commit.origin else {
                throw StrataError(.replicaSourceMismatch,
                    "commit \(commit.sequence) does not name its source (the store's identity and its change log's epoch), which a replica checks; nothing of it was applied")
            }
            if origin != checked {
                if let followed = state.origin, let difference = followed.difference(from: origin) {
                    throw StrataError(.replicaSourceMismatch,
                        "the replica at \(store.path) follows \(followed) at commit \(state.sequence), and the source of commit \(commit.sequence) differs: \(difference); nothing of it was applied (to follow that source, start a replica anew in an empty directory)")
                }
                state.origin = origin
                checked = origin
            }
            guard commit.sequence > state.sequence else {
                if commit.sequence == state.sequence, let digest = state.digest, digest != commit.digest {
                    throw StrataError(.replicaSourceMismatch,
                        "the source's commit \(commit.sequence) is not the commit \(commit.sequence) the replica at \(store.path) applied (digest \(commit.digest), not \(digest)): the source's history changed (restored from an older backup and written again?); nothing was applied (start the replica anew in an empty directory)")
                }
                continue
            }
            guard commit.sequence == state.sequence + 1 else {
                throw StrataError(.changesPruned,
                    "the change feed jumps from commit \(state.sequence) to \(commit.sequence): the commits between are missing (pruned at the primary?); start the replica again from a fresh backup")
            }
            try applySchemas(commit.changes.filter { $0.operation == .schema }, commit: commit.sequence)
            try applyRecords(commit.changes, commit: commit.sequence)
            state.sequence = commit.sequence
            state.digest = commit.digest
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded = Array(try encoder.encode(state))
        try lmdb(entity: "replica") { try raw.put(encoded, forKey: ReplicaState.catalogKey, in: store.catalog) }
        return state.sequence
    }

    /// Makes the replica's entities what the primary's catalog entries of one commit say. An
    /// entity is known by its records database, which keeps its name through renames
    /// (``WriteTransaction/renameEntity(_:to:)``): an entry whose records database a replica entity
    /// of another name holds renames that entity, and every rename of the commit is made before any
    /// entity is created, so names swapped or taken again in the same commit land where the
    /// primary has them. An entry of a new records database creates the entity with that database
    /// (the name the primary gave it). Then each entity takes its entry: its field table whole
    /// (field ids are the primary's, which the records' bytes use) and its indexes, built or
    /// dropped to match from the records this replica holds.
    private func applySchemas(_ entries: [LoggedChange], commit: UInt64) throws {
        guard !entries.isEmpty else { return }
        let schemas = try entries.map { change in
            let schema: EntitySchema
            do { schema = try EntitySchema(catalogEntry: change.bytes ?? []) } catch {
                throw StrataError(.corruptRecord, "commit \(commit): the schema entry of \(change.entity) is unreadable", entity: change.entity, cause: error)
            }
            guard schema.name == change.entity else {
                throw StrataError(.corruptRecord, "commit \(commit): the schema entry of \(change.entity) describes '\(schema.name)'", entity: change.entity)
            }
            try checkReplicated(schema: schema, commit: commit)
            return schema
        }
        // The last entry of an entity wins (a commit saves each entity once, but a feed may repeat one).
        var latest: [String: EntitySchema] = [:]
        for schema in schemas { latest[schema.name] = schema }
        guard Set(latest.values.map(\.recordsDatabase)).count == latest.count else {
            throw StrataError(.invalidValue, "commit \(commit): two schema entries claim one records database")
        }
        let holders = try entitiesByRecordsDatabase()
        var moves: [(EntityContext, String)] = []
        for schema in latest.values.sorted(by: { $0.name < $1.name }) {
            guard let holder = holders[schema.recordsDatabase], holder.name != schema.name else { continue }
            try checkReplicatedRename(of: holder.schema, to: schema, commit: commit)
            moves.append((holder, schema.name))
        }
        try renameCatalogEntities(moves)
        for schema in latest.values.sorted(by: { $0.name < $1.name }) {
            let context: EntityContext
            if let existing = try self.context(named: schema.name) {
                guard existing.schema.recordsDatabase == schema.recordsDatabase else {
                    throw StrataError(.replicaSourceMismatch,
                        "commit \(commit): the primary's \(EntityDescription.visible(schema.name)) keeps its records in \(schema.recordsDatabase), the replica's in \(existing.schema.recordsDatabase), and the commit renames neither: the replica is not at the primary's schema; nothing of it was applied (start the replica anew in an empty directory)",
                        entity: schema.name)
                }
                context = existing
            } else {
                do {
                    context = try createEntity(named: schema.name, primaryKey: schema.primaryKey, primaryKeyKind: schema.primaryKeyKind ?? .other,
                                               recordsDatabase: schema.recordsDatabase)
                } catch let error as StrataError {
                    throw StrataError(error.code, "commit \(commit): the schema entry of \(EntityDescription.visible(schema.name)): \(error.message)", entity: schema.name)
                }
            }
            var adopted = schema
            adopted.indexes = context.schema.indexes   // built below, from the records this replica holds
            adopted.fullTextIndexes = context.schema.fullTextIndexes   // likewise
            context.schema = adopted
            context.indexMaintainer = nil
            context.needsSaving = true
            if schema.description != nil {   // the fields of a described entity are known: its indexes name them
                do throws(StrataError) {
                    try knownFields(of: context).check(index: schema.indexes.flatMap { index in index.fields.map(\.path) })
                } catch {
                    throw StrataError(.invalidValue, "commit \(commit): the schema entry of \(schema.name): \(error.message)", entity: schema.name, field: error.field)
                }
            }
            try migrate(context, to: schema.indexes) { toBuild in try buildIndexes(toBuild, context) }
            try migrateTextIndexes(schema.fullTextIndexes, context) { knownFields(of: context) }
        }
    }

    /// The replica's entities, those of its catalog and those created in this transaction, by
    /// their records databases.
    private func entitiesByRecordsDatabase() throws -> [String: EntityContext] {
        var names = Set(try catalogEntityNames())
        names.formUnion(contexts.keys)
        var holders: [String: EntityContext] = [:]
        for name in names {
            guard let context = try context(named: name) else { continue }
            holders[context.schema.recordsDatabase] = context
        }
        return holders
    }

    /// Applies the record changes of one commit in order, each run of changes to one entity with
    /// its index changes batched as imports batch them (the index maintainer's batching mode, ``IndexMaintainer/HeldChanges``); a `deleteAll` is applied
    /// on its own, with the entity's indexes complete.
    private func applyRecords(_ changes: [LoggedChange], commit: UInt64) throws {
        var start = changes.startIndex
        while start < changes.endIndex {
            let change = changes[start]
            guard change.operation != .schema else { start += 1; continue }
            let context = try replicatedContext(change.entity, commit: commit)
            guard change.operation != .deleteAll else {
                _ = try deleteAllRecords(context)
                start += 1
                continue
            }
            var end = start
            while end < changes.endIndex, changes[end].entity == change.entity,
                  changes[end].operation != .deleteAll, changes[end].operation != .schema { end += 1 }
            let check = try replicatedRecordCheck(for: context)
            try batchingIndexWrites(context) {
                for position in start..<end {
                    try applyRecord(changes[position], context, check, commit: commit)
                    try flushIndexBatchIfFull(context)
                }
            }
            start = end
        }
    }

    private func replicatedContext(_ entity: String, commit: UInt64) throws -> EntityContext {
        guard let context = try context(named: entity) else {
            throw StrataError(.notFound,
                "commit \(commit) changes \(entity), an entity the replica does not have: the entity existed before the source's log began, so start the replica from a backup of the source (strata backup) taken since",
                entity: entity)
        }
        return context
    }

    private func applyRecord(_ change: LoggedChange, _ context: EntityContext, _ check: ReplicatedRecordCheck, commit: UInt64) throws {
        switch change.operation {
        case .insert, .update:
            guard let bytes = change.bytes else {
                throw StrataError(.corruptRecord, "commit \(commit): the \(change.operation) of \(change.entity) with key \(describeStoredKey(change.key)) carries no record",
                                  entity: change.entity)
            }
            // Walks the record map whole (StoredRecord.check, on RecordCursor) before anything is written.
            try checkReplicated(record: bytes, key: change.key, context, check, commit: commit)
            try writeRecord(bytes, forKey: change.key, context, replacing: true) { describeStoredKey(change.key) }
        case .delete:
            try checkReplicated(key: change.key, context, commit: commit)
            try deleteRecord(forKey: change.key, context)
        case .deleteAll:
            _ = try deleteAllRecords(context)
        case .schema:
            break
        }
    }
}
