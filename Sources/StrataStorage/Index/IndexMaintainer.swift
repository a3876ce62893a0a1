import LMDB

/// The keys of one index whose fields have a custom key encoding (``ValueKind/other``: a type of
/// the program's own conforming to ``IndexableValue``), computed from a stored record's bytes by
/// decoding it as the record type that declared the index. Registered by that type's first
/// write in the process (``Store/registerCustomIndexKeys(_:)``).
package typealias CustomIndexKeys = @Sendable (_ transaction: ReadTransaction, _ context: EntityContext, _ record: [UInt8],
                                       _ primaryKey: [UInt8]) throws -> [[UInt8]]

/// Keeps one entity's indexes in step with its records: the only code that writes index entries,
/// and the only one that changes full-text indexes (their changes are held in a
/// ``TextIndexBatch`` and written as a segment, WriteTransaction+TextIndexes.swift).
///
/// Every index is an LMDB database with sorted duplicates: key = the index key, duplicates = the
/// encoded primary keys of the records that have it. A write therefore adds or removes single
/// entries and never rewrites a list that grows with the index.
///
/// One entry point, ``update(old:new:primaryKey:)``, takes the old and new stored bytes of a
/// record, whoever wrote it: typed writes, imports, relationship edits and deletes all reach it
/// through the record writer (Storage/RecordWriter.swift), and index builds through
/// ``WriteTransaction/buildIndexes(_:_:)``. Keys come from ``IndexKey/keys(of:slots:_:)``, or for
/// indexes with custom-encoded fields from the declaring record type (``CustomIndexKeys``).
/// Every entry change goes through one funnel, `writeEntry`: applied at once, or held during a
/// bulk write (its batching mode, ``HeldChanges``, IndexMaintainer+Batching.swift) and applied
/// sorted from there.
///
/// A class, made once per transaction and schema (``WriteTransaction/indexMaintainer(for:)``): a
/// write passes one reference, and the buffers a record's keys are built in are reused from
/// record to record. Not for use on two threads at once, as its transaction.
package final class IndexMaintainer {
    package let transaction: WriteTransaction
    package let context: EntityContext
    package let descriptors: [IndexDescriptor]
    /// The full-text indexes kept, with the field paths of each.
    package let textDescriptors: [FullTextIndexDescriptor]
    private let textPaths: [[[String]]]
    /// The top-level fields the indexes read: one pass over a record finds them all.
    package let selection: FieldSelection
    /// Per descriptor, the slot of each field in ``selection``.
    package let slots: [[Int?]]
    /// Per descriptor, its keys from the declaring record type when a field has a custom key
    /// encoding; nil for indexes keyed from the stored values.
    private let customKeys: [CustomIndexKeys?]
    package let hasUniqueIndexes: Bool
    /// How many fields had ids when ``selection`` was made (ids are only ever added).
    package let fieldCount: Int
    /// Per descriptor, its database (nil: not built, left alone), looked up once.
    private let databases: [Database?]
    /// Reused by ``update(old:new:primaryKey:)``: the field offsets of the old and new record and
    /// their keys in the index at hand.
    private var oldOffsets: [Int] = [], newOffsets: [Int] = []
    private var oldKey: [UInt8] = [], newKey: [UInt8] = []

    /// The maintainer of `descriptors` and `text` (all of the entity's indexes and full-text
    /// indexes when both are nil; when one is given, the other defaults to none). Throws
    /// `.invalidValue` when an index has a custom-encoded field and no record type that declares
    /// it has written in this process: its keys cannot be computed without that type.
    package init(_ transaction: WriteTransaction, _ context: EntityContext, only descriptors: [IndexDescriptor]? = nil,
         text: [FullTextIndexDescriptor]? = nil) throws {
        self.transaction = transaction
        self.context = context
        let all = descriptors == nil && text == nil
        let descriptors = descriptors ?? (all ? context.schema.indexes : [])
        self.descriptors = descriptors
        textDescriptors = text ?? (all ? context.schema.fullTextIndexes : [])
        textPaths = textDescriptors.map(\.fieldPaths)
        var names: [String] = []
        for descriptor in descriptors {
            for field in descriptor.fields where !names.contains(field.path[0]) { names.append(field.path[0]) }
        }
        for path in textPaths.joined() where !path.isEmpty && !names.contains(path[0]) { names.append(path[0]) }
        selection = FieldSelection(names: names, fields: context.schema.fields)
        slots = IndexKey.slots(of: descriptors, in: selection)
        customKeys = try descriptors.map { descriptor in
            guard !descriptor.hasStandardKeys else { return nil }
            guard let keys = transaction.store.customIndexKeys(entity: context.name, index: descriptor.name) else {
                throw StrataError(.invalidValue,
                    "\(context.name): the index '\(descriptor.name)' has a field whose Swift type encodes its own keys; write these records through their record type",
                    entity: context.name, field: descriptor.name)
            }
            return keys
        }
        hasUniqueIndexes = descriptors.contains { $0.isUnique }
        fieldCount = context.schema.fields.count
        databases = descriptors.map { context.indexes[$0.name] }
    }

    package var isEmpty: Bool { descriptors.isEmpty && textDescriptors.isEmpty }

    /// The indexed fields of the record `bytes`.
    package func fieldValues(_ bytes: [UInt8]) throws -> StoredFieldValues {
        var offsets: [Int] = []
        return try fieldValues(bytes, reusing: &offsets)
    }

    /// The indexed fields of the record `bytes`, with `offsets`' storage.
    private func fieldValues(_ bytes: [UInt8], reusing offsets: inout [Int]) throws -> StoredFieldValues {
        do { return try selection.values(of: bytes, reusing: &offsets) } catch {
            throw StoredFieldValues.corrupt(entity: context.name, cause: error)
        }
    }

    /// The full keys of descriptor `index` for the record `bytes` (whose selected fields are
    /// `fields`).
    private func fullKeys(_ index: Int, _ fields: StoredFieldValues, _ bytes: [UInt8], _ primaryKey: [UInt8]) throws -> [[UInt8]] {
        if let custom = customKeys[index] { return try custom(transaction, context, bytes, primaryKey) }
        return IndexKey.keys(of: fields, slots: slots[index], descriptors[index])
    }

    /// Throws `.uniqueViolation` if storing `bytes` under `primaryKey` would give a unique index a
    /// second record. Runs before anything is written, so a caught violation leaves no trace. nil
    /// in a single-field unique index never conflicts, as NULL in SQL.
    package func checkUnique(_ bytes: [UInt8], primaryKey: [UInt8], describeKey: () -> String) throws {
        guard hasUniqueIndexes else { return }
        var offsets: [Int] = []
        let fields = try fieldValues(bytes, reusing: &offsets)
        for (index, descriptor) in descriptors.enumerated() where descriptor.isUnique {
            guard let database = context.indexes[descriptor.name] else { continue }
            for fullKey in try fullKeys(index, fields, bytes, primaryKey) where !IndexKey.isNilKey(fullKey, fields: descriptor.fields.count) {
                let key = IndexKey.stored(fullKey)
                for holder in try transaction.holders(ofIndexKey: key, in: database, entity: context.name) where holder != primaryKey {
                    if IndexKey.mayBeTruncated(key) {
                        // A cut key: compare the full keys of the other record.
                        guard let other = try transaction.storedBytes(forKey: holder, context) else { continue }
                        var otherOffsets: [Int] = []
                        guard try fullKeys(index, try fieldValues(other, reusing: &otherOffsets), other, holder).contains(fullKey) else { continue }
                    }
                    throw StrataError(.uniqueViolation,
                        "\(context.name): the unique index '\(descriptor.name)' already holds \(Self.describe(fields, descriptor)), for the record with key \(transaction.describeStoredKey(holder))",
                        entity: context.name, field: descriptor.name, key: describeKey())
                }
            }
        }
    }

    /// The values of `descriptor`'s fields in a record, for messages: `'a@example.com'`, or
    /// `lastName 'Bluth', luckyNumber 7` for a compound index.
    private static func describe(_ fields: StoredFieldValues, _ descriptor: IndexDescriptor) -> String {
        func shown(_ field: IndexedField) -> String {
            switch fields.value(at: field.path) ?? .null {
            case .string(let text): "'\(text)'"
            case let value: value.plainDescription
            }
        }
        if descriptor.fields.count == 1, let only = descriptor.fields.first { return "the value \(shown(only))" }
        return "the values " + descriptor.fields.map { "\($0.path.joined(separator: ".")) \(shown($0))" }.joined(separator: ", ")
    }

    /// Applies one record change to every index: `old` nil for an insert, `new` nil for a delete.
    /// Keys present in both are left alone.
    package func update(old: [UInt8]?, new: [UInt8]?, primaryKey: [UInt8]) throws {
        // The offsets' storage is reused: released by the values of the previous call, which are
        // gone, and not shared between the old and the new record.
        let oldFields = try old.map { try fieldValues($0, reusing: &oldOffsets) }
        let newFields = try new.map { try fieldValues($0, reusing: &newOffsets) }
        for (index, descriptor) in descriptors.enumerated() {
            guard let database = databases[index] ?? context.indexes[descriptor.name] else { continue }
            // The common case, one key per record built straight from the bytes: no arrays of keys.
            if customKeys[index] == nil, !descriptor.isMultiValue {
                if let oldFields, IndexKey.appendDirectKey(oldFields, slots: slots[index], descriptor, to: &oldKey) {
                    if let newFields, IndexKey.appendDirectKey(newFields, slots: slots[index], descriptor, to: &newKey) {
                        try replaceEntry(of: primaryKey, old: oldKey, new: newKey, in: database, index: index)
                        continue
                    }
                    if newFields == nil {
                        try replaceEntry(of: primaryKey, old: oldKey, new: nil, in: database, index: index)
                        continue
                    }
                } else if oldFields == nil, let newFields,
                          IndexKey.appendDirectKey(newFields, slots: slots[index], descriptor, to: &newKey) {
                    try replaceEntry(of: primaryKey, old: nil, new: newKey, in: database, index: index)
                    continue
                }
            }
            let oldKeys = try old.map { try fullKeys(index, oldFields!, $0, primaryKey).map(IndexKey.stored) } ?? []
            let newKeys = try new.map { try fullKeys(index, newFields!, $0, primaryKey).map(IndexKey.stored) } ?? []
            let (removed, added) = IndexKey.moves(from: oldKeys, to: newKeys)
            for key in removed { try writeEntry(key, of: primaryKey, adds: false, in: database, index: index) }
            for key in added { try writeEntry(key, of: primaryKey, adds: true, in: database, index: index) }
        }
        if !textDescriptors.isEmpty { try updateText(oldFields, newFields, primaryKey: primaryKey) }
    }

    /// The full-text part of ``update(old:new:primaryKey:)``: a change of an index's field texts
    /// (or the record's arrival or removal) is noted in the transaction's batch of that index;
    /// a change that leaves them equal does nothing.
    private func updateText(_ old: StoredFieldValues?, _ new: StoredFieldValues?, primaryKey: [UInt8]) throws {
        for (index, descriptor) in textDescriptors.enumerated() {
            let newTexts = new.map { fields in textPaths[index].map { Self.text(fields, $0) } }
            if let old, let newTexts, textPaths[index].map({ Self.text(old, $0) }) == newTexts { continue }
            context.textBatches[descriptor.name, default: TextIndexBatch()].note(primaryKey, texts: newTexts)
            try transaction.flushTextBatchIfFull(descriptor.name, context)
        }
    }

    /// The text a record holds at `path`: a string field's value; nil for a missing field, `null`
    /// or a value of another kind (a full-text index reads text alone).
    private static func text(_ fields: StoredFieldValues, _ path: [String]) -> String? {
        guard case .string(let text)? = fields.value(at: path) else { return nil }
        return text
    }

    /// Moves the entry of `primaryKey` from the full key `old` to the full key `new` (nil: none),
    /// both cut to the stored length here; nothing when they are equal.
    private func replaceEntry(of primaryKey: [UInt8], old: [UInt8]?, new: [UInt8]?, in database: Database, index: Int) throws {
        if old == new { return }
        let storedOld = old.map(IndexKey.stored), storedNew = new.map(IndexKey.stored)
        if storedOld == storedNew { return }   // cut to the same stored key
        if let storedOld { try writeEntry(storedOld, of: primaryKey, adds: false, in: database, index: index) }
        if let storedNew { try writeEntry(storedNew, of: primaryKey, adds: true, in: database, index: index) }
    }

    /// Adds or removes the entry `key` → `primaryKey` of descriptor `index`: at once, or held while
    /// the entity's bulk write batches its index changes (``HeldChanges``, applied sorted by
    /// ``applyHeldChanges(_:_:)``).
    @inline(__always)
    private func writeEntry(_ key: [UInt8], of primaryKey: [UInt8], adds: Bool, in database: Database, index: Int) throws {
        if context.heldIndexChanges != nil {
            context.heldIndexChanges!.note(key, primaryKey, adds: adds, index: descriptors[index].name)
        } else if adds {
            try transaction.addIndexEntry(key, primaryKey: primaryKey, in: database, entity: context.name)
        } else {
            try transaction.removeIndexEntry(key, primaryKey: primaryKey, in: database, entity: context.name)
        }
    }
}

extension IndexDescriptor {
    /// True when every field holds values of a kind with a standard key encoding, so that its
    /// keys follow from the stored values alone.
    package var hasStandardKeys: Bool { fields.allSatisfy { $0.kind != .other } }
}
