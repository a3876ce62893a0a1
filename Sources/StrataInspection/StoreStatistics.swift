import Foundation
import LMDB

/// What a store holds and how much room it takes: `strata stats`.
public struct StoreStatistics: Sendable, Codable, Equatable {
    /// The store directory.
    public var path: String
    /// The memory map's current size, and the bytes of it in use (up to the last used page).
    public var mapSize: Int, usedBytes: Int
    /// Reader slots in use, and the most there may be.
    public var readers: Int, maxReaders: Int
    /// Per entity, sorted by name.
    public var entities: [EntityStatistics]
}

/// One entity's records and indexes.
public struct EntityStatistics: Sendable, Codable, Equatable {
    /// The entity's name.
    public var name: String
    /// The number of records.
    public var records: Int
    /// Bytes of the B-tree pages holding the records.
    public var bytes: Int
    /// Its indexes, sorted by name.
    public var indexes: [IndexStatistics]
    /// Its full-text indexes, in the order they were declared.
    public var fullTextIndexes: [FullTextIndexStatistics] = []
}

/// One full-text index's declaration, documents and size.
public struct FullTextIndexStatistics: Sendable, Codable, Equatable {
    /// The index as declared: its name, fields with their weights, stemming and stop words.
    public var declaration: FullTextIndexDescription
    /// The documents it holds: the entity's records with text in one of its fields.
    public var documents: Int
    /// The entries of its four databases (postings, documents, keys, deleted documents).
    public var entries: Int
    /// Bytes of its four databases' pages (LMDB's `mdb_stat`).
    public var bytes: Int
}

/// One index's entries and size.
public struct IndexStatistics: Sendable, Codable, Equatable {
    /// The index name, as `strata index list` shows it.
    public var name: String
    /// The number of index entries (a multi-value index has one per element).
    public var entries: Int
    /// Bytes of the index's pages: its B-tree's branch, leaf and overflow pages (LMDB's
    /// `mdb_stat`), plus the pages of the sub-databases LMDB keeps a key's many sorted duplicates
    /// in, which `mdb_stat` leaves out (``duplicateBytes``).
    public var bytes: Int
    /// Of ``bytes``, those of the duplicates' sub-databases: estimated from each key's number
    /// and size of values as LMDB lays them out (full pages), as LMDB reports no sizes for them.
    public var duplicateBytes: Int = 0
    /// The index is unique.
    public var unique: Bool
    /// The index has an entry per array element.
    public var multiValue: Bool
}

extension Store {
    /// Counts and sizes of every entity and index, read in one transaction.
    public func statistics() throws -> StoreStatistics {
        let entities = try read { tx in
            try tx.entityNames().map { name in
                let context = try tx.existingContext(named: name)
                let records = try tx.statistics(of: context.records, entity: name)
                let indexes = try context.schema.indexes.map { descriptor in
                    let database = context.indexes[descriptor.name]
                    let stats = try database.map { database in try tx.statistics(of: database, entity: name) }
                    let duplicates = try database.map { database in
                        try tx.withIndexCursor(database, entity: name) { try Self.duplicateBytes(in: database, $0, pageSize: stats?.pageSize ?? 4096) }
                    } ?? 0
                    return IndexStatistics(name: descriptor.name, entries: stats?.entries ?? 0, bytes: (stats?.bytes ?? 0) + duplicates,
                                           duplicateBytes: duplicates, unique: descriptor.isUnique, multiValue: descriptor.isMultiValue)
                }
                let fullText = try context.schema.fullTextIndexes.map { descriptor in
                    try Self.statistics(of: descriptor, context.schema, in: tx)
                }
                return EntityStatistics(name: name, records: records.entries, bytes: records.bytes, indexes: indexes,
                                        fullTextIndexes: fullText)
            }
        }
        let environment = environmentView
        let readers = environment.readers
        return StoreStatistics(path: path, mapSize: environment.mapSize, usedBytes: environment.usedBytes,
                               readers: readers.used, maxReaders: readers.max, entities: entities)
    }

    /// The documents, entries and bytes of the full-text index `descriptor` of `schema`'s entity; an
    /// index whose databases are not made yet holds nothing.
    private static func statistics(of descriptor: FullTextIndexDescriptor, _ schema: EntitySchema,
                                   in tx: ReadTransaction) throws -> FullTextIndexStatistics {
        var result = FullTextIndexStatistics(declaration: descriptor.declaration, documents: 0, entries: 0, bytes: 0)
        guard let databases = try tx.existingTextIndexDatabases(descriptor.name, of: schema) else { return result }
        for database in databases.all {
            let stats = try tx.statistics(of: database, entity: schema.name)
            result.entries += stats.entries
            result.bytes += stats.bytes
        }
        result.documents = Int(clamping: try StoredTextIndex(transaction: tx, databases: databases, entity: schema.name, descriptor: descriptor)
            .statistics().documentCount)
        return result
    }

    /// The bytes of the sub-databases holding sorted duplicates in `database`, estimated from
    /// LMDB's layout: a key's values stay inside its leaf node (counted by `mdb_stat`) while the
    /// node fits half a page; past that they move to a sub-database of their own, whose pages
    /// hold the values as nodes of 8 bytes of header plus the value (rounded up to even) and a
    /// 2-byte pointer each, in pages of `pageSize` less a 16-byte header.
    static func duplicateBytes(in database: Database, _ cursor: Cursor, pageSize: Int) throws -> Int {
        guard database.options.contains(.sortedDuplicates) else { return 0 }
        let usable = pageSize - 16
        let nodeLimit = (usable / 2) & ~1 - 2
        var pages = 0
        do {
            var more = try cursor.first()
            while more {
                let values = try cursor.duplicateCount()
                if values > 1 {
                    let node = (8 + cursor.value.count + 1) & ~1 + 2
                    if 8 + cursor.key.count + 16 + values * node > nodeLimit {
                        var level = (values * node + usable - 1) / usable
                        pages += level
                        // Branch pages above the leaves, each pointing at pages by their first value.
                        while level > 1 {
                            level = (level * node + usable - 1) / usable
                            pages += level
                        }
                    }
                }
                more = try cursor.nextKey()
            }
        }
        return pages * pageSize
    }
}
