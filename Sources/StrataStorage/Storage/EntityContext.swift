import LMDB

/// What the store has published about its entities: the state of the last commit this process
/// has seen, used to avoid re-reading the catalog in every transaction.
package struct PublishedState: Sendable {
    /// Entity names by record type, so `entityName` is computed once per type.
    package var names: [ObjectIdentifier: String] = [:]
    /// Primary key field names by record type: reading a key path's name is too
    /// costly for every transaction.
    var primaryKeyNames: [ObjectIdentifier: String] = [:]
    /// Entities by name.
    package var entities: [String: PublishedEntity] = [:]
    /// The keys of indexes with custom-encoded fields, by entity and index name, from the record
    /// types that declared them (``IndexMaintainer``).
    var customIndexKeys: [String: [String: CustomIndexKeys]] = [:]
    /// The change log's database handle, once a committed transaction opened it.
    package var changeLog: Database?
}

/// One entity as of a commit.
package struct PublishedEntity: Sendable {
    package var schema: EntitySchema
    /// The catalog entry's bytes; a transaction compares them with the stored entry to notice
    /// schema changes made by other processes.
    package var catalogBytes: [UInt8]
    package var records: Database
    /// The databases of the built indexes, by index name.
    package var indexes: [String: Database]
    /// The databases of the full-text indexes, by index name.
    package var textIndexes: [String: TextIndexDatabases] = [:]
}

/// One entity as one transaction sees it.
package final class EntityContext {
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var schema: EntitySchema { didSet { decoding = (schema.name, schema.fields) } }
    /// The schema's name and field table, what every record read needs: reading them here costs
    /// no exclusivity check (a read of `schema`, a class property, costs one).
    // Exclusivity: only ever assigned whole (in `schema`'s didSet and init) and read whole, never
    // passed inout, so accesses cannot overlap.
    @exclusivity(unchecked) package private(set) var decoding: (name: String, fields: FieldTable)
    package var catalogBytes: [UInt8]
    package let records: Database
    /// The databases of the built indexes (those in `schema.indexes`), by index name.
    package var indexes: [String: Database]
    /// The databases of the full-text indexes (those in `schema.fullTextIndexes`), by index name.
    package var textIndexes: [String: TextIndexDatabases]
    /// Full-text changes held until the commit (``TextIndexBatch``), by index name; never copied
    /// into a savepoint, which starts with them written.
    package var textBatches: [String: TextIndexBatch] = [:]
    /// The declared indexes were compared with the built ones in this (write) transaction.
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var indexesChecked = false
    /// The schema changed in this transaction (new entity, new field ids) and must be saved.
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var needsSaving = false
    /// Not yet known to the store's published state.
    var needsPublishing = false
    /// In a write transaction: a key at least as large as every stored key, once known. A new key
    /// above it is appended (`MDB_APPEND`: no B-tree search, full pages), the fast path of bulk
    /// loads whose keys ascend. Too large a value only costs speed, never correctness: LMDB refuses
    /// an append that is not at the end, and the write then takes the ordinary path.
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var largestKey: [UInt8]?
    /// Decodes this entity's records for single reads, made for the record type last read.
    // Exclusivity: read and assigned whole, never passed inout, so accesses cannot overlap.
    @exclusivity(unchecked) package var decoder = RecordDecoder()
    /// Encodes this entity's records in a write transaction, made for the record type last written.
    // Exclusivity: read and assigned whole, never passed inout, so accesses cannot overlap.
    @exclusivity(unchecked) package var encoder = RecordEncoder()
    /// The primary key kind read from the first stored key, for entities whose catalog entry
    /// predates ``EntitySchema/primaryKeyKind``.
    var observedKeyKind: ValueKind?
    /// The maintainer of the entity's indexes, made once per transaction and schema
    /// (see ``WriteTransaction/indexMaintainer(for:)``); never copied into a savepoint.
    // Exclusivity: per-transaction state of a thread-confined transaction, read and assigned whole or
    // mutated in place by its own code (never while another access to it is open), so accesses cannot
    // overlap; unchecked because `package` access leaves the dynamic check in every access.
    @exclusivity(unchecked) package var indexMaintainer: IndexMaintainer?
    /// Index changes held back during a bulk write (the index maintainer's batching mode,
    /// ``IndexMaintainer/HeldChanges``); never copied into a savepoint.
    var heldIndexChanges: IndexMaintainer.HeldChanges?
    /// The ids of the stored fields a record type lacks, for the field table they were found in
    /// (see ``WriteTransaction/fieldsUnknown(to:_:)``); never copied into a savepoint.
    var unknownFields: (type: ObjectIdentifier, fields: FieldTable, ids: [Int])?
    /// The description sampled from the stored records, for checking conditions (see
    /// ``ReadTransaction/fieldTypes(of:)``); never copied into a savepoint.
    package var sampledDescription: SampledDescription?

    package init(schema: EntitySchema, catalogBytes: [UInt8], records: Database, indexes: [String: Database],
         textIndexes: [String: TextIndexDatabases] = [:]) {
        self.schema = schema
        decoding = (schema.name, schema.fields)
        self.catalogBytes = catalogBytes
        self.records = records
        self.indexes = indexes
        self.textIndexes = textIndexes
    }

    package var name: String { decoding.name }

    /// An independent copy, for a savepoint: what the savepoint changes (new field ids, index
    /// migrations, the largest key) reaches the parent only if the savepoint succeeds.
    package func copy() -> EntityContext {
        let copy = EntityContext(schema: schema, catalogBytes: catalogBytes, records: records, indexes: indexes, textIndexes: textIndexes)
        copy.indexesChecked = indexesChecked
        copy.needsSaving = needsSaving
        copy.needsPublishing = needsPublishing
        copy.largestKey = largestKey
        return copy
    }

    package var published: PublishedEntity {
        PublishedEntity(schema: schema, catalogBytes: catalogBytes, records: records, indexes: indexes, textIndexes: textIndexes)
    }
}

