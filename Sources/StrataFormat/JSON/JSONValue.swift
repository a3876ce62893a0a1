import Foundation

/// One parsed JSON value, as the importer sees it: the input to mapping and to per-field value
/// transforms (``ImportOptions/transforms``).
///
/// Numbers keep the distinction JSON text makes: an integer literal that fits `Int64` is `.int`, a
/// larger one that fits 128 bits (`Int128.min` through `UInt128.max`) is `.wideInt`, anything else
/// (fractions, exponents, integers beyond 128 bits) is `.double`. Objects keep their keys in
/// input order, duplicates included, so that the mapper can apply "the last occurrence wins".
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer literal that fits `Int64`.
    case int(Int64)
    /// An integer literal beyond `Int64` that fits 128 bits.
    case wideInt(WideInteger)
    /// A number with a fraction or an exponent, or an integer beyond 128 bits.
    case double(Double)
    /// A string, unescaped.
    case string(String)
    /// An array, in input order.
    case array([JSONValue])
    /// An object's members, in input order, duplicates included.
    case object([JSONMember])

    /// Whether this is an integer literal that fits `Int64`.
    package var isInt64: Bool {
        if case .int = self { return true }
        return false
    }

    /// The value of the last member named `key`, when this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The JSON kind, for messages: "null", "a boolean", "an integer", "a number", "a string",
    /// "an array", "an object".
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .wideInt: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as compact JSON text, cut at 60 characters: what error messages quote.
    public var description: String {
        let text = jsonText
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }

    /// The value as compact JSON text (``appendJSON(to:)``'s bytes).
    public var jsonText: String {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `string` as a JSON string literal (``appendQuoted(_:to:)``'s bytes): control characters
    /// escaped, so that JSON shown on a terminal cannot drive it.
    package static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member's key, unescaped.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// A member `key: value`.
    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
