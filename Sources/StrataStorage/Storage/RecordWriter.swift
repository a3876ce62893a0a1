@_spi(Format) import StrataFormat
import LMDB

/// The record writer: the one path by which records databases change.
///
/// Typed writes (`insert`, `upsert`, `update`, `delete`, `deleteAll`), JSON imports
/// (`EntityWriter`), relationship edits (`editReference`) and delete rules all store, replace and
/// delete records here, and nowhere else: this file is the only one that calls LMDB's put or
/// delete on a records database. Each write
/// - adds the catalog's defaults (``EntitySchema/defaults``) for the fields the record lacks, so
///   that a write by a type, an import or a process that does not know a defaulted field stores
///   its default, as ``WriteTransaction/addField(_:to:default:)`` promises (not when replicating:
///   a replica stores the primary's bytes),
/// - checks the unique indexes before anything is written,
/// - appends without a search when the key is beyond the largest stored key (`MDB_APPEND`),
/// - leaves a record alone when its bytes would not change (``WriteTransaction/Outcome/unchanged``),
/// - keeps the indexes in step through the entity's ``IndexMaintainer``,
/// - notes the change, with the record's new bytes, for observers (``ChangeSet``),
/// - and appends it to the change log while the store keeps one (``ChangeLogWriter``).
extension WriteTransaction {
    /// What a writer knows of the stored record before it writes.
    package enum PriorRecord {
        /// Not looked up: the writer finds out in the same search that stores the record.
        case unknown
        /// The caller looked and found none.
        case absent
        /// The caller looked and found these bytes.
        case stored([UInt8])
    }

    /// The maintainer of `context`'s indexes, made again when the field ids change or the
    /// indexes do (``migrate(_:to:build:)``, the one place that changes them, forgets it).
    package func indexMaintainer(for context: EntityContext) throws -> IndexMaintainer {
        // `decoding.fields`, not `schema.fields`: read without an exclusivity check or a copy of the schema.
        if let cached = context.indexMaintainer, cached.transaction === self, cached.fieldCount == context.decoding.fields.count {
            return cached
        }
        let maintainer = try IndexMaintainer(self, context)
        context.indexMaintainer = maintainer
        return maintainer
    }

