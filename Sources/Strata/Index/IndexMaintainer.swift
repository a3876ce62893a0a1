import LMDB

/// Keeps one entity's indexes in step with its records, through the single entry point
/// ``update(old:new:primaryKey:)``, in the record's own write transaction.
///
/// Every index is an LMDB database with sorted duplicates: key = the index key, duplicates = the
/// encoded primary keys of the records that have it. A write therefore adds or removes single
/// entries and never rewrites a list that grows with the index (BoltHold's problem).
struct IndexMaintainer<Root: Record> {
    let transaction: WriteTransaction
    let context: EntityContext
    let definitions: [IndexDefinition<Root>]

    init(_ transaction: WriteTransaction, _ context: EntityContext, only definitions: [IndexDefinition<Root>]? = nil) {
        self.transaction = transaction
        self.context = context
        self.definitions = definitions ?? Root.maintainedIndexes
    }

    var isEmpty: Bool { definitions.isEmpty }
    // A closure, not `\.isUnique`: a key path literal on this generic type is instantiated at
    // run time on every call (`swift_getKeyPath`), which cost a tenth of every write.
    var hasUniqueIndexes: Bool { definitions.contains { $0.isUnique } }

    /// Throws `.uniqueViolation` if storing `record` under `primaryKey` would give a unique index a
    /// second record. nil in a single-field unique index never conflicts, as NULL in SQL. Runs before anything is written, so a caught violation leaves no trace.
    func checkUnique(_ record: Root, primaryKey: [UInt8]) throws {
        for definition in definitions where definition.isUnique {
            guard let database = context.indexes[definition.name] else { continue }
            for fullKey in definition.keys(record) where !IndexKey.isNilKey(fullKey, fields: definition.fields.count) {
                let key = IndexKey.stored(fullKey)
                let holders = try transaction.lmdb(entity: context.name) { try transaction.raw.duplicates(of: key, in: database) }
                for holder in holders where holder != primaryKey {
                    if IndexKey.mayBeTruncated(key) {
                        // A cut key: compare the full keys of the other record.
                        guard let other = try transaction.record(Root.self, storedKey: holder, context),
                              definition.keys(other).contains(fullKey) else { continue }
                    }
                    throw StrataError(.uniqueViolation,
                        "\(context.name): the unique index '\(definition.name)' already holds this value, for the record with key \(transaction.describeStoredKey(holder, of: Root.self))",
                        entity: context.name, field: definition.name, key: String(describing: record.primaryKeyValue))
                }
            }
        }
    }

    /// Applies one record change to every index: `old` nil for an insert, `new` nil for a delete.
    /// Keys present in both are left alone.
    func update(old: Root?, new: Root?, primaryKey: [UInt8]) throws {
        for definition in definitions {
            guard let database = context.indexes[definition.name] else { continue }
            let oldKeys = old.map { definition.keys($0).map(IndexKey.stored) } ?? []
            let newKeys = new.map { definition.keys($0).map(IndexKey.stored) } ?? []
            try transaction.lmdb(entity: context.name) {
                try transaction.raw.replaceIndexEntries(of: primaryKey, old: oldKeys, new: newKeys, in: database)
            }
        }
    }
}

extension LMDB.Transaction {
    /// Moves the index entries of the record `primaryKey` from the keys `old` to the keys `new`:
    /// removes the entries only in `old`, adds those only in `new`, leaves the rest
    /// (``IndexKey/moves(from:to:)``).
    func replaceIndexEntries(of primaryKey: [UInt8], old: [[UInt8]], new: [[UInt8]], in database: Database) throws {
        let (removed, added) = IndexKey.moves(from: old, to: new)
        for key in removed { try delete(key, value: primaryKey, in: database) }
        for key in added { try put(primaryKey, forKey: key, in: database) }
    }

    /// The values stored under exactly `key` in a database with sorted duplicates: in an index,
    /// the primary keys of the records holding that key.
    func duplicates(of key: [UInt8], in database: Database) throws -> [[UInt8]] {
        try withCursor(database) { cursor in
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
