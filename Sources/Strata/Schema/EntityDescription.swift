/// An entity described by a value rather than a Swift type: its fields and their types, its
/// primary key, its indexes and how JSON keys map to it. The command-line tool imports any JSON
/// through one; ``EntityDescription/init(_:)`` derives one from a `Record` type.
///
/// Records are stored in the same format either way, so a Swift type with matching fields reads
/// records imported through a description, and the reverse.
///
/// As JSON (the schema-file format):
/// ```json
/// {
///   "name": "User",
///   "primaryKey": "id",
///   "fields": [
///     {"name": "id", "type": "integer"},
///     {"name": "lastName", "type": "string"},
///     {"name": "luckyNumber", "type": "integer", "optional": true, "jsonKey": "lucky"},
///     {"name": "tags", "type": {"array": "string"}},
///     {"name": "address", "type": {"object": [{"name": "city", "type": "string"}]}}
///   ],
///   "indexes": [{"fields": ["lastName"], "collation": "caseAndDiacriticInsensitive"}]
/// }
/// ```
public struct EntityDescription: Sendable, Hashable, Codable {
    /// The entity name, as records of it are stored.
    public var name: String
    /// The name of the primary key field; it must be one of `fields`, not optional, and of a type
    /// with an order-preserving key (integer, string, uuid, date, double, bool).
    public var primaryKey: String
    /// The top-level fields, in the order they are stored.
    public var fields: [FieldDescription]
    /// The secondary indexes.
    public var indexes: [IndexDescription]
    /// The relationships whose reference fields this entity holds (each field is indexed).
    public var relationships: [RelationshipDescription]
    /// The values the record type's narrower integer fields can hold (`Int8` … `UInt64`), which
    /// the importer checks: known only for a description derived from a type.
    var integerRanges = IntegerRanges()

    public init(name: String, primaryKey: String, fields: [FieldDescription], indexes: [IndexDescription] = [],
                relationships: [RelationshipDescription] = []) {
        self.name = name
        self.primaryKey = primaryKey
        self.fields = fields
        self.indexes = indexes
        self.relationships = relationships
    }

    private enum CodingKeys: String, CodingKey { case name, primaryKey, fields, indexes, relationships }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        primaryKey = try container.decode(String.self, forKey: .primaryKey)
        fields = try container.decode([FieldDescription].self, forKey: .fields)
        indexes = try container.decodeIfPresent([IndexDescription].self, forKey: .indexes) ?? []
        relationships = try container.decodeIfPresent([RelationshipDescription].self, forKey: .relationships) ?? []
    }

    /// The field named `name`.
    public func field(_ name: String) -> FieldDescription? { fields.first { $0.name == name } }

    /// Throws `.invalidValue` naming the first problem: no fields, an unknown or optional primary
    /// key, a primary key type without an ordered key encoding, duplicate field names, an index on
    /// an unknown field.
    public func validate() throws(StrataError) {
        func invalid(_ message: String) -> StrataError {
            StrataError(.invalidValue, "entity description '\(name)': \(message)", entity: name)
        }
        guard !name.isEmpty, !name.contains("/") else { throw invalid("the name must be non-empty and contain no '/'") }
        try validateNamesAndDepth()
        guard !fields.isEmpty else { throw invalid("it has no fields") }
        var seen = Set<String>()
        for field in fields where !seen.insert(field.name).inserted { throw invalid("the field '\(field.name)' is declared twice") }
        guard let key = field(primaryKey) else { throw invalid("the primary key '\(primaryKey)' is not one of its fields") }
        guard !key.isOptional else { throw invalid("the primary key '\(primaryKey)' cannot be optional") }
        guard key.type.isKeyType else { throw invalid("the primary key '\(primaryKey)' has type \(key.type), which has no ordered key encoding") }
        for index in indexes {
            guard !index.fields.isEmpty else { throw invalid("an index has no fields") }
            for path in index.fields {
                guard let type = fieldType(at: path) else { throw invalid("the index \(index.fields) names the unknown field '\(path)'") }
                if index.isMultiValue {
                    guard case .array = type else { throw invalid("the multi-value index on '\(path)' needs an array field") }
                }
            }
            if index.isMultiValue, index.fields.count != 1 { throw invalid("a multi-value index has exactly one field") }
        }
        var names = Set<String>()
        for relationship in relationships {
            guard names.insert(relationship.name).inserted else { throw invalid("the relationship '\(relationship.name)' is declared twice") }
            guard field(relationship.name) == nil else { throw invalid("the relationship '\(relationship.name)' has the name of a field") }
            guard let type = fieldType(at: relationship.keyField) else {
                throw invalid("the relationship '\(relationship.name)' names the unknown field '\(relationship.keyField)'")
            }
            switch (relationship.kind, type) {
            case (.toOne, .array): throw invalid("the to-one relationship '\(relationship.name)' needs a single key field, not the array '\(relationship.keyField)'")
            case (.toMany, .array): break
            case (.toMany, _): throw invalid("the to-many relationship '\(relationship.name)' needs an array of keys, not '\(relationship.keyField)'")
            case (.toOne, _): break
            }
        }
    }

    /// The catalog's form of the relationships.
    var relationshipDescriptors: [RelationshipDescriptor] {
        relationships.map { relationship in
            RelationshipDescriptor(name: relationship.name, kind: relationship.kind == .toOne ? .toOne : .keyList,
                                   target: relationship.target, keyField: relationship.keyField,
                                   inverse: relationship.inverse, deleteRule: relationship.deleteRule)
        }
    }

    /// The type of the field at a dotted path (`address.city`), or nil.
    public func fieldType(at path: String) -> FieldType? {
        var fields = self.fields
        var type: FieldType?
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            if let current = type {
                guard case .object(let nested) = current.elementType else { return nil }
                fields = nested
            }
            guard let field = fields.first(where: { $0.name == component }) else { return nil }
            type = field.type
        }
        return type
    }
}

