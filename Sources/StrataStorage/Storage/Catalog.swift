import Foundation
import LMDB

/// The store's self-description, kept in the LMDB database named `catalog`.
///
/// | key                | value (JSON)                                                      |
/// |--------------------|-------------------------------------------------------------------|
/// | `format`           | `{"version": 1}`                                                  |
/// | `entity/<Name>`    | an ``EntitySchema``: field ids, primary key, records database     |
/// | `identity`         | the store's id and its change log's epoch (`StoreIdentity`)       |
///
/// JSON, not CBOR, so that `mdb_dump -p -s catalog` shows it to a person as it is. A store whose
/// format version is newer than this library's is refused, never rewritten.
package enum Catalog {
    /// The on-disk format this library writes and reads.
    package static let formatVersion = 1
    package static let databaseName = "catalog"
    package static let formatKey = Array("format".utf8)

    package static func entityKey(_ name: String) -> [UInt8] { Array("entity/\(name)".utf8) }

    /// The `format` entry: written by `JSONEncoder`, read by ``init(catalogEntry:)``.
    package struct Format: Encodable {
        package var version: Int

        /// The `format` entry `bytes`, read as the entities' entries are (``CatalogValue``).
        package init(catalogEntry bytes: [UInt8]) throws {
            let entry = try CatalogValue(document: bytes).object()
            self.init(version: try entry.required("version") { try $0.int() })
        }

        package init(version: Int) { self.version = version }
    }

    /// True when the store has a catalog with a format version (it was initialized before).
    package static func isInitialized(in txn: LMDB.Transaction) throws -> Bool {
        guard let catalog = try txn.openDatabase(databaseName) else { return false }
        return try txn.contains(formatKey, in: catalog)
    }

    /// Opens the catalog, writing the format version into a new store and refusing a newer one.
    package static func open(in txn: LMDB.Transaction, path: String) throws -> (Database, [String: EntitySchema]) {
        guard let catalog = try txn.openDatabase(databaseName, options: txn.isReadOnly ? [] : .create) else {
            throw StrataError(.incompatibleStore, "the store at \(path) has no catalog; open it once with write access to initialize it")
        }
        if let bytes = try txn.value(forKey: formatKey, in: catalog) {
            let format: Format
            do { format = try Format(catalogEntry: bytes) } catch {
                throw StrataError(.incompatibleStore, "the catalog of \(path) has an unreadable format entry", cause: error)
            }
            guard format.version <= formatVersion else {
                throw StrataError(.incompatibleStore,
                    "the store at \(path) has format version \(format.version), newer than the \(formatVersion) this version of Strata reads; upgrade Strata to open it")
            }
        } else {
            if try txn.count(in: catalog) > 0 {
                throw StrataError(.incompatibleStore, "the catalog of \(path) has entries but no format version")
            }
            guard !txn.isReadOnly else {
                throw StrataError(.incompatibleStore, "the store at \(path) is not initialized; open it once with write access")
            }
            // A new store's main database holds the catalog's own entry and nothing else; more
            // means an LMDB file another program wrote, which must not be adopted.
            if let main = try txn.openDatabase(nil), try txn.count(in: main) > 1 {
                throw StrataError(.incompatibleStore, "\(path) holds an LMDB environment that is not a Strata store (it has data but no catalog); it was left unchanged")
            }
            try txn.put(Array(try JSONEncoder().encode(Format(version: formatVersion))), forKey: formatKey, in: catalog)
            try StoreIdentity.ensure(in: txn, catalog: catalog)   // a new store's identity
        }
        return (catalog, try loadEntities(in: txn, catalog: catalog, path: path))
    }

    private static func loadEntities(in txn: LMDB.Transaction, catalog: Database, path: String) throws -> [String: EntitySchema] {
        let prefix = Array("entity/".utf8)
        var entities: [String: EntitySchema] = [:]
        try txn.withCursor(catalog) { cursor in
            var more = try cursor.seek(atLeast: prefix)
            while more {
                let key = cursor.key
                guard key.starts(with: prefix) else { break }
                do {
                    let schema = try EntitySchema(catalogEntry: cursor.value)
                    entities[schema.name] = schema
                } catch {
                    let name = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
                    throw StrataError(.incompatibleStore, "the catalog entry of entity '\(name)' in \(path) is unreadable",
                                      entity: name, cause: error)
                }
                more = try cursor.next()
            }
        }
        return entities
    }

    /// The names of the entities the catalog lists, in key order.
    package static func entityNames(in txn: LMDB.Transaction, catalog: Database) throws -> [String] {
        let prefix = Array("entity/".utf8)
        return try txn.withCursor(catalog) { cursor in
            var names: [String] = []
            var more = try cursor.seek(atLeast: prefix)
            while more, cursor.key.starts(with: prefix) {
                names.append(String(decoding: cursor.key.dropFirst(prefix.count), as: UTF8.self))
                more = try cursor.next()
            }
            return names
        }
    }

    /// Writes `schema` as its catalog entry and returns the bytes written.
    @discardableResult
    package static func save(_ schema: EntitySchema, in txn: LMDB.Transaction, catalog: Database) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = Array(try encoder.encode(schema))
        try txn.put(bytes, forKey: entityKey(schema.name), in: catalog)
        return bytes
    }
}
