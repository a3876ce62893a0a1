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

    /// Writes a consistent copy of the store into `destination` (a new or empty directory) while
    /// readers and a writer go on; `compact` leaves out free pages, so the copy can be smaller.
    /// The copy is a complete store: it opens and verifies on its own.
    ///
    /// Throws `.invalidPath` when `destination` is a file or a directory that is not empty.
    public func backup(to destination: String, compact: Bool = false) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw StrataError(.invalidPath, "the backup destination \(destination) is a file") }
            guard (try? files.contentsOfDirectory(atPath: destination))?.isEmpty ?? false else {
                throw StrataError(.invalidPath, "the backup destination \(destination) is not empty; back up into a new or empty directory")
            }
        } else {
            do {
                try files.createDirectory(atPath: destination, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StrataError(.invalidPath, "cannot create the backup directory \(destination): \(error.localizedDescription)",
                                  cause: error as NSError)
            }
        }
        do {
            try environment.copy(to: destination, compact: compact)
        } catch {
            try? files.removeItem(atPath: destination + "/data.mdb")
            throw StrataError(error, path: destination)
        }
        configuration.logger.info("backed up store", metadata: ["path": "\(path)", "to": "\(destination)", "compact": "\(compact)"])
    }
}
