/// One field of an ``EntityDescription``.
public struct FieldDescription: Sendable, Hashable, Codable {
    /// The stored field name.
    public var name: String
    /// The field's type.
    public var type: FieldType
    /// nil (JSON `null`, or an absent key in a new record) is allowed.
    public var isOptional: Bool
    /// The JSON key that maps to this field, when it is not found by convention.
    public var jsonKey: String?
    /// How dates in this field are written in JSON, when not by the automatic detection.
    public var dateFormat: DateFormat?
    /// The value of this (non-optional, top-level) field in records that lack it: stored
    /// records written before the field existed, and imported JSON without its key (`"default"`
    /// in a schema file). Converted to the field's type as the importer converts values.
    public var defaultValue: JSONValue?

    /// A field named `name` of type `type`; `default` is its ``defaultValue``.
    public init(_ name: String, _ type: FieldType, optional: Bool = false, jsonKey: String? = nil, dateFormat: DateFormat? = nil,
                default defaultValue: JSONValue? = nil) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.jsonKey = jsonKey
        self.dateFormat = dateFormat
        self.defaultValue = defaultValue
    }

    private enum CodingKeys: String, CodingKey { case name, type, isOptional = "optional", jsonKey, dateFormat, defaultValue = "default" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(FieldType.self, forKey: .type)
        isOptional = try container.decodeIfPresent(Bool.self, forKey: .isOptional) ?? false
        jsonKey = try container.decodeIfPresent(String.self, forKey: .jsonKey)
        dateFormat = try container.decodeIfPresent(DateFormat.self, forKey: .dateFormat)
        defaultValue = try container.decodeIfPresent(JSONValue.self, forKey: .defaultValue)
        if defaultValue == .null { defaultValue = nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        if isOptional { try container.encode(true, forKey: .isOptional) }
        try container.encodeIfPresent(jsonKey, forKey: .jsonKey)
        try container.encodeIfPresent(dateFormat, forKey: .dateFormat)
        try container.encodeIfPresent(defaultValue, forKey: .defaultValue)
    }
}

/// The type of a described field, and how it is stored (the same CBOR the Codable encoder writes
/// for the matching Swift type).
public indirect enum FieldType: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A scalar: one of the table of scalar types, ``ScalarType``.
    case scalar(ScalarType)
    /// An array of one element type.
    case array(FieldType)
    /// An embedded struct: a map keyed by field names.
    case object([FieldDescription])
    /// Anything JSON can hold, stored as it comes (objects as maps keyed by their JSON keys):
    /// what a `[String: …]` dictionary field or an unknown type becomes.
    case any

    // The scalars' spellings, `.string` for `.scalar(.string)`: the names descriptions are written with
    // (`FieldDescription("name", .string)`). The library's own code matches `.scalar(…)`, so that every
    // switch over a field type stays exhaustive and a new scalar type is found wherever it needs code.
    /// `Bool`.
    public static let bool = FieldType.scalar(.bool)
    /// Every signed or unsigned integer type, up to 128 bits (``WideInteger``).
    public static let integer = FieldType.scalar(.integer)
    /// `Double` (stored as a 64-bit float even when the JSON number is whole).
    public static let double = FieldType.scalar(.double)
    /// `Float`.
    public static let float = FieldType.scalar(.float)
    /// `String`.
    public static let string = FieldType.scalar(.string)
    /// `Date`.
    public static let date = FieldType.scalar(.date)
    /// `UUID`.
    public static let uuid = FieldType.scalar(.uuid)
    /// `URL`.
    public static let url = FieldType.scalar(.url)
    /// `Data`.
    public static let data = FieldType.scalar(.data)
    /// `Decimal`.
    public static let decimal = FieldType.scalar(.decimal)

    /// The type of scalar values of `scalar`.
    public init(_ scalar: ScalarType) { self = .scalar(scalar) }

    /// The scalar this type is, or nil for arrays, objects and `any`.
    public var scalar: ScalarType? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    /// Types whose values have an order-preserving key encoding.
    package var isKeyType: Bool { (scalar?.keyKind ?? .other) != .other }

    /// The element type of an array, or the type itself.
    package var elementType: FieldType {
        if case .array(let element) = self { return element }
        return self
    }

    /// The schema file's type names: the scalars' and `any`.
    static let names: [String: FieldType] = Dictionary(uniqueKeysWithValues:
        ScalarType.allCases.map { ($0.rawValue, FieldType($0)) } + [("any", .any)])

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
