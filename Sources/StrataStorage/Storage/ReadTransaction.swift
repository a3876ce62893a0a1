@_spi(Format) import StrataFormat
import Foundation
import LMDB

/// A read-only view of the store, valid inside the `read` closure that received it.
///
/// Every read sees the snapshot of the transaction's start. Records come back as values:
/// decoded copies that may be kept and sent anywhere after the transaction ends.
public class ReadTransaction {
    package let store: Store
    @usableFromInline let raw: LMDB.Transaction
    /// Entities used in this transaction, by name: one context per entity, whether a record type
    /// or an ``EntityDescription`` reached it, so both see the same field ids and indexes.
    var contexts: [String: EntityContext] = [:]
    /// The same contexts by record type, so that typed calls skip the entity name lookup.
    package var typedContexts: [ObjectIdentifier: EntityContext] = [:] { didSet { lastTypedContext = nil } }
    /// The entry of `typedContexts` found last: a loop of reads of one type skips hashing. Forgotten
    /// whenever `typedContexts` changes.
    // Exclusivity: read and assigned whole, never passed inout, so accesses cannot overlap.
    @exclusivity(unchecked) private var lastTypedContext: (type: ObjectIdentifier, context: EntityContext)?
    /// The relationships that refer to each entity, read from the catalog once per transaction
    /// and forgotten when a relationship is declared (see ``incomingRelationships(of:)``).
    package var relationshipsByTarget: [String: [(holder: String, relationship: RelationshipDescriptor)]] = [:]
    // Exclusivity: read and assigned whole, never passed inout, so accesses cannot overlap.
    @exclusivity(unchecked) private var isOpen = true
    /// Set by the async `read` and `write` when their task is cancelled; queries check it.
    package var cancellation: CancellationFlag?
    /// How many times an index was read in this transaction to count or estimate the entries of a
    /// condition (`IndexProbe`'s bounded counts, and its interpolations between an index's first
    /// and last keys): what planning a kept plan spares, counted for tests.
    // Exclusivity: only incremented in place, never passed inout, so accesses cannot overlap.
    @exclusivity(unchecked) package var indexEstimateReads = 0
    /// Buffers for point reads' keys and values, kept between reads (see `takeSpareBuffer`).
    // Exclusivity: only ever swapped in and out by `takeSpareBuffer`/`returnSpareBuffers`, each an
    // access that ends before it returns, so accesses cannot overlap and need no runtime checks.
    @exclusivity(unchecked) private var spareBuffers: ([UInt8], [UInt8]) = ([], [])

    package init(store: Store, raw: LMDB.Transaction) {
        self.store = store
        self.raw = raw
    }

    /// The id of the commit this transaction reads (`mdb_txn_id`): what a follower compares with
    /// ``Store/lastTransactionID`` to know whether a newer commit may be read.
    package var snapshotID: Int { raw.id }

    package func invalidate() {
        isOpen = false
        // A cached maintainer refers to this transaction: a context kept past it must not keep
        // the transaction (and its store) alive.
        for context in contexts.values { context.indexMaintainer = nil }
    }

    @inline(__always)
    package func checkOpen() {
        precondition(isOpen, "Strata transaction used after the closure that received it returned")
    }

    /// The entity of `type` as this transaction sees it, or nil when the store has none.
    package func context<T: Record>(for type: T.Type) throws -> EntityContext? {
        checkOpen()
        if let last = lastTypedContext, last.type == ObjectIdentifier(type) { return last.context }
        if let context = typedContexts[ObjectIdentifier(type)] {
            lastTypedContext = (ObjectIdentifier(type), context)
            return context
        }
        let name = store.entityName(of: type)
        guard let context = try context(named: name) else { return nil }
        try checkPrimaryKey(of: type, against: context.schema)
        typedContexts[ObjectIdentifier(type)] = context
        return context
    }

    /// The entity named `name` as this transaction sees it, or nil when the store has none.
    package func context(named name: String) throws -> EntityContext? {
        checkOpen()
        if let context = contexts[name] { return context }
        guard let stored = try lmdb(entity: name, { try raw.value(forKey: Catalog.entityKey(name), in: store.catalog) }) else {
            return nil
        }
        let context: EntityContext
        if let known = store.published.withLockWakingNone({ $0.entities[name] }), OrderedKey.equal(known.catalogBytes, stored) {
            context = EntityContext(schema: known.schema, catalogBytes: stored, records: known.records, indexes: known.indexes,
                                    textIndexes: known.textIndexes)
        } else {
            // First use in this process, or another process changed the schema since.
            let schema: EntitySchema
            do { schema = try EntitySchema(catalogEntry: stored) } catch {
                throw StrataError(.incompatibleStore, "\(name): the catalog entry is unreadable", entity: name, cause: error)
            }
            guard let records = try lmdb(entity: name, { try raw.openDatabase(schema.recordsDatabase) }) else {
                throw StrataError(.incompatibleStore, "\(name): the catalog names the database '\(schema.recordsDatabase)', which is missing",
                                  entity: name)
            }
            var indexes: [String: Database] = [:]
            for index in schema.indexes {
                let databaseName = schema.indexDatabase(index.name)
                guard let database = try lmdb(entity: name, { try raw.openDatabase(databaseName) }) else {
                    throw StrataError(.incompatibleStore, "\(name): the catalog lists the index '\(index.name)', whose database is missing",
                                      entity: name)
                }
                indexes[index.name] = database
            }
            var textIndexes: [String: TextIndexDatabases] = [:]
            for index in schema.fullTextIndexes {
                guard let databases = try existingTextIndexDatabases(index.name, of: schema) else {
                    throw StrataError(.incompatibleStore, "\(name): the catalog lists the full-text index '\(index.name)', whose databases are missing",
                                      entity: name)
                }
                textIndexes[index.name] = databases
            }
            context = EntityContext(schema: schema, catalogBytes: stored, records: records, indexes: indexes, textIndexes: textIndexes)
            context.needsPublishing = true
        }
        contexts[name] = context
        try reconcileFolding(context)
        return context
    }