/// One field of an ``EntityDescription``.
public struct FieldDescription: Sendable, Hashable, Codable {
    /// The stored field name.
    public var name: String
    public var type: FieldType
    /// nil (JSON `null`, or an absent key in a new record) is allowed.
    public var isOptional: Bool
    /// The JSON key that maps to this field, when it is not found by convention.
    public var jsonKey: String?
    /// How dates in this field are written in JSON, when not by the automatic detection.
    public var dateFormat: DateFormat?

    public init(_ name: String, _ type: FieldType, optional: Bool = false, jsonKey: String? = nil, dateFormat: DateFormat? = nil) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.jsonKey = jsonKey
        self.dateFormat = dateFormat
    }

    private enum CodingKeys: String, CodingKey { case name, type, isOptional = "optional", jsonKey, dateFormat }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(FieldType.self, forKey: .type)
        isOptional = try container.decodeIfPresent(Bool.self, forKey: .isOptional) ?? false
        jsonKey = try container.decodeIfPresent(String.self, forKey: .jsonKey)
        dateFormat = try container.decodeIfPresent(DateFormat.self, forKey: .dateFormat)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        if isOptional { try container.encode(true, forKey: .isOptional) }
        try container.encodeIfPresent(jsonKey, forKey: .jsonKey)
        try container.encodeIfPresent(dateFormat, forKey: .dateFormat)
    }
}

