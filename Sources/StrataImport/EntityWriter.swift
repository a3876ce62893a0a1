@_spi(Format) import StrataFormat
import LMDB

/// Writes mapped records of one entity in an import's write transaction: merges each with the
/// stored record and leaves unchanged ones alone; the record writer
/// (``WriteTransaction/writeRecord(_:forKey:_:replacing:prior:describeKey:)``) stores them, keeps
/// the indexes in step and notes the changes.
final class EntityWriter {
    let tx: WriteTransaction
    let context: EntityContext
    let description: EntityDescription
    let layout: RecordLayout
    let options: ImportOptions
    /// The primary key's position among the description's fields.
    let primaryKeyIndex: Int
    /// The position of each top-level field by name, looked up per record by reference checks.
    private let fieldIndexes: [String: Int]
    /// What this import did to the entity's records as related records of others
    /// (``ImportReport/related``).
    var counts = RelatedImportCounts()

    /// What writing one record did.
    enum Outcome {
        case inserted, updated, unchanged
        /// Left alone because the options turned inserts or updates off.
        case notInserted, notUpdated
    }

    init(_ tx: WriteTransaction, _ target: ImportTarget, _ options: ImportOptions) throws {
        self.tx = tx
        self.options = options
        let description = target.description
        self.description = description
        let context = try target.context(tx)
        self.context = context
        layout = RecordLayout(description, ids: context.schema.fields, defaults: context.schema.defaults)
        primaryKeyIndex = description.fields.firstIndex { $0.name == description.primaryKey } ?? 0
        fieldIndexes = Dictionary(description.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        _ = try tx.largestKey(of: context)
    }

    var name: String { context.name }

    /// The position of the top-level field `name` among the description's fields.
    func fieldIndex(_ name: String) -> Int? { fieldIndexes[name] }

    /// `tx.lmdb(entity:key:)`, with the key's text made only for an error.
    func lmdb<R>(_ mapped: RecordMapper.Mapped, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as LMDBError {
            throw StrataError(error, path: tx.store.path, entity: context.name, key: mapped.keyText)
        }
    }

    /// What the records database holds under a key.
    private enum Existing {
        case absent
        /// The mapped record would store exactly these bytes again.
        case unchanged
        case bytes([UInt8])
    }

    /// Stores `mapped` (its relationship members aside): inserted, merged into the stored
    /// record, or left alone when its bytes would not change.
    func store(_ mapped: RecordMapper.Mapped) throws -> Outcome {
        try checkReferences(mapped)
        let key = mapped.primaryKey
        // A key beyond the largest stored one is new: no search (payloads often come in key order).
        let isBeyondLargest = context.largestKey.map { OrderedKey.precedes($0, key) } ?? false
        // An unchanged record is recognised in the memory map, without copying or decoding it.
        let found = isBeyondLargest ? .absent : try tx.withStoredBytes(forKey: key, context) { bytes in
            layout.isUnchanged(mapped, stored: bytes) ? Existing.unchanged : .bytes(Array(bytes))
        } ?? .absent
        let stored: [UInt8]?
        switch found {
        case .unchanged: return .unchanged
        case .absent: stored = nil
        case .bytes(let bytes): stored = bytes
        }
        let bytes = try layout.encode(mapped, merging: stored, entity: context.name)
        if let stored {
            if stored == bytes { return .unchanged }
            guard options.updatesExisting else { return .notUpdated }
        } else if !options.insertsNew {
            return .notInserted
        }
        // The key's text only for an error, from its JSON value alone: a closure over `mapped`
        // would copy the whole record for every write.
        let keyValue = mapped.keyValue
        try tx.writeRecord(bytes, forKey: key, context, replacing: true, prior: stored.map { .stored($0) } ?? .absent) {
            RecordMapper.Mapped.keyText(of: keyValue)
        }
        return stored == nil ? .inserted : .updated
    }

    /// Deletes the stored record `key` (a sync's payload lacks it), applying the delete rules of
    /// the relationships that refer to it first.
    func delete(_ key: [UInt8]) throws {
        var deleting: Set<[UInt8]> = []
        try tx.deleteStoredRecord(key, context, deleting: &deleting)
    }
}
