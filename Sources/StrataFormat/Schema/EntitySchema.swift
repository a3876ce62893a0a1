import Foundation

/// What the catalog records about one entity (one record type): written as JSON by `JSONEncoder`
/// (``Catalog/save(_:in:catalog:)``), read by ``init(catalogEntry:)`` (CatalogJSON+Entries.swift).
package struct EntitySchema: Encodable, Equatable, Sendable {
    /// The entity name (`Record.entityName`).
    package var name: String
    /// The primary key field's name, as the key path spells it.
    package var primaryKey: String
    /// The LMDB database holding the records.
    package var recordsDatabase: String
    /// Stable ids of the top-level field names.
    package var fields: FieldTable
    /// The indexes that are built and maintained, in declaration order.
    package var indexes: [IndexDescriptor] = []
    /// The kind of the primary key's values. Absent in entries written before it was recorded;
    /// ``ReadTransaction/primaryKeyKind(of:)`` then reads it from the first stored key.
    package var primaryKeyKind: ValueKind?
    /// The description the entity was last imported with (field types, JSON keys, date formats),
    /// when it was created or imported through an ``EntityDescription``; what `strata schema`
    /// prints and later imports reuse.
    package var description: EntityDescription?
    /// The relationships whose reference fields this entity holds.
    package var relationships: [RelationshipDescriptor] = []
    /// Default values by field name, as stored value bytes (``FieldDefault``, a description's
    /// `"default"`): records that lacked the field were given it when the default was recorded.
    package var defaults: [String: [UInt8]] = [:]
    /// Fields renamed by migrations: the new name by the old one, so that a query naming the old
    /// name is told the new one.
    package var renamedFields: [String: String] = [:]
    /// The databases of indexes whose name is not the one ``indexDatabase(_:)`` derives (a field
    /// was renamed after they were built), by index name.
    package var indexDatabases: [String: String] = [:]
    /// The statistics of the compound indexes that keep them (``IndexKeyStatistics``), by index name.
    package var statistics: [String: IndexKeyStatistics] = [:]
    /// The full-text indexes, in declaration order: apart from ``indexes``, so that the index key
    /// encoder, unique checks and key ranges never meet one.
    package var fullTextIndexes: [FullTextIndexDescriptor] = []

    package init(name: String, primaryKey: String, recordsDatabase: String, fields: FieldTable, indexes: [IndexDescriptor] = [],
         primaryKeyKind: ValueKind? = nil) {
        self.name = name
        self.primaryKey = primaryKey
        self.recordsDatabase = recordsDatabase
        self.fields = fields
        self.indexes = indexes
        self.primaryKeyKind = primaryKeyKind
    }

    private enum CodingKeys: String, CodingKey {
        case name, primaryKey, recordsDatabase, fields, indexes, primaryKeyKind, description, relationships
        case defaults, renamedFields, indexDatabases, statistics, fullTextIndexes
    }

    /// The migration entries, statistics and full-text indexes are written only when there are any,
    /// so that the catalog entries of stores that never used them keep their bytes.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(primaryKey, forKey: .primaryKey)
        try container.encode(recordsDatabase, forKey: .recordsDatabase)
        try container.encode(fields, forKey: .fields)
        try container.encode(indexes, forKey: .indexes)
        try container.encodeIfPresent(primaryKeyKind, forKey: .primaryKeyKind)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(relationships, forKey: .relationships)
        if !defaults.isEmpty { try container.encode(defaults, forKey: .defaults) }
        if !renamedFields.isEmpty { try container.encode(renamedFields, forKey: .renamedFields) }
        if !indexDatabases.isEmpty { try container.encode(indexDatabases, forKey: .indexDatabases) }
        if !statistics.isEmpty { try container.encode(statistics, forKey: .statistics) }
        if !fullTextIndexes.isEmpty { try container.encode(fullTextIndexes, forKey: .fullTextIndexes) }
    }

    /// The database of the index `index`: its recorded one, or the name built from the records
    /// database's (`index/<Entity>/<index>` for `records/<Entity>`), so that a renamed entity's
    /// indexes keep their databases as its records do.
    package func indexDatabase(_ index: String) -> String {
        if let recorded = indexDatabases[index] { return recorded }
        let prefix = "records/"
        let stem = recordsDatabase.hasPrefix(prefix) ? String(recordsDatabase.dropFirst(prefix.count)) : name
        return Self.indexDatabaseName(entity: stem, index: index)
    }

    package static func recordsDatabaseName(for entity: String) -> String { "records/\(entity)" }
    static func indexDatabaseName(entity: String, index: String) -> String { "index/\(entity)/\(index)" }
}

extension EntitySchema {
    /// The primary key's fields in key order (``EntityDescription/primaryKeyFields``).
    package var primaryKeyFields: [String] { EntityDescription.keyFields(primaryKey) }
}
