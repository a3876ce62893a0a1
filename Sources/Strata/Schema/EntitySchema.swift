import Foundation

/// What the catalog records about one entity (one record type).
struct EntitySchema: Codable, Equatable, Sendable {
    /// The entity name (`Record.entityName`).
    var name: String
    /// The primary key field's name, as the key path spells it.
    var primaryKey: String
    /// The LMDB database holding the records.
    var recordsDatabase: String
    /// Stable ids of the top-level field names.
    var fields: FieldTable
    /// The indexes that are built and maintained, in declaration order.
    var indexes: [IndexDescriptor] = []
    /// The kind of the primary key's values. Absent in entries written before it was recorded;
    /// ``ReadTransaction/primaryKeyKind(of:)`` then reads it from the first stored key.
    var primaryKeyKind: ValueKind?
    /// The description the entity was last imported with (field types, JSON keys, date formats),
    /// when it was created or imported through an ``EntityDescription``; what `strata schema`
    /// prints and later imports reuse.
    var description: EntityDescription?
    /// The relationships whose reference fields this entity holds.
    var relationships: [RelationshipDescriptor] = []

    init(name: String, primaryKey: String, recordsDatabase: String, fields: FieldTable, indexes: [IndexDescriptor] = [],
         primaryKeyKind: ValueKind? = nil) {
        self.name = name
        self.primaryKey = primaryKey
        self.recordsDatabase = recordsDatabase
        self.fields = fields
        self.indexes = indexes
        self.primaryKeyKind = primaryKeyKind
    }

    private enum CodingKeys: String, CodingKey { case name, primaryKey, recordsDatabase, fields, indexes, primaryKeyKind, description, relationships }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        primaryKey = try container.decode(String.self, forKey: .primaryKey)
        recordsDatabase = try container.decode(String.self, forKey: .recordsDatabase)
        fields = try container.decode(FieldTable.self, forKey: .fields)
        indexes = try container.decodeIfPresent([IndexDescriptor].self, forKey: .indexes) ?? []
        primaryKeyKind = try container.decodeIfPresent(ValueKind.self, forKey: .primaryKeyKind)
        description = try container.decodeIfPresent(EntityDescription.self, forKey: .description)
        relationships = try container.decodeIfPresent([RelationshipDescriptor].self, forKey: .relationships) ?? []
    }

    static func recordsDatabaseName(for entity: String) -> String { "records/\(entity)" }
    static func indexDatabaseName(entity: String, index: String) -> String { "index/\(entity)/\(index)" }
}

extension EntitySchema {
    /// The primary key's fields in key order (``EntityDescription/primaryKeyFields``).
    var primaryKeyFields: [String] { EntityDescription.keyFields(primaryKey) }
}
