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
    public var name: String
    public var records: Int
    /// Bytes of the B-tree pages holding the records.
    public var bytes: Int
    public var indexes: [IndexStatistics]
}

/// One index's entries and size.
public struct IndexStatistics: Sendable, Codable, Equatable {
    /// The index name, as `strata index list` shows it.
    public var name: String
    public var entries: Int
    public var bytes: Int
    public var unique: Bool
    public var multiValue: Bool
}

extension Store {
    /// Counts and sizes of every entity and index, read in one transaction.
    public func statistics() throws -> StoreStatistics {
        let entities = try read { tx in
            try tx.entityNames().map { name in
                let context = try tx.existingContext(named: name)
                let records = try tx.lmdb(entity: name) { try tx.raw.statistics(of: context.records) }
                let indexes = try context.schema.indexes.map { descriptor in
                    let stats = try context.indexes[descriptor.name].map { database in
                        try tx.lmdb(entity: name) { try tx.raw.statistics(of: database) }
                    }
                    return IndexStatistics(name: descriptor.name, entries: stats?.entries ?? 0, bytes: stats?.bytes ?? 0,
                                           unique: descriptor.isUnique, multiValue: descriptor.isMultiValue)
                }
                return EntityStatistics(name: name, records: records.entries, bytes: records.bytes, indexes: indexes)
            }
        }
        let readers = environment.readers
        return StoreStatistics(path: path, mapSize: environment.currentMapSize, usedBytes: environment.usedBytes,
                               readers: readers.used, maxReaders: readers.max, entities: entities)
    }
}
