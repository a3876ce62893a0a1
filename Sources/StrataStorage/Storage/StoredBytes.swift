import LMDB

/// Storage's reading interface for the layers above it (Index, Query, Relationships, Import,
/// Inspection, Observation): a record's stored bytes by key, record counts and walks, and index
/// databases, with LMDB's errors translated and the entity named. Code outside `Storage/` reads
/// and writes through these and the record writer (RecordWriter.swift), never through the raw
/// LMDB transaction (`raw`).
extension ReadTransaction {
    /// The names of the store's entities, sorted; in a write transaction, with those it created.
    public func entityNames() throws -> [String] {
        checkOpen()
        let stored = try catalogEntityNames()
        return Set(stored).union(contexts.keys).sorted()
    }

    // MARK: Catalog

    /// The names of the entities the catalog lists (without those this transaction created).
    package func catalogEntityNames() throws -> [String] {
        try lmdb(entity: nil) { try Catalog.entityNames(in: raw, catalog: store.catalog) }
    }

    // MARK: Records

    /// The stored bytes of the record `key` of `context`'s entity, or nil when there is none.
    package func storedBytes(forKey key: [UInt8], _ context: EntityContext) throws -> [UInt8]? {
        try lmdb(entity: context.name) { try raw.value(forKey: key, in: context.records) }
    }

    /// Lends the stored bytes of the record `key` to `body`, valid only during the call, without
    /// copying them; nil when there is none.
    package func withStoredBytes<R>(forKey key: [UInt8], _ context: EntityContext, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        try lmdb(entity: context.name) {
            try raw.withValue(forKey: key, in: context.records) { value in try value.withUnsafeBufferPointer(body) }
        }
    }

    /// True when a record is stored under `key`.
    package func hasRecord(forKey key: [UInt8], _ context: EntityContext) throws -> Bool {
        try lmdb(entity: context.name) { try raw.contains(key, in: context.records) }
    }

    /// How many records `context`'s entity holds (LMDB keeps the count: no walk).
    package func recordCount(_ context: EntityContext) throws -> Int {
        try lmdb(entity: context.name) { try raw.count(in: context.records) }
    }

    /// The smallest stored primary key of `context`'s entity, or nil when it has no records.
    package func firstRecordKey(_ context: EntityContext) throws -> [UInt8]? {
        try lmdb(entity: context.name) { try raw.withCursor(context.records) { cursor in try cursor.first() ? cursor.key : nil } }
    }

    /// Calls `body` with each stored record's primary key and bytes, in key order, until it
    /// returns false. `body` must not write to the entity's records.
    package func forEachStoredRecord(_ context: EntityContext, _ body: (_ key: [UInt8], _ bytes: [UInt8]) throws -> Bool) throws {
        try lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in
                var more = try cursor.first()
                while more, try body(cursor.key, cursor.value) { more = try cursor.next() }
            }
        }
    }

    /// Runs `body` with a cursor over `context`'s records, for walks that position themselves
    /// (ranges, seeks) or read in place.
    package func withRecordCursor<R>(_ context: EntityContext, _ body: (Cursor) throws -> R) throws -> R {
        try lmdb(entity: context.name) { try raw.withCursor(context.records, body) }
    }

    // MARK: Read loops

    /// Runs `body` with a cursor over a records or index database, for the read loops of the
    /// query layer, which run inside an `lmdb` funnel of their own.
    @inline(__always)
    package func withCursor<R>(_ database: Database, _ body: (Cursor) throws -> R) throws -> R {
        try raw.withCursor(database, body)
    }

    /// Replaces `buffer` with the stored bytes of `key` in `records` and returns true, or returns
    /// false when there is none (the query executor's per-candidate read, inside its funnel).
    /// Inlinable: the query layer calls it once per candidate.
    @inlinable
    package func copyStoredBytes(forKey key: UnsafeRawBufferPointer, in records: Database, into buffer: inout [UInt8]) throws -> Bool {
        try raw.copyValue(forKey: key, in: records, into: &buffer)
    }

    /// True when look-ups in `records` are worth prefetching: a database whose leaf pages span more
    /// than the processor's caches hold (LMDB's `Transaction.prefetches(_:)`).
    package func prefetchesStoredBytes(in records: Database) -> Bool {
        raw.prefetches(records)
    }

    /// Hints the processor to load the page of `records` that holds `key`, so that a
    /// ``copyStoredBytes(forKey:in:into:)`` of it soon after finds it in the caches; nothing
    /// when ``prefetchesStoredBytes(in:)`` is false.
    package func prefetchStoredBytes(forKey key: UnsafeRawBufferPointer, in records: Database) {
        raw.prefetchLeaf(for: key, in: records)
    }

    /// How many entries a database holds, inside an `lmdb` funnel.
    package func entryCount(in database: Database) throws -> Int {
        try raw.count(in: database)
    }

    // MARK: Index databases

    /// Runs `body` with a cursor over an index database of `entity`.
    package func withIndexCursor<R>(_ database: Database, entity: String, _ body: (Cursor) throws -> R) throws -> R {
        try lmdb(entity: entity) { try raw.withCursor(database, body) }
    }

    /// How many entries an index database holds.
    package func entryCount(of database: Database, entity: String) throws -> Int {
        try lmdb(entity: entity) { try raw.count(in: database) }
    }

    /// LMDB's page and entry counts of a database (records or index) of `entity`.
    package func statistics(of database: Database, entity: String) throws -> DatabaseStatistics {
        try lmdb(entity: entity) { try raw.statistics(of: database) }
    }

    /// True when an index database holds the entry `key` → `primaryKey`.
    package func hasIndexEntry(_ key: [UInt8], primaryKey: [UInt8], in database: Database, entity: String) throws -> Bool {
        try lmdb(entity: entity) {
            try raw.withCursor(database) { index in
                try index.seek(key: key, valueAtLeast: primaryKey) && index.key == key && index.value == primaryKey
            }
        }
    }

    /// The primary keys stored under exactly `key` in an index database.
    package func holders(ofIndexKey key: [UInt8], in database: Database, entity: String) throws -> [[UInt8]] {
        try lmdb(entity: entity) {
            try raw.withCursor(database) { cursor in
                var values: [[UInt8]] = []
                var more = try cursor.seek(exactly: key)
                while more {
                    values.append(cursor.value)
                    more = try cursor.nextDuplicate()
                }
                return values
            }
        }
    }
}

