import Foundation
import LMDB

/// The catalog's record of the migrations a store has run (``Migrator``), one entry each, and the
/// catalog edits of an entity rename.
///
/// | key                  | value (JSON)                                            |
/// |----------------------|---------------------------------------------------------|
/// | `migration/<order>`  | an ``AppliedMigration``: name, order (from 1), date     |
///
/// The order is written as eight decimal digits, so the entries sort in the order they ran.
extension Catalog {
    package static let migrationPrefix = Array("migration/".utf8)

    package static func migrationKey(_ order: Int) -> [UInt8] {
        let digits = String(order)
        return migrationPrefix + Array((String(repeating: "0", count: max(0, 8 - digits.count)) + digits).utf8)
    }
}

/// One migration a store has run, as its catalog records it.
public struct AppliedMigration: Codable, Sendable, Equatable {
    /// The name the migration was registered under.
    public var name: String
    /// Its place in the migrator's list, from 1.
    public var order: Int
    /// When its transaction committed (the time it began running, to the second).
    public var date: Date

    /// A record of the migration `name`, number `order` (from 1), run at `date`.
    public init(name: String, order: Int, date: Date) {
        self.name = name
        self.order = order
        self.date = date
    }
}

extension ReadTransaction {
    /// The migrations the store has run, in the order they ran. Throws `.incompatibleStore` for
    /// an unreadable entry.
    public func migrationHistory() throws -> [AppliedMigration] {
        checkOpen()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try lmdb(entity: "migration") {
            try raw.withCursor(store.catalog) { cursor in
                var applied: [AppliedMigration] = []
                var more = try cursor.seek(atLeast: Catalog.migrationPrefix)
                while more, cursor.key.starts(with: Catalog.migrationPrefix) {
                    do { applied.append(try decoder.decode(AppliedMigration.self, from: Data(cursor.value))) } catch {
                        throw StrataError(.incompatibleStore,
                            "the catalog entry '\(String(decoding: cursor.key, as: UTF8.self))' of \(store.path) is unreadable", cause: error)
                    }
                    more = try cursor.next()
                }
                return applied
            }
        }
    }
}

extension ReadTransaction {
    /// The key and value bytes of the last `migration/` entry (the migration that ran last), nil
    /// when the store has run none: one cursor move, so a write can tell cheaply whether the
    /// history is one it checked before (``WriteTransaction/checkKnownHistory(writing:)``).
    package func lastMigrationEntry() throws -> [UInt8]? {
        try lmdb(entity: "migration") {
            try raw.withCursor(store.catalog) { cursor -> [UInt8]? in
                // The first key after every `migration/` key ('0' follows '/'), then one back.
                let after = Array("migration0".utf8)
                guard try cursor.seek(atLeast: after) ? cursor.previous() : cursor.last(),
                      cursor.key.starts(with: Catalog.migrationPrefix) else { return nil }
                return cursor.key + cursor.value
            }
        }
    }
}

extension WriteTransaction {
    /// Records that `migration` ran, in this transaction (its catalog entry).
    package func noteMigration(_ migration: AppliedMigration) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let bytes = Array(try encoder.encode(migration))
        try lmdb(entity: "migration") { try raw.put(bytes, forKey: Catalog.migrationKey(migration.order), in: store.catalog) }
    }

    /// Moves the catalog entry of `context`'s entity to `newName`: the records database keeps its
    /// name, which the entry records (`recordsDatabase`), and the indexes' databases are named
    /// after it, so nothing but the entry is written. The entry is saved at the commit, under the
    /// new name. (A later entity of the old name gets other databases: `createEntity`.)
    package func renameCatalogEntity(_ context: EntityContext, to newName: String) throws {
        try renameCatalogEntities([(context, newName)])
    }

    /// Moves the catalog entries of several entities at once (``renameCatalogEntity(_:to:)``): every
    /// entity leaves its old name before any takes its new one, so names may be swapped or passed
    /// on. A new name held by an entity that does not move is refused, renaming nothing.
    package func renameCatalogEntities(_ moves: [(EntityContext, String)]) throws {
        guard !moves.isEmpty else { return }
        let moving = Set(moves.map { ObjectIdentifier($0.0) })
        guard Set(moves.map(\.1)).count == moves.count else {
            throw StrataError(.invalidValue, "two entities cannot take one name (\(moves.map(\.1).joined(separator: ", ")))")
        }
        for (_, newName) in moves {
            if let holder = try self.context(named: newName), !moving.contains(ObjectIdentifier(holder)) {
                throw StrataError(.invalidValue, "the store has an entity '\(newName)' already", entity: newName)
            }
        }
        for (context, _) in moves {
            let oldName = context.name
            _ = try lmdb(entity: oldName) { try raw.delete(Catalog.entityKey(oldName), in: store.catalog) }
            contexts[oldName] = nil
            store.published.withLockWakingNone { $0.entities[oldName] = nil }
        }
        for (context, newName) in moves {
            context.schema.name = newName
            contexts[newName] = context
            context.needsSaving = true
            context.needsPublishing = true
        }
        typedContexts = typedContexts.filter { entry in !moving.contains(ObjectIdentifier(entry.value)) }
        relationshipsByTarget = [:]
    }
}