/// The type of a described field, and how it is stored (the same CBOR the Codable encoder writes
/// for the matching Swift type).
public indirect enum FieldType: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `Bool`.
    case bool
    /// Any signed or unsigned integer type that fits `Int64`.
    case integer
    /// `Double` (stored as a 64-bit float even when the JSON number is whole).
    case double
    /// `Float`.
    case float
    case string
    /// `Date`: CBOR tag 1 over seconds since 1970.
    case date
    /// `UUID`: CBOR tag 37 over 16 bytes.
    case uuid
    /// `URL`: CBOR tag 32 over the absolute string.
    case url
    /// `Data`: a byte string; from JSON as base64 text.
    case data
    /// `Decimal`: its description as text.
    case decimal
    /// An array of one element type.
    case array(FieldType)
    /// An embedded struct: a map keyed by field names.
    case object([FieldDescription])
    /// Anything JSON can hold, stored as it comes (objects as maps keyed by their JSON keys):
    /// what a `[String: …]` dictionary field or an unknown type becomes.
    case any

    /// Types whose values have an order-preserving key encoding.
    var isKeyType: Bool {
        switch self {
        case .bool, .integer, .double, .string, .date, .uuid: true
        default: false
        }
    }

    /// The element type of an array, or the type itself.
    var elementType: FieldType {
        if case .array(let element) = self { return element }
        return self
    }

    private static let names: [String: FieldType] = [
        "bool": .bool, "integer": .integer, "double": .double, "float": .float, "string": .string, "date": .date,
        "uuid": .uuid, "url": .url, "data": .data, "decimal": .decimal, "any": .any,
    ]

    public var description: String {
        switch self {
        case .array(let element): "[\(element)]"
        case .object(let fields): "{" + fields.map { "\($0.name): \($0.type)\($0.isOptional ? "?" : "")" }.joined(separator: ", ") + "}"
        default: Self.names.first { $0.value == self }?.key ?? "any"
        }
    }

    private enum CodingKeys: String, CodingKey { case array, object }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard let type = Self.names[name] else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription:
                    "unknown field type '\(name)'; one of \(Self.names.keys.sorted().joined(separator: ", ")), {\"array\": T}, {\"object\": [fields]}")
            }
            self = type
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let element = try container.decodeIfPresent(FieldType.self, forKey: .array) {
            self = .array(element)
        } else {
            self = .object(try container.decode([FieldDescription].self, forKey: .object))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let element):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(element, forKey: .array)
        case .object(let fields):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(fields, forKey: .object)
        default:
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }
    }
}

/// A secondary index of an ``EntityDescription``.
public struct IndexDescription: Sendable, Hashable, Codable {
    /// Dotted field paths, in key order.
    public var fields: [String]
    public var collation: IndexCollation
    public var isUnique: Bool
    public var isMultiValue: Bool

    public init(fields: [String], collation: IndexCollation = .binary, unique: Bool = false, multiValue: Bool = false) {
        self.fields = fields
        self.collation = collation
        self.isUnique = unique
        self.isMultiValue = multiValue
    }

    private enum CodingKeys: String, CodingKey { case fields, collation, isUnique = "unique", isMultiValue = "multiValue" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fields = try container.decode([String].self, forKey: .fields)
        collation = try container.decodeIfPresent(IndexCollation.self, forKey: .collation) ?? .binary
        isUnique = try container.decodeIfPresent(Bool.self, forKey: .isUnique) ?? false
        isMultiValue = try container.decodeIfPresent(Bool.self, forKey: .isMultiValue) ?? false
    }
}

/// How a date is written in JSON.
public enum DateFormat: String, Sendable, Hashable, Codable {
    /// ISO 8601 with or without fractional seconds, `Z` or an offset, or a date alone; or a number
    /// of seconds since 1970 (numbers above 100,000,000,000 are taken as milliseconds).
    case automatic
    /// ISO 8601 only.
    case iso8601
    /// A number (or numeric string) of seconds since 1970.
    case secondsSince1970
    /// A number (or numeric string) of milliseconds since 1970.
    case millisecondsSince1970
}

/// A relationship of an ``EntityDescription``, held by one of its fields: a to-one reference (the
/// target's key, optional) or a to-many key list (an array of the target's keys).
public struct RelationshipDescription: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable { case toOne, toMany }
    /// The name queries use (`company.name`, `ANY ingredients.name`).
    public var name: String
    public var kind: Kind
    /// The entity referred to.
    public var target: String
    /// The field holding the key or keys.
    public var keyField: String
    /// The name of the inverse relationship on the target (`employees`, `recipes`), if any.
    public var inverse: String?
    /// What happens to this entity's records when a target record is deleted.
    public var deleteRule: DeleteRule

    public init(_ name: String, _ kind: Kind, target: String, keyField: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.kind = kind
        self.target = target
        self.keyField = keyField
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    init(_ descriptor: RelationshipDescriptor) {
        self.init(descriptor.name, descriptor.kind == .toOne ? .toOne : .toMany, target: descriptor.target,
                  keyField: descriptor.keyField, inverse: descriptor.inverse, deleteRule: descriptor.deleteRule)
    }
}
