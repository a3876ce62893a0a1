/// The catalog's entries read from their JSON (see ``CatalogValue``): an entity's ``EntitySchema``
/// and what it holds, member for member as their `Encodable` forms write them.
extension EntitySchema {
    /// The catalog entry `bytes` of an entity (`entity/<Name>`, or a change log's `schema` change).
    package init(catalogEntry bytes: [UInt8]) throws {
        try self.init(catalog: CatalogValue(document: bytes).object())
    }

    private init(catalog entry: CatalogObject) throws {
        self.init(name: try entry.required("name") { try $0.string() },
                  primaryKey: try entry.required("primaryKey") { try $0.string() },
                  recordsDatabase: try entry.required("recordsDatabase") { try $0.string() },
                  fields: try entry.required("fields") { try FieldTable(catalog: $0.object()) },
                  indexes: try entry.optional("indexes") { try $0.array { try IndexDescriptor(catalog: $0.object()) } } ?? [],
                  primaryKeyKind: try entry.optional("primaryKeyKind") { try $0.named(ValueKind.self) })
        description = try entry.optional("description") { try EntityDescription(catalog: $0.object()) }
        relationships = try entry.optional("relationships") { try $0.array { try RelationshipDescriptor(catalog: $0.object()) } } ?? []
        defaults = try entry.optional("defaults") { try $0.dictionary { try $0.array { try $0.byte() } } } ?? [:]
        renamedFields = try entry.optional("renamedFields") { try $0.dictionary { try $0.string() } } ?? [:]
        indexDatabases = try entry.optional("indexDatabases") { try $0.dictionary { try $0.string() } } ?? [:]
        statistics = try entry.optional("statistics") { try $0.dictionary { try IndexKeyStatistics(catalog: $0.object()) } } ?? [:]
        fullTextIndexes = try entry.optional("fullTextIndexes") {
            try $0.array { try FullTextIndexDescriptor(catalog: $0.object()) }
        } ?? []
    }
}

extension FullTextIndexDescriptor {
    fileprivate init(catalog index: CatalogObject) throws {
        self.init(name: try index.required("name") { try $0.string() },
                  fields: try index.required("fields") { try $0.array { try $0.string() } },
                  weights: try index.required("weights") { try $0.array { try $0.double() } },
                  stemming: try index.required("stemming") { try $0.named(TextStemming.self) },
                  stopWords: try index.required("stopWords") { try $0.named(TextStopWords.self) },
                  positions: try index.required("positions") { try $0.bool() },
                  tokenizerVersion: try index.required("tokenizerVersion") { try $0.int() },
                  foldingVersion: try index.required("foldingVersion") { try $0.int() })
    }
}

extension FieldTable {
    /// `{"fields": {"1": "id", "2": "name"}}`: names by positive integer ids.
    fileprivate init(catalog table: CatalogObject) throws {
        let pairs = try table.required("fields") { try $0.dictionary { try $0.string() } }
        var names: [Int: String] = [:]
        for (key, name) in pairs {
            guard let id = Int(key), id > 0 else {
                throw CatalogValue.failure(CatalogObject.path(table.path, "fields"), "field id '\(key)' is not a positive integer")
            }
            names[id] = name
        }
        self.init(names: names)
    }
}

extension IndexDescriptor {
    fileprivate init(catalog index: CatalogObject) throws {
        self.init(name: try index.required("name") { try $0.string() },
                  fields: try index.required("fields") { try $0.array { try IndexedField(catalog: $0.object()) } },
                  isUnique: try index.required("isUnique") { try $0.bool() },
                  isMultiValue: try index.required("isMultiValue") { try $0.bool() })
        // Catalogs written before versions were recorded folded by the first rules.
        let folded = fields.contains { $0.collation != .binary }
        foldingVersion = try index.optional("foldingVersion") { try $0.int() } ?? (folded ? 1 : nil)
    }
}

extension IndexedField {
    fileprivate init(catalog field: CatalogObject) throws {
        self.init(path: try field.required("path") { try $0.array { try $0.string() } },
                  collation: try field.required("collation") { try $0.named(IndexCollation.self) },
                  kind: try field.required("kind") { try $0.named(ValueKind.self) })
    }
}

extension IndexKeyStatistics {
    fileprivate init(catalog statistics: CatalogObject) throws {
        self.init(fields: try statistics.required("fields") { try $0.array { try IndexedField(catalog: $0.object()) } },
                  entries: try statistics.required("entries") { try $0.int() },
                  distinctLeading: try statistics.required("distinctLeading") { try $0.int() },
                  distinctKeys: try statistics.required("distinctKeys") { try $0.int() },
                  frequent: try statistics.required("frequent") { try $0.array { value in
                      let frequent = try value.object()
                      return Frequent(key: try frequent.required("key") { try $0.array { try $0.byte() } },
                                      entries: try frequent.required("entries") { try $0.int() })
                  } })
    }
}

