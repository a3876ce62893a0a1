import Foundation

/// Imports into an entity as the store holds it when the import's write transaction starts: its
/// stored description, field ids and mappings are taken inside that transaction, never from a
/// read made before it. An import queued behind a migration (another thread, another `Store`,
/// another process) therefore imports into the migrated schema, rather than writing back the
/// description it read before the migration ran (which would undo the migration's type changes
/// and new fields while the history still lists it).
///
/// ```swift
/// // `strata import` without a schema file: the stored entity, or the inferred one for a new entity.
/// let inferred = try EntityDescription.inferred(name: "User", fromJSONFile: path)
/// try store.importJSON(contentsOf: url, storedEntity: "User", otherwise: inferred)
/// ```
extension Store {
    /// Imports JSON `data` into the entity `name` as the store holds it when the import's write
    /// transaction starts (with ``ImportOptions/batchSize``, when each batch's starts).
    ///
    /// - Parameters:
    ///   - data: the JSON document.
    ///   - name: the entity to import into.
    ///   - primaryKey: when given, the stored entity must be keyed by these fields (field names or
    ///     their JSON keys, several separated by commas); otherwise the import throws
    ///     `.incompatibleStore` and writes nothing.
    ///   - description: what to create the entity with when the store has none at that moment
    ///     (its name must be `name`); nil: such an import throws `.notFound`.
    ///   - options: how to import, as for every import.
    @discardableResult
    public func importJSON(_ data: Data, storedEntity name: String, keyedBy primaryKey: String? = nil,
                           otherwise description: EntityDescription? = nil,
                           options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try runImport(.bytes(Array(data)), .stored(name, keyedBy: primaryKey, otherwise: description), options)
    }

    /// Imports the JSON file at `url` into the entity `name` as the store holds it when the
    /// import's write transaction starts (see ``importJSON(_:storedEntity:keyedBy:otherwise:options:)``).
    ///
    /// - Parameters:
    ///   - url: the JSON file, read in chunks.
    ///   - name: the entity to import into.
    ///   - primaryKey: when given, the key the stored entity must have (`.incompatibleStore` otherwise).
    ///   - description: what to create the entity with when the store has none then.
    ///   - options: how to import, as for every import.
    @discardableResult
    public func importJSON(contentsOf url: URL, storedEntity name: String, keyedBy primaryKey: String? = nil,
                           otherwise description: EntityDescription? = nil,
                           options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try runImport(.file(try Self.filePath(url)), .stored(name, keyedBy: primaryKey, otherwise: description), options)
    }
}

extension ImportTarget {
    /// The entity `name` as stored when the write transaction starts, resolved in it: the stored
    /// description, written as a described import writes (``described(_:)``), or `fallback` for a
    /// store without the entity. `primaryKey`, when given, must be the stored entity's key.
    static func stored(_ name: String, keyedBy primaryKey: String?, otherwise fallback: EntityDescription?) -> ImportTarget {
        // Known before the transaction: only the name (for messages), and the fallback's key.
        let placeholder = fallback ?? EntityDescription(name: name, primaryKey: primaryKey ?? "", fields: [])
        return ImportTarget(description: placeholder, context: { tx in try tx.existingContext(named: name) }) { tx in
            if let fallback, fallback.name != name {
                throw StrataError(.invalidValue, "the description to create '\(name)' with describes '\(fallback.name)'", entity: name)
            }
            guard try tx.context(named: name) != nil else {
                guard let fallback else {
                    throw StrataError(.notFound, "the store has no entity '\(name)' to import into", entity: name)
                }
                return .described(fallback)
            }
            let stored = try tx.entityDescription(named: name)
            if let primaryKey {
                let storedKey = stored.primaryKeyFields, asked = EntityDescription.keyFields(primaryKey)
                if asked.count != storedKey.count || zip(storedKey, asked).contains(where: { $0 != $1 && stored.field($0)?.jsonKey != $1 }) {
                    throw StrataError(.incompatibleStore,
                        "\(name) is stored with the primary key '\(stored.primaryKey)', not '\(primaryKey)'; import into another entity to key it differently",
                        entity: name, field: primaryKey)
                }
            }
            return .described(stored)
        }
    }
}
