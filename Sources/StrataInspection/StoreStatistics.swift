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
                return EntityStatistics(name: name, records: records.entries, bytes: records.bytes, indexes: indexes)
            }
        }
        let environment = environmentView
        let readers = environment.readers
        return StoreStatistics(path: path, mapSize: environment.mapSize, usedBytes: environment.usedBytes,
                               readers: readers.used, maxReaders: readers.max, entities: entities)
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
