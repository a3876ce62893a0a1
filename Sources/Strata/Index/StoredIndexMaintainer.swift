import LMDB

/// Keeps an entity's indexes in step from the stored bytes of its records, without a Swift type:
/// the index maintenance of JSON imports and of entities known only by an ``EntityDescription``.
///
/// Keys are computed from the field values in the CBOR record with the same order-preserving
/// encodings the typed ``IndexMaintainer`` applies to the Swift values, so either maintainer can
/// update an index the other wrote. That holds for the value kinds with a standard encoding
/// (integers, doubles, strings, dates, UUIDs, Bools, nil); ``canMaintain(_:)`` says whether an
/// index has only such fields.
///
/// A class, made once per transaction and schema (``WriteTransaction/storedMaintainer(for:)``):
/// a write passes one reference, and the buffers a record's keys are built in are reused from
/// record to record. Not for use on two threads at once, as its transaction.
final class StoredIndexMaintainer {
    let transaction: WriteTransaction
    let context: EntityContext
    let descriptors: [IndexDescriptor]
    /// The top-level fields the indexes read: one pass over a record finds them all.
    let selection: FieldSelection
    /// Per descriptor, the slot of each field in ``selection`` (StoredIndexMaintainer+Direct.swift).
    let directSlots: [[Int?]]
    let hasUniqueIndexes: Bool
    /// How many fields had ids when ``selection`` was made (ids are only ever added).
    let fieldCount: Int
    /// Per descriptor, its database (nil: not built, left alone), looked up once.
    private let databases: [Database?]
    /// Reused by ``update(old:new:primaryKey:)``: the field offsets of the old and new record and
    /// their keys in the index at hand.
    private var oldOffsets: [Int] = [], newOffsets: [Int] = []
    private var oldKey: [UInt8] = [], newKey: [UInt8] = []

    init(_ transaction: WriteTransaction, _ context: EntityContext, only descriptors: [IndexDescriptor]? = nil) {
        self.transaction = transaction
        self.context = context
        let descriptors = descriptors ?? context.schema.indexes
        self.descriptors = descriptors
        var names: [String] = []
        for descriptor in descriptors {
            for field in descriptor.fields where !names.contains(field.path[0]) { names.append(field.path[0]) }
        }
        selection = FieldSelection(names: names, fields: context.schema.fields)
        directSlots = Self.slots(of: descriptors, in: selection)
        hasUniqueIndexes = descriptors.contains { $0.isUnique }
        fieldCount = context.schema.fields.count
        databases = descriptors.map { context.indexes[$0.name] }
    }

    var isEmpty: Bool { descriptors.isEmpty }

    /// True when every field of `descriptor` holds values of a kind with a standard key encoding.
    static func canMaintain(_ descriptor: IndexDescriptor) -> Bool {
        descriptor.fields.allSatisfy { $0.kind != .other }
    }

    /// The full (uncut) index keys of the record `bytes` in `descriptor`: one, or one per distinct
    /// element for a multi-value index.
    /// The full (uncut) index keys of a record's field values in `descriptor`.
    static func keys(of fields: some FieldValues, _ descriptor: IndexDescriptor) -> [[UInt8]] {
        if descriptor.isMultiValue, let field = descriptor.fields.first {
            guard case .list(let elements)? = fields.value(at: field.path) else { return [] }
            var keys = Set<[UInt8]>()
            for element in elements {
                if let key = IndexKey.encode(element, kind: field.kind, collation: field.collation) { keys.insert(key) }
            }
            return keys.sorted { $0.lexicographicallyPrecedes($1) }
        }
        var key: [UInt8] = []
        for field in descriptor.fields {
            guard let part = IndexKey.encode(fields.value(at: field.path) ?? .null, kind: field.kind, collation: field.collation) else {
                return []
            }
            key.append(contentsOf: part)
        }
        return [key]
    }

    /// The indexed fields of the record `bytes`.
    func fieldValues(_ bytes: [UInt8]) throws -> SelectedFieldValues {
        var offsets: [Int] = []
        return try fieldValues(bytes, reusing: &offsets)
    }

    /// The indexed fields of the record `bytes`, with `offsets`' storage.
    private func fieldValues(_ bytes: [UInt8], reusing offsets: inout [Int]) throws -> SelectedFieldValues {
        do { return try selection.values(of: bytes, reusing: &offsets) } catch {
            throw StoredFieldValues.corrupt(entity: context.name, cause: error)
        }
    }