extension Store {
    /// The entity name of `type`, computed once per type.
    package func entityName<T: Record>(of type: T.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = published.withLockWakingNone({ $0.names[id] }) { return name }
        let name = T.entityName
        precondition(!name.isEmpty && !name.contains("/"), "entity name '\(name)' must be non-empty and contain no '/'")
        published.withLockWakingNone { $0.names[id] = name }
        return name
    }

    /// The primary key field name of `type` (`Record.primaryKeyName`), computed once per type.
    package func primaryKeyName<T: Record>(of type: T.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = published.withLockWakingNone({ $0.primaryKeyNames[id] }) { return name }
        let name = T.primaryKeyName
        published.withLockWakingNone { $0.primaryKeyNames[id] = name }
        return name
    }

    /// The keys of the custom-encoded index `index` of `entity`, when a record type that declares
    /// it has written in this process.
    package func customIndexKeys(entity: String, index: String) -> CustomIndexKeys? {
        published.withLockWakingNone { $0.customIndexKeys[entity]?[index] }
    }

    /// Keeps the keys of `type`'s declared indexes with custom-encoded fields, for the index
    /// maintenance of writes that do not go through the type (imports, relationship edits, deletes
    /// by the tool). Once per type and process.
    package func registerCustomIndexKeys<T: Record>(_ type: T.Type, entity: String, _ definitions: [IndexDefinition<T>]) {
        let custom = definitions.filter { !$0.descriptor.hasStandardKeys }
        guard !custom.isEmpty else { return }
        published.withLockWakingNone { state in
            for definition in custom where state.customIndexKeys[entity]?[definition.name] == nil {
                state.customIndexKeys[entity, default: [:]][definition.name] = { transaction, context, bytes, primaryKey in
                    let record = try transaction.decode(T.self, bytes, context) { transaction.describeStoredKey(primaryKey, of: T.self) }
                    return definition.keys(record)
                }
            }
        }
    }

    /// Makes what a finished transaction learned about entities visible to later transactions.
    package func publish(_ transaction: ReadTransaction) {
        if let opened = (transaction as? WriteTransaction)?.openedChangeLog {
            published.withLockWakingNone { $0.changeLog = opened }
        }
        let changed = transaction.contexts.values.filter(\.needsPublishing)
        guard !changed.isEmpty else { return }
        published.withLockWakingNone { state in
            for context in changed { state.entities[context.name] = context.published }
        }
    }
}

/// The description of an entity sampled from its stored records, with the record and field
/// counts it was read at (kept in its ``EntityContext`` for one transaction); nil when nothing
/// could be sampled.
package struct SampledDescription {
    package let records: Int
    package let fields: Int
    package let description: EntityDescription?

    package init(records: Int, fields: Int, description: EntityDescription?) {
        self.records = records
        self.fields = fields
        self.description = description
    }
}