extension RelationshipDescriptor {
    fileprivate init(catalog relationship: CatalogObject) throws {
        self.init(name: try relationship.required("name") { try $0.string() },
                  kind: try relationship.required("kind") { try $0.named(Kind.self) },
                  target: try relationship.required("target") { try $0.string() },
                  keyField: try relationship.required("keyField") { try $0.string() },
                  inverse: try relationship.optional("inverse") { try $0.string() },
                  deleteRule: try relationship.required("deleteRule") { try $0.named(DeleteRule.self) })
    }
}

extension EntityDescription {
    /// A description in its `Codable` form (`generatedKey` for ``primaryKeyIsGenerated``).
    fileprivate init(catalog description: CatalogObject) throws {
        self.init(name: try description.required("name") { try $0.string() },
                  primaryKey: try description.required("primaryKey") { try $0.string() },
                  fields: try description.required("fields") { try $0.array { try FieldDescription(catalog: $0.object()) } },
                  indexes: try description.optional("indexes") { try $0.array { try IndexDescription(catalog: $0.object()) } } ?? [],
                  relationships: try description.optional("relationships") {
                      try $0.array { try RelationshipDescription(catalog: $0.object()) }
                  } ?? [])
        primaryKeyIsGenerated = try description.optional("generatedKey") { try $0.bool() } ?? false
        fullTextIndexes = try description.optional("fullText") { try $0.array { try FullTextIndexDescription(catalog: $0.object()) } } ?? []
    }
}

extension FullTextIndexDescription {
    /// A declaration in its `Codable` form: `fields`, and optionally `weights`, `stemming`,
    /// `stopWords`, `name`.
    fileprivate init(catalog index: CatalogObject) throws {
        self.init(fields: try index.required("fields") { try $0.array { try $0.string() } },
                  weights: try index.optional("weights") { try $0.array { try $0.double() } },
                  stemming: try index.optional("stemming") { try $0.named(TextStemming.self) } ?? .none,
                  stopWords: try index.optional("stopWords") { try $0.named(TextStopWords.self) } ?? .none,
                  name: try index.optional("name") { try $0.string() })
    }
}

extension FieldDescription {
    fileprivate init(catalog field: CatalogObject) throws {
        self.init(try field.required("name") { try $0.string() },
                  try field.required("type") { try FieldType(catalog: $0) },
                  optional: try field.optional("optional") { try $0.bool() } ?? false,
                  jsonKey: try field.optional("jsonKey") { try $0.string() },
                  dateFormat: try field.optional("dateFormat") { try $0.named(DateFormat.self) },
                  default: try field.optional("default") { try $0.anyValue() })
    }
}

extension FieldType {
    /// A type's name (`"integer"`), `{"array": T}` or `{"object": [fields]}`.
    fileprivate init(catalog type: CatalogValue) throws {
        if case .string(let name) = type.json {
            guard let named = Self.names[name] else {
                throw CatalogValue.failure(type.path, "unknown field type '\(name)'")
            }
            self = named
            return
        }
        let object = try type.object()
        if let element = try object.optional("array", { try FieldType(catalog: $0) }) {
            self = .array(element)
        } else {
            self = .object(try object.required("object") { try $0.array { try FieldDescription(catalog: $0.object()) } })
        }
    }
}

extension IndexDescription {
    fileprivate init(catalog index: CatalogObject) throws {
        self.init(fields: try index.required("fields") { try $0.array { try $0.string() } },
                  collation: try index.optional("collation") { try $0.named(IndexCollation.self) } ?? .binary,
                  unique: try index.optional("unique") { try $0.bool() } ?? false,
                  multiValue: try index.optional("multiValue") { try $0.bool() } ?? false)
    }
}

extension RelationshipDescription {
    fileprivate init(catalog relationship: CatalogObject) throws {
        self.init(try relationship.required("name") { try $0.string() },
                  try relationship.required("kind") { try $0.named(Kind.self) },
                  target: try relationship.required("target") { try $0.string() },
                  keyField: try relationship.required("keyField") { try $0.string() },
                  inverse: try relationship.optional("inverse") { try $0.string() },
                  deleteRule: try relationship.required("deleteRule") { try $0.named(DeleteRule.self) })
    }
}