extension WriteTransaction {
    /// Adds the entry `key` → `primaryKey` to an index database of `entity`.
    package func addIndexEntry(_ key: [UInt8], primaryKey: [UInt8], in database: Database, entity: String) throws {
        try lmdb(entity: entity) { try raw.put(primaryKey, forKey: key, in: database) }
    }

    /// Removes the entry `key` → `primaryKey` from an index database of `entity`, if it is there.
    package func removeIndexEntry(_ key: [UInt8], primaryKey: [UInt8], in database: Database, entity: String) throws {
        _ = try lmdb(entity: entity) { try raw.delete(key, value: primaryKey, in: database) }
    }

    /// Opens (creating it) an index database of `entity`, with sorted duplicates. Throws
    /// `.invalidValue` when the name is longer than LMDB takes (its names are keys).
    package func openIndexDatabase(_ name: String, entity: String) throws -> Database {
        try checkDatabaseName(name, entity: entity)
        let database = try lmdb(entity: entity) { try raw.openDatabase(name, options: [.create, .sortedDuplicates]) }
        guard let database else { preconditionFailure("mdb_dbi_open with MDB_CREATE returned no database") }
        return database
    }

    /// Throws `.invalidValue` when the database name `name` is longer than LMDB's key limit (a
    /// database's name is a key of the main database): an index on long field names, or an
    /// entity with a long name, gets a message saying so rather than LMDB's `MDB_BAD_VALSIZE`.
    package func checkDatabaseName(_ name: String, entity: String) throws {
        let limit = store.environment.maxKeySize
        guard name.utf8.count > limit else { return }
        throw StrataError(.invalidValue, "\(entity): the database name '\(name.prefix(60))…' is \(name.utf8.count) bytes; LMDB names "
            + "databases by keys of at most \(limit) bytes, so use shorter entity, field or index names", entity: entity)
    }

    /// Opens (creating it) a plain scratch database, for bookkeeping of one operation.
    package func openScratchDatabase(_ name: String, entity: String) throws -> Database {
        let database = try lmdb(entity: entity) { try raw.openDatabase(name, options: .create) }
        guard let database else { preconditionFailure("mdb_dbi_open with MDB_CREATE returned no database") }
        return database
    }

    /// Empties a database (an index or a scratch database; records databases are emptied by the
    /// record writer). The handle stays valid.
    package func empty(_ database: Database, entity: String) throws {
        try lmdb(entity: entity) { try raw.drop(database) }
    }

    /// Runs `body` with a cursor over a database of `entity` that it may write (an index during a
    /// batched flush, a scratch database).
    func withWritableCursor<R>(_ database: Database, entity: String, _ body: (WritableCursor) throws -> R) throws -> R {
        try lmdb(entity: entity) { try raw.withWritableCursor(database, body) }
    }

    /// Notes `key` in a scratch database: true when it was not there yet. `appending` says the key
    /// sorts after every key noted so far (`MDB_APPEND`, no search); false when LMDB disagrees.
    package func noteScratchKey(_ key: [UInt8], in database: Database, appending: Bool, entity: String) throws -> Bool {
        try lmdb(entity: entity) { () throws -> Bool in
            if appending {
                do {
                    try raw.put([], forKey: key, in: database, options: .append)
                    return true
                } catch let error as LMDBError where error.isKeyExists {}
            }
            return try raw.putIfAbsent([], forKey: key, in: database) == nil
        }
    }

    /// True when `key` is noted in a scratch database.
    package func hasScratchKey(_ key: [UInt8], in database: Database, entity: String) throws -> Bool {
        try lmdb(entity: entity) { try raw.contains(key, in: database) }
    }
}
