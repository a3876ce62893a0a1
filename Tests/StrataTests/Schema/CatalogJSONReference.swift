import Foundation
@testable import Strata
@testable import StrataFormat

// The `Decodable` forms the catalog's internal types had before their entries were read with the
// store's own parser (CatalogJSON+Entries.swift): `JSONDecoder` with these is the reference that
// `CatalogJSONTests` holds the catalog reader equal to. The public types (`EntityDescription`,
// `FieldDescription`, `FieldType`, `IndexDescription`, `RelationshipDescription`, `IndexedField`,
// the enums) keep their own `Codable` forms in the library, and serve as they are.

extension EntitySchema: Decodable {
    private enum ReferenceKeys: String, CodingKey {
        case name, primaryKey, recordsDatabase, fields, indexes, primaryKeyKind, description, relationships
        case defaults, renamedFields, indexDatabases, statistics, fullTextIndexes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  primaryKey: try container.decode(String.self, forKey: .primaryKey),
                  recordsDatabase: try container.decode(String.self, forKey: .recordsDatabase),
                  fields: try container.decode(FieldTable.self, forKey: .fields),
                  indexes: try container.decodeIfPresent([IndexDescriptor].self, forKey: .indexes) ?? [],
                  primaryKeyKind: try container.decodeIfPresent(ValueKind.self, forKey: .primaryKeyKind))
        description = try container.decodeIfPresent(EntityDescription.self, forKey: .description)
        relationships = try container.decodeIfPresent([RelationshipDescriptor].self, forKey: .relationships) ?? []
        defaults = try container.decodeIfPresent([String: [UInt8]].self, forKey: .defaults) ?? [:]
        renamedFields = try container.decodeIfPresent([String: String].self, forKey: .renamedFields) ?? [:]
        indexDatabases = try container.decodeIfPresent([String: String].self, forKey: .indexDatabases) ?? [:]
        statistics = try container.decodeIfPresent([String: IndexKeyStatistics].self, forKey: .statistics) ?? [:]
        fullTextIndexes = try container.decodeIfPresent([FullTextIndexDescriptor].self, forKey: .fullTextIndexes) ?? []
    }
}

// Full-text indexes came after the catalog reader: this is the plain `Decodable` form of what
// `FullTextIndexDescriptor` encodes, every member required.
extension FullTextIndexDescriptor: Decodable {
    private enum ReferenceKeys: String, CodingKey {
        case name, fields, weights, stemming, stopWords, positions, tokenizerVersion, foldingVersion
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  fields: try container.decode([String].self, forKey: .fields),
                  weights: try container.decode([Double].self, forKey: .weights),
                  stemming: try container.decode(TextStemming.self, forKey: .stemming),
                  stopWords: try container.decode(TextStopWords.self, forKey: .stopWords),
                  positions: try container.decode(Bool.self, forKey: .positions),
                  tokenizerVersion: try container.decode(Int.self, forKey: .tokenizerVersion),
                  foldingVersion: try container.decode(Int.self, forKey: .foldingVersion))
    }
}

extension FieldTable: Decodable {
    private enum ReferenceKeys: String, CodingKey { case fields }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        let pairs = try container.decode([String: String].self, forKey: .fields)
        var names: [Int: String] = [:]
        for (key, name) in pairs {
            guard let id = Int(key), id > 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .fields, in: container, debugDescription: "field id '\(key)' is not a positive integer")
            }
            names[id] = name
        }
        self.init(names: names)
    }
}

extension IndexDescriptor: Decodable {
    private enum ReferenceKeys: String, CodingKey { case name, fields, isUnique, isMultiValue, foldingVersion }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  fields: try container.decode([IndexedField].self, forKey: .fields),
                  isUnique: try container.decode(Bool.self, forKey: .isUnique),
                  isMultiValue: try container.decode(Bool.self, forKey: .isMultiValue))
        let folded = fields.contains { $0.collation != .binary }
        foldingVersion = try container.decodeIfPresent(Int.self, forKey: .foldingVersion) ?? (folded ? 1 : nil)
    }
}

extension IndexKeyStatistics: Decodable {
    private enum ReferenceKeys: String, CodingKey { case fields, entries, distinctLeading, distinctKeys, frequent }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        self.init(fields: try container.decode([IndexedField].self, forKey: .fields),
                  entries: try container.decode(Int.self, forKey: .entries),
                  distinctLeading: try container.decode(Int.self, forKey: .distinctLeading),
                  distinctKeys: try container.decode(Int.self, forKey: .distinctKeys),
                  frequent: try container.decode([Frequent].self, forKey: .frequent))
    }
}

extension IndexKeyStatistics.Frequent: Decodable {
    private enum ReferenceKeys: String, CodingKey { case key, entries }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        self.init(key: try container.decode([UInt8].self, forKey: .key), entries: try container.decode(Int.self, forKey: .entries))
    }
}

extension RelationshipDescriptor: Decodable {
    private enum ReferenceKeys: String, CodingKey { case name, kind, target, keyField, inverse, deleteRule }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReferenceKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  kind: try container.decode(Kind.self, forKey: .kind),
                  target: try container.decode(String.self, forKey: .target),
                  keyField: try container.decode(String.self, forKey: .keyField),
                  inverse: try container.decodeIfPresent(String.self, forKey: .inverse),
                  deleteRule: try container.decode(DeleteRule.self, forKey: .deleteRule))
    }
}

extension RelationshipDescriptor.Kind: Decodable {}

extension Catalog.Format: Decodable {
    private enum ReferenceKeys: String, CodingKey { case version }

    public init(from decoder: any Decoder) throws {
        self.init(version: try decoder.container(keyedBy: ReferenceKeys.self).decode(Int.self, forKey: .version))
    }
}