    /// The largest stored key of `context`'s records (empty when there is none), looked up once
    /// per transaction and kept up to date by the writes that append. Never smaller than the
    /// largest stored key, so a larger key is new.
    package func largestKey(of context: EntityContext) throws -> [UInt8] {
        if let known = context.largestKey { return known }
        let largest = try lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in try cursor.last() ? cursor.key : [] }
        }
        context.largestKey = largest
        return largest
    }

    /// Stores the record `bytes` under the stored primary key `key` of `context`'s entity.
    ///
    /// Without `replacing`, an existing record is left alone and the result is `.updated` (the
    /// caller decides whether that is an error). With it, a record whose bytes differ is replaced
    /// (`.updated`), one with the same bytes is left alone (`.unchanged`). `prior` is what the caller
    /// already knows of the stored record; `describeKey` names the record in errors.
    @discardableResult
    package func writeRecord(_ bytes: [UInt8], forKey key: [UInt8], _ context: EntityContext, replacing: Bool,
                     prior: PriorRecord = .unknown, describeKey: () -> String) throws -> Outcome {
        var bytes = bytes
        if !isReplicating, let filled = fillingDefaults(bytes, context) { bytes = filled }
        if case .stored(let old) = prior {
            if !replacing { return .updated }
            if OrderedKey.equal(old, bytes) { return .unchanged }
        }
        let maintainer = try indexMaintainer(for: context)
        let isIndexed = !maintainer.isEmpty
        if isIndexed, maintainer.hasUniqueIndexes { try maintainer.checkUnique(bytes, primaryKey: key, describeKey: describeKey) }
        let (outcome, old) = try putRecord(bytes, forKey: key, context, replacing: replacing, prior: prior)
        guard outcome != .unchanged, old != nil || outcome == .inserted else { return outcome }
        changes.note(context.name, key: key, bytes: bytes)
        if let changeLog {
            try lmdb(entity: "changelog") {
                try changeLog.append(outcome == .inserted ? .insert : .update, entity: context.name, key: key, bytes: bytes, in: raw)
            }
        }
        if isIndexed { try maintainer.update(old: old, new: bytes, primaryKey: key) }
        return outcome
    }

    /// `bytes` with the defaults of `context`'s entity added for the fields it lacks; nil when it
    /// lacks none (or is no map: the index maintainer or a reader reports that).
    private func fillingDefaults(_ bytes: [UInt8], _ context: EntityContext) -> [UInt8]? {
        let defaults = context.schema.defaults
        guard !defaults.isEmpty else { return nil }
        let fields = context.decoding.fields
        let reader = CBORReader(bytes: bytes)
        guard var cursor = try? RecordCursor(reader), let entries = try? cursor.entries(in: reader) else { return nil }
        let lacking = defaults.filter { name, _ in
            guard let id = fields.id(for: name) else { return true }
            return !entries.contains { $0.id == id }
        }
        guard !lacking.isEmpty, let (filled, table) = RecordDecoder.fillingDefaults(lacking, in: bytes, fields: fields) else { return nil }
        if table.count != fields.count {   // a default recorded before its field had an id
            context.schema.fields = table
            context.needsSaving = true
        }
        return filled
    }

    /// Puts `bytes` under `key`: appended when the key is beyond every stored key, otherwise in
    /// one search that also returns the stored value (unless `prior` gave it). Returns the
    /// replaced bytes with `.updated`; `.updated` with nil when not `replacing` and the key exists.
    private func putRecord(_ bytes: [UInt8], forKey key: [UInt8], _ context: EntityContext, replacing: Bool,
                       prior: PriorRecord) throws -> (Outcome, [UInt8]?) {
        try lmdb(entity: context.name) { () throws -> (Outcome, [UInt8]?) in
            switch prior {
            case .stored(let old):
                try raw.put(bytes, forKey: key, in: context.records)
                return (.updated, old)
            case .absent, .unknown:
                if OrderedKey.precedes(try largestKey(of: context), key) {
                    do {
                        try raw.put(bytes, forKey: key, in: context.records, options: .append)
                        context.largestKey = key
                        return (.inserted, nil)
                    } catch let error as LMDBError where error.isKeyExists {
                        context.largestKey = nil   // stale (a savepoint rolled back): look it up again next time
                    }
                }
                if case .absent = prior {
                    try raw.put(bytes, forKey: key, in: context.records)
                    return (.inserted, nil)
                }
                guard let old = try raw.putIfAbsent(bytes, forKey: key, in: context.records) else { return (.inserted, nil) }
                if !replacing { return (.updated, nil) }
                if OrderedKey.equal(old, bytes) { return (.unchanged, nil) }
                try raw.put(bytes, forKey: key, in: context.records)
                return (.updated, old)
            }
        }
    }

    /// Deletes the record stored under `key` of `context`'s entity, with its index entries, and
    /// notes the change; false when there is none. Delete rules are the caller's
    /// (``deleteStoredRecord(_:_:deleting:)`` applies them).
    @discardableResult
    package func deleteRecord(forKey key: [UInt8], _ context: EntityContext, prior: PriorRecord = .unknown) throws -> Bool {
        let maintainer = try indexMaintainer(for: context)
        var old: [UInt8]?
        switch prior {
        case .absent: return false
        case .stored(let bytes): old = bytes
        case .unknown:
            if !maintainer.isEmpty {
                old = try lmdb(entity: context.name) { try raw.value(forKey: key, in: context.records) }
                if old == nil { return false }
            }
        }
        if let old, !maintainer.isEmpty { try maintainer.update(old: old, new: nil, primaryKey: key) }
        let deleted = try lmdb(entity: context.name) { try raw.delete(key, in: context.records) }
        if deleted {
            changes.note(context.name, key: key, bytes: nil)
            if let changeLog {
                try lmdb(entity: "changelog") { try changeLog.append(.delete, entity: context.name, key: key, bytes: nil, in: raw) }
            }
        }
        return deleted
    }

    /// Deletes every record of `context`'s entity and every entry of its indexes and full-text
    /// indexes at once (the databases are emptied, not walked); returns how many records there were. Delete rules are
    /// the caller's.
    package func deleteAllRecords(_ context: EntityContext) throws -> Int {
        changes.note(context.name, key: nil)
        if let changeLog {
            try lmdb(entity: "changelog") { try changeLog.append(.deleteAll, entity: context.name, key: [], bytes: nil, in: raw) }
        }
        return try lmdb(entity: context.name) { () throws -> Int in
            let count = try raw.count(in: context.records)
            try raw.drop(context.records)
            for database in context.indexes.values { try raw.drop(database) }
            // The full-text indexes start anew: their held changes concern records now gone.
            for databases in context.textIndexes.values { for database in databases.all { try raw.drop(database) } }
            context.textBatches = [:]
            context.largestKey = nil
            return count
        }
    }
}
