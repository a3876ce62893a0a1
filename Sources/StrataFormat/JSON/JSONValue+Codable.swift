/// A JSON value inside a `Codable` document (a schema file's field `"default"`, a migration
/// plan): read and written as the JSON it is. An object read this way has its members in key
/// order, since `Decoder` does not keep the input's.
extension JSONValue: Codable {
    /// Reads whatever JSON value the decoder holds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: $0.value) })
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Writes the value as JSON; an integer beyond `Int64` as its decimal text, members of an
    /// object under their keys (the last of duplicates wins).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .wideInt(let value): try container.encode(value.description)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for member in members { object[member.key] = member.value }
            try container.encode(object)
        }
    }
}
