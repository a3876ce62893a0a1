import Foundation
import LMDB

extension ReadTransaction {
    /// An untyped query over the records of the entity named `name`, to narrow with predicate
    /// format strings, order with sort strings and read as ``StoredRecord``s: what the
    /// command-line tool runs. The planner and executor are those of typed queries.
    ///
    /// Throws `.notFound` when the store has no such entity, listing the ones it has.
    public func query(entity name: String) throws -> QueryRequest<StoredRecord> {
        _ = try existingContext(named: name)
        return QueryRequest(transaction: self, entity: name)
    }

    /// The record of entity `name` whose primary key is `key`, or nil. `key` is converted to the
    /// entity's key kind (an integer given as text for an integer key, and so on); for a compound
    /// key, `.list` of one value per key field, in key order.
    public func record(entity name: String, key: QueryValue) throws -> StoredRecord? {
        let context = try existingContext(named: name)
        let storedKey = try storedPrimaryKey(key, context)
        guard let bytes = try storedBytes(forKey: storedKey, context) else { return nil }
        return try StoredRecord(key: storedKey, bytes: bytes, fields: context.schema.fields, entity: name)
    }

    /// The number of records of entity `name` (O(1)); 0 when there is no such entity.
    public func count(entity name: String) throws -> Int {
        guard let context = try context(named: name) else { return 0 }
        return try recordCount(context)
    }

    /// The context of `name`, or `.notFound` naming the entities there are.
    package func existingContext(named name: String) throws -> EntityContext {
        if let context = try context(named: name) { return context }
        let known = try entityNames()
        throw StrataError(.notFound, "the store has no entity '\(name)'; "
            + (known.isEmpty ? "it has none yet" : "it has \(known.joined(separator: ", "))"), entity: name)
    }
}

extension QueryRequest where Root == StoredRecord {
    /// Every matching record, in order.
    public func all() throws -> [StoredRecord] {
        var records: [StoredRecord] = []
        try forEach { records.append($0) }
        return records
    }

    /// Calls `body` with each matching record in order; memory stays flat.
    public func forEach(_ body: (StoredRecord) throws -> Void) throws {
        guard let context = try resolvedContext() else { return }
        try execute(query) { match in
            try body(try StoredRecord(key: match.key, bytes: match.bytes, fields: context.schema.fields, entity: entity))
            return true
        }
    }

    /// The stored primary keys of the matching records, in order; nothing is decoded.
    package func storedKeys() throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        try execute(query) { match in keys.append(match.key); return true }
        return keys
    }
}