    package func checkPrimaryKey<T: Record>(of type: T.Type, against schema: EntitySchema) throws {
        let declared = store.primaryKeyName(of: type)
        guard declared == schema.primaryKey else {
            throw StrataError(.incompatibleStore,
                "\(schema.name): the store keys records by '\(schema.primaryKey)' but \(T.self) declares '\(declared)' as its primary key",
                entity: schema.name, field: declared)
        }
    }

    /// Runs LMDB calls, translating their errors with the entity and key named; other errors pass through.
    @inline(__always)
    package func lmdb<R>(entity: String? = nil, key: String? = nil, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as LMDBError {
            throw StrataError(error, path: store.path, entity: entity, key: key)
        }
    }

    /// Two buffers with the capacity of earlier reads (and their old contents). Buffers in use are not kept here, so a
    /// read nested in another (a type's `init(fields:)` reading more records) gets fresh ones.
    @inline(__always)
    package func takeSpareBuffers() -> ([UInt8], [UInt8]) {
        var buffers: ([UInt8], [UInt8]) = ([], [])
        swap(&buffers, &spareBuffers)
        // Not emptied here: users of the key buffer empty it, and `copyValue` replaces the value's bytes.
        return buffers
    }

    /// Keeps `buffers` for later reads.
    @inline(__always)
    package func returnSpareBuffers(_ buffers: inout ([UInt8], [UInt8])) {
        swap(&buffers, &spareBuffers)
    }

    /// The stored key of `key` (``PrimaryKeyEncoder``), checked against LMDB's key size limit.
    package func recordKey<K: IndexableValue>(_ key: K, entity: String) throws(StrataError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        try recordKey(key, entity: entity, into: &bytes)
        return bytes
    }

    /// Appends the stored key of `key` to `bytes` (empty), checked against LMDB's key size limit.
    @inline(__always)
    package func recordKey<K: IndexableValue>(_ key: K, entity: String, into bytes: inout [UInt8]) throws(StrataError) {
        PrimaryKeyEncoder.append(key, to: &bytes)
        try checkRecordKeySize(bytes.count, of: key, entity: entity)
    }

    /// Calls `body` with the stored key of `key`, checked against LMDB's key size limit and valid
    /// only during the call: an integer key on the stack, any other in `buffer`.
    @inline(__always)
    package func withRecordKey<K: IndexableValue, R>(_ key: K, entity: String, buffer: inout [UInt8],
                                             _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try PrimaryKeyEncoder.withBytes(of: key, buffer: &buffer) { bytes in
            try checkRecordKeySize(bytes.count, of: key, entity: entity)
            return try body(bytes)
        }
    }

    /// Throws `.invalidValue` when the stored key of `key`, `count` bytes, is longer than LMDB takes.
    @inline(__always)
    private func checkRecordKeySize<K: IndexableValue>(_ count: Int, of key: K, entity: String) throws(StrataError) {
        guard count <= store.environment.maxKeySize else {
            throw StrataError(.invalidValue,
                "\(entity): the primary key \(String(describing: key).prefix(40))… encodes to \(count) bytes; LMDB keys are limited to \(store.environment.maxKeySize)",
                entity: entity, key: String(describing: key))
        }
    }

    /// Decodes stored bytes as `type`; `key` renders the primary key for messages, on failure only.
    package func decode<T: Record>(_ type: T.Type, _ bytes: [UInt8], _ context: EntityContext, key: () -> String) throws -> T {
        // The entity's decoder, made for this type once: its FieldCodable conformance is looked up then.
        if !context.decoder.isMade(for: T.self) { context.decoder = RecordDecoder(for: T.self) }
        let decoder = context.decoder
        let (entity, fields) = context.decoding
        do {
            return try decoder.decode(type, from: bytes, fields: fields, entity: entity, key: "")
        } catch {
            // The error path: decode again with the key rendered, so the message names it.
            return try decoder.decode(type, from: bytes, fields: fields, entity: entity, key: key())
        }
    }

    /// Renders a stored key for error messages.
    package func describeStoredKey<T: Record>(_ bytes: [UInt8], of type: T.Type) -> String {
        var position = 0
        if let key = try? T.PrimaryKey.readOrderedKey(from: bytes, at: &position) { return String(describing: key) }
        return bytes.hex
    }
}

@available(*, unavailable, message: "transactions are confined to the closure and thread that received them")
extension ReadTransaction: Sendable {}
