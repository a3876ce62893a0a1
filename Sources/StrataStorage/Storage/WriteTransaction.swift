import Foundation
import LMDB

/// The store's write transaction, valid inside the `write` closure that received it.
///
/// Everything it does becomes visible to others at once when the closure returns, and not at all
/// when the closure throws. It reads its own writes.
public final class WriteTransaction: ReadTransaction {
    /// What a write did to the stored record.
    public enum Outcome: Sendable, Equatable {
        /// No record had this key.
        case inserted
        /// A record with this key was replaced by different bytes.
        case updated
        /// A record with this key held exactly these bytes already; nothing was written.
        case unchanged
    }

    /// What this transaction changed, for observers (see ``ChangeSet``), noted by the record writer.
    // Exclusivity: every access is a short one made by this transaction's own code (a note, a
    // merge of a savepoint's changes, a read at the commit), none spanning a call into other code,
    // so accesses cannot overlap; the runtime check would run on every record written.
    @exclusivity(unchecked) package var changes = ChangeSet()
    /// The change log's writer while the store logs changes (shared with savepoints), set when
    /// the transaction begins (``prepareWrite(replicating:)``).
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var changeLog: ChangeLogWriter?
    /// The change log's database, opened by this transaction: published to the store once it commits.
    private(set) var openedChangeLog: Database?
    /// This transaction applies a primary's change log: records are written as the primary wrote them.
    private(set) var isReplicating = false
    /// The migrations this transaction knows when not the store's: those of the migrator running in it.
    var migrationsKnown: [String]?
    /// The store's migration history was found known to this transaction (``checkKnownHistory(writing:)``).
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) var historyChecked = false
    /// Open in-place savepoints, during which held full-text changes are not written
    /// (``inPlaceSavepoint(_:)`` cuts them back on a throw).
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var textFlushHolds = 0

    /// Refuses a program's write to a replica, and looks up whether the store logs changes (the
    /// catalog's `replica` and `changelog` entries, which another process may have written since);
    /// when it does, prepares this transaction's log writer. A replica keeps no log of its own.
    package func prepareWrite(replicating: Bool) throws {
        isReplicating = replicating
        if !replicating, try lmdb(entity: "replica", { try raw.contains(ReplicaState.catalogKey, in: store.catalog) }) {
            throw StrataError(.readOnlyReplica,
                "the store at \(store.path) is a replica: it takes changes only from its primary's change log (Store.applyChanges, strata replicate)")
        }
        guard !replicating,
              let stored = try lmdb(entity: "changelog", { try raw.value(forKey: ChangeLogFormat.catalogKey, in: store.catalog) }) else {
            changeLog = nil
            return
        }
        let retention: ChangeLogRetention
        do { retention = try JSONDecoder().decode(ChangeLogRetention.self, from: Data(stored)) } catch {
            throw StrataError(.incompatibleStore, "the catalog's change log entry is unreadable", cause: error)
        }
        var database = store.published.withLockWakingNone { $0.changeLog }
        if database == nil {
            database = try lmdb(entity: "changelog") { try raw.openDatabase(ChangeLogFormat.databaseName, options: .create) }
            openedChangeLog = database
        }
        changeLog = ChangeLogWriter(database: database!, retention: retention)
    }

    /// At the commit: finishes the log's entry for this transaction (see ``ChangeLogWriter/finish(in:catalog:now:)``).
    package func finishChangeLog() throws -> UInt64? {
        guard let changeLog else { return nil }
        return try lmdb(entity: "changelog") { try changeLog.finish(in: raw, catalog: store.catalog) }
    }

    /// The entity of `type`, created in the store when it has none yet.
    package func writableContext<T: Record>(for type: T.Type) throws -> EntityContext {
        try checkKnownHistory(writing: store.entityName(of: type))   // before an entity is created
        let context = try existingOrNewContext(for: type)
        try migrateIndexes(type, context)
        return context
    }

    private func existingOrNewContext<T: Record>(for type: T.Type) throws -> EntityContext {
        if let context = try context(for: type) { return context }
        let context = try createEntity(named: store.entityName(of: type), primaryKey: store.primaryKeyName(of: type),
                                           primaryKeyKind: ValueKind(T.PrimaryKey.self))
        typedContexts[ObjectIdentifier(type)] = context
        return context
    }

    /// Creates an entity that the store does not have yet: its records database and its schema,
    /// saved into the catalog at the commit. The records database is `records/<name>`, or, when
    /// that exists (an entity of that name was renamed and kept its databases), `records/<name>~2`
    /// and so on; a replica passes the name its primary chose (`recordsDatabase`), which must not
    /// exist yet.
    package func createEntity(named name: String, primaryKey: String, primaryKeyKind: ValueKind, recordsDatabase: String? = nil) throws -> EntityContext {
        var database = recordsDatabase ?? EntitySchema.recordsDatabaseName(for: name)
        try checkDatabaseName(database, entity: name)
        if let recordsDatabase {
            guard recordsDatabase.hasPrefix(EntitySchema.recordsDatabaseName(for: "")),
                  try lmdb(entity: name, { try raw.openDatabase(recordsDatabase) }) == nil else {
                throw StrataError(.invalidValue, "the entity \(EntityDescription.visible(name)) cannot take the records database \(EntityDescription.visible(recordsDatabase)): it is no records database name, or the store has it already",
                                  entity: name)
            }
        }
        var suffix = 1
        while try lmdb(entity: name, { try raw.openDatabase(database) }) != nil {
            suffix += 1
            database = EntitySchema.recordsDatabaseName(for: "\(name)~\(suffix)")
            try checkDatabaseName(database, entity: name)
        }
        let schema = EntitySchema(name: name, primaryKey: primaryKey, recordsDatabase: database, fields: FieldTable(),
                                  primaryKeyKind: primaryKeyKind)
        let records = try lmdb(entity: name) { try raw.openDatabase(schema.recordsDatabase, options: .create) }
        guard let records else { preconditionFailure("mdb_dbi_open with MDB_CREATE returned no database") }
        let context = EntityContext(schema: schema, catalogBytes: [], records: records, indexes: [:])
        context.needsSaving = true
        contexts[name] = context
        store.configuration.logger.info("created entity", metadata: ["entity": "\(name)", "path": "\(store.path)"])
        return context
    }

    /// Encodes `record`, noting new field ids in the entity's schema.
    private func encode<T: Record>(_ record: T, _ context: EntityContext) throws -> [UInt8] {
        let known = context.schema.fields.count
        if !context.encoder.isMade(for: T.self) {
            var encoder = RecordEncoder(for: T.self)
            encoder.refusesUnstorableDates = true
            context.encoder = encoder
        }
        let bytes = try context.encoder.encode(record, fields: &context.schema.fields, entity: context.name)
        if context.schema.fields.count != known { context.needsSaving = true }
        return bytes
    }

    /// Writes changed schemas into the catalog; runs just before the commit.
    /// At the commit, before the catalog is saved: takes again the statistics of each index of the
    /// entities this transaction used that keeps them (``IndexKeyStatistics``) and whose entry count
    /// has drifted from theirs, or that has none yet, and drops those of indexes that are gone or
    /// too small. A replica keeps its primary's, which come with its schema entries.
    package func refreshIndexStatistics() throws {
        guard !isReplicating else { return }
        for context in contexts.values {
            let schema = context.schema
            let kept = schema.indexes.filter { IndexKeyStatistics.kept(for: $0, in: schema) }
            // Most entities: no index keeps statistics and none are stored; nothing to do.
            if kept.isEmpty, schema.statistics.isEmpty { continue }
            var statistics = schema.statistics.filter { entry in schema.indexes.contains { $0.name == entry.key } }
            for descriptor in kept {
                guard let database = context.indexes[descriptor.name] else { continue }
                let entries = try entryCount(of: database, entity: context.name)
                if let current = statistics[descriptor.name], current.fields == descriptor.fields, current.isCurrent(entries: entries) {
                    continue
                }
                statistics[descriptor.name] = entries < IndexKeyStatistics.minimumEntries ? nil
                    : try lmdb(entity: context.name) { try IndexKeyStatistics.take(of: database, fields: descriptor.fields, in: self) }
            }
            if statistics != schema.statistics {
                context.schema.statistics = statistics
                context.needsSaving = true
            }
        }
    }

    package func saveCatalogChanges() throws {
        for context in contexts.values where context.needsSaving {
            context.catalogBytes = try lmdb(entity: context.name) {
                try Catalog.save(context.schema, in: raw, catalog: store.catalog)
            }
            if let changeLog {
                try lmdb(entity: "changelog") {
                    try changeLog.append(.schema, entity: context.name, key: [], bytes: context.catalogBytes, in: raw)
                }
            }
            context.needsSaving = false
            context.needsPublishing = true
        }
    }

    // MARK: Writing

    /// Stores a new record; throws `.duplicateKey` when a record with its key exists.
    public func insert<T: Record>(_ record: T) throws {
        if try put(record, replacing: false) != .inserted {
            let name = store.entityName(of: T.self)
            throw StrataError(.duplicateKey, "\(name): a record with key \(record.primaryKeyValue) already exists",
                              entity: name, key: String(describing: record.primaryKeyValue))
        }
    }

    /// Stores new records; throws `.duplicateKey` at the first key that exists (and, as any throw,
    /// rolls back the whole transaction unless caught inside a savepoint).
    public func insert<T: Record>(_ records: some Sequence<T>) throws {
        try writeEach(records) { try insert($0) }
    }

    /// Stores `record`, replacing the record with the same key if there is one.
    /// A record whose bytes would not change is not rewritten and its indexes are not touched.
    @discardableResult
    public func upsert<T: Record>(_ record: T) throws -> Outcome {
        try put(record, replacing: true)
    }

    /// Stores every record, replacing existing ones with the same key.
    public func upsert<T: Record>(_ records: some Sequence<T>) throws {
        try writeEach(records) { _ = try upsert($0) }
    }

    /// Writes `records` one by one through `write`, their index changes batched (the index maintainer's batching mode, ``IndexMaintainer/HeldChanges``)
    /// from the second record on, once the entity exists.
    private func writeEach<T: Record>(_ records: some Sequence<T>, _ write: (T) throws -> Void) throws {
        var remaining = records.makeIterator()
        guard let first = remaining.next() else { return }
        try write(first)
        let context = try writableContext(for: T.self)
        try batchingIndexWrites(context) {
            while let record = remaining.next() {
                try write(record)
                try flushIndexBatchIfFull(context)
            }
        }
    }

    /// Replaces the stored record with the same key; throws `.notFound` when there is none.
    @discardableResult
    public func update<T: Record>(_ record: T) throws -> Outcome {
        let context = try writableContext(for: T.self)
        let key = try recordKey(record.primaryKeyValue, entity: context.name)
        guard try lmdb(entity: context.name, { try raw.contains(key, in: context.records) }) else {
            throw StrataError(.notFound, "\(context.name): no record with key \(record.primaryKeyValue) to update",
                              entity: context.name, key: String(describing: record.primaryKeyValue))
        }
        return try upsert(record)
    }

    /// Encodes `record` and stores it through the record writer (``writeRecord(_:forKey:_:replacing:prior:describeKey:)``),
    /// with the stored values of the fields `T` does not have (``fieldsUnknown(to:_:)``) kept.
    private func put<T: Record>(_ record: T, replacing: Bool) throws -> Outcome {
        let context = try writableContext(for: T.self)
        var bytes = try encode(record, context)
        let key = try recordKey(record.primaryKeyValue, entity: context.name)
        let unknown = fieldsUnknown(to: T.self, context)
        guard !unknown.isEmpty else {
            return try writeRecord(bytes, forKey: key, context, replacing: replacing) { String(describing: record.primaryKeyValue) }
        }
        let stored = try lmdb(entity: context.name) { try raw.value(forKey: key, in: context.records) }
        if let stored, replacing { bytes = try keeping(unknown, of: stored, in: bytes, context) { String(describing: record.primaryKeyValue) } }
        return try writeRecord(bytes, forKey: key, context, replacing: replacing, prior: stored.map { .stored($0) } ?? .absent) {
            String(describing: record.primaryKeyValue)
        }
    }

    /// Deletes the record with primary key `key`; returns false when there was none.
    @discardableResult
    public func delete<T: Record>(_ type: T.Type, key: T.PrimaryKey) throws -> Bool {
        guard let context = try context(for: type) else { return false }
        try migrateIndexes(type, context)
        let storedKey = try recordKey(key, entity: context.name)
        if try !incomingRelationships(of: context.name).isEmpty {
            var deleting = Set<[UInt8]>()
            return try deleteStoredRecord(storedKey, context, deleting: &deleting)
        }
        return try lmdb(entity: context.name, key: "\(key)") { try deleteRecord(forKey: storedKey, context) }
    }

    /// Deletes the stored record with `record`'s primary key; returns false when there was none.
    @discardableResult
    public func delete<T: Record>(_ record: T) throws -> Bool {
        try delete(T.self, key: record.primaryKeyValue)
    }

    /// Deletes the records with these keys; returns how many existed.
    @discardableResult
    public func delete<T: Record>(_ type: T.Type, keys: some Sequence<T.PrimaryKey>) throws -> Int {
        var deleted = 0
        for key in keys where try delete(type, key: key) { deleted += 1 }
        return deleted
    }

    /// Deletes every record of `type`; returns how many there were.
    @discardableResult
    public func deleteAll<T: Record>(_ type: T.Type) throws -> Int {
        guard let context = try context(for: type) else { return 0 }
        try migrateIndexes(type, context)
        if try !incomingRelationships(of: context.name).isEmpty {
            // Each record's delete rules apply: one by one.
            let keys = try lmdb(entity: context.name) {
                try raw.withCursor(context.records) { cursor in
                    var keys: [[UInt8]] = []
                    var more = try cursor.first()
                    while more { keys.append(cursor.key); more = try cursor.next() }
                    return keys
                }
            }
            var deleting = Set<[UInt8]>()
            var deleted = 0
            for key in keys where try deleteStoredRecord(key, context, deleting: &deleting) { deleted += 1 }
            return deleted
        }
        return try deleteAllRecords(context)
    }

    // MARK: Nesting

    /// Runs `body` as a savepoint: a throw undoes only what `body` wrote (and rethrows), a return
    /// keeps it as part of this transaction.
    ///
    /// ```swift
    /// try store.write { tx in
    ///     for user in users {
    ///         do { try tx.savepoint { try $0.insert(user) } } catch { skipped.append(user.id) }
    ///     }
    /// }
    /// ```
    public func savepoint<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        checkOpen()
        // The savepoint starts from the held full-text changes written, and writes its own before
        // it ends: a nested transaction that aborts takes them with it.
        try flushTextBatches()
        return try lmdb(entity: "savepoint") {
            try raw.savepoint { nested in
                let child = WriteTransaction(store: store, raw: nested)
                child.changes.isTracking = changes.isTracking
                child.changeLog = changeLog
                child.isReplicating = isReplicating
                child.migrationsKnown = migrationsKnown
                child.historyChecked = historyChecked
                child.contexts = contexts.mapValues { $0.copy() }
                child.typedContexts = typedContexts.compactMapValues { child.contexts[$0.name] }
                defer { child.invalidate() }
                let value = try body(child)
                try child.flushTextBatches()
                // What the savepoint learned (entities, field ids, indexes) holds only if it succeeds.
                contexts = child.contexts
                typedContexts = child.typedContexts
                changes.merge(child.changes)
                return value
            }
        }
    }

    /// Runs `body` with this transaction's writes going to a nested transaction, without new
    /// transaction objects (``LMDB/Transaction/inPlaceSavepoint(_:)``): a throw undoes what
    /// `body` wrote. Entities first opened inside are forgotten on a throw, since their database
    /// handles close with the nested transaction; `body` must not change schemas.
    package func inPlaceSavepoint<R>(_ body: () throws -> R) throws -> R {
        let known = Set(contexts.keys)
        let knownTypes = Set(typedContexts.keys)
        // Held full-text changes are cut back to here on a throw (and none are written inside).
        let textMarks = contexts.mapValues { $0.textBatches.mapValues(\.changes.count) }
        textFlushHolds += 1
        defer { textFlushHolds -= 1 }
        do {
            return try lmdb(entity: "savepoint") { try raw.inPlaceSavepoint(body) }
        } catch {
            for (name, marks) in textMarks {
                guard let context = contexts[name] else { continue }
                var kept: [String: TextIndexBatch] = [:]
                for (index, batch) in context.textBatches {
                    guard let mark = marks[index], mark > 0 else { continue }
                    var cut = batch
                    cut.changes.removeSubrange(mark...)
                    kept[index] = cut
                }
                context.textBatches = kept
            }
            contexts = contexts.filter { known.contains($0.key) }
            typedContexts = typedContexts.filter { knownTypes.contains($0.key) }
            relationshipsByTarget = [:]
            throw error
        }
    }
}