    /// Throws `.uniqueViolation` if storing `bytes` under `primaryKey` would give a unique index a
    /// second record. Runs before anything is written. nil in a single-field unique index never
    /// conflicts, as NULL in SQL.
    func checkUnique(_ bytes: [UInt8], primaryKey: [UInt8], describeKey: () -> String) throws {
        let unique = descriptors.filter(\.isUnique)
        guard !unique.isEmpty else { return }
        let fields = try fieldValues(bytes)
        for descriptor in unique {
            guard let database = context.indexes[descriptor.name] else { continue }
            for fullKey in Self.keys(of: fields, descriptor) where !IndexKey.isNilKey(fullKey, fields: descriptor.fields.count) {
                let key = IndexKey.stored(fullKey)
                for holder in try transaction.lmdb(entity: context.name, { try transaction.raw.duplicates(of: key, in: database) })
                    where holder != primaryKey {
                    if IndexKey.mayBeTruncated(key) {
                        // A cut key: compare the full keys of the other record.
                        guard let other = try transaction.lmdb(entity: context.name, { try transaction.raw.value(forKey: holder, in: context.records) }),
                              Self.keys(of: try fieldValues(other), descriptor).contains(fullKey) else { continue }
                    }
                    throw StrataError(.uniqueViolation,
                        "\(context.name): the unique index '\(descriptor.name)' already holds this value, for the record with key \(transaction.describeStoredKey(holder))",
                        entity: context.name, field: descriptor.name, key: describeKey())
                }
            }
        }
    }

    /// Applies one record change to every index: `old` nil for an insert, `new` nil for a delete.
    /// Keys present in both are left alone.
    func update(old: [UInt8]?, new: [UInt8]?, primaryKey: [UInt8]) throws {
        // The offsets' storage is reused: released by the values of the previous call, which are
        // gone, and not shared between the old and the new record.
        let oldFields = try old.map { try fieldValues($0, reusing: &oldOffsets) }
        let newFields = try new.map { try fieldValues($0, reusing: &newOffsets) }
        for (index, descriptor) in descriptors.enumerated() {
            guard let database = databases[index] ?? context.indexes[descriptor.name] else { continue }
            // The common case, one key per record built straight from the bytes: no arrays of keys.
            if let oldFields, !descriptor.isMultiValue,
               Self.appendDirectKey(oldFields, slots: directSlots[index], descriptor, to: &oldKey) {
                if let newFields, Self.appendDirectKey(newFields, slots: directSlots[index], descriptor, to: &newKey) {
                    try replaceEntry(of: primaryKey, old: oldKey, new: newKey, in: database, index: index)
                    continue
                }
                if newFields == nil {
                    try replaceEntry(of: primaryKey, old: oldKey, new: nil, in: database, index: index)
                    continue
                }
            } else if oldFields == nil, let newFields, !descriptor.isMultiValue,
                      Self.appendDirectKey(newFields, slots: directSlots[index], descriptor, to: &newKey) {
                try replaceEntry(of: primaryKey, old: nil, new: newKey, in: database, index: index)
                continue
            }
            let oldKeys = oldFields.map { storedKeys(of: $0, index) } ?? []
            let newKeys = newFields.map { storedKeys(of: $0, index) } ?? []
            if context.indexBatch != nil {
                context.indexBatch!.note(replacing: oldKeys, with: newKeys, of: primaryKey, index: descriptor.name)
                continue
            }
            try transaction.lmdb(entity: context.name) {
                try transaction.raw.replaceIndexEntries(of: primaryKey, old: oldKeys, new: newKeys, in: database)
            }
        }
    }

    /// Moves the entry of `primaryKey` from the full key `old` to the full key `new` (nil: none),
    /// both cut to the stored length here; nothing when they are equal.
    private func replaceEntry(of primaryKey: [UInt8], old: [UInt8]?, new: [UInt8]?, in database: Database, index: Int) throws {
        if old == new { return }
        let storedOld = old.map(IndexKey.stored), storedNew = new.map(IndexKey.stored)
        if storedOld == storedNew { return }   // cut to the same stored key
        if context.indexBatch != nil {
            if let storedOld { context.indexBatch!.note(storedOld, primaryKey, adds: false, index: descriptors[index].name) }
            if let storedNew { context.indexBatch!.note(storedNew, primaryKey, adds: true, index: descriptors[index].name) }
            return
        }
        try transaction.lmdb(entity: context.name) {
            if let storedOld { _ = try transaction.raw.delete(storedOld, value: primaryKey, in: database) }
            if let storedNew { try transaction.raw.put(primaryKey, forKey: storedNew, in: database) }
        }
    }

    /// The stored (cut) keys of descriptor `index` for a record's selected `fields`.
    private func storedKeys(of fields: SelectedFieldValues, _ index: Int) -> [[UInt8]] {
        let descriptor = descriptors[index]
        if let key = Self.directKey(fields, slots: directSlots[index], descriptor) { return [IndexKey.stored(key)] }
        return Self.keys(of: fields, descriptor).map(IndexKey.stored)
    }
}
