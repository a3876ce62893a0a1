import Foundation

/// The scalar types a field can hold: the one table of field types.
///
/// What the rest of Strata knows about a scalar type is derived from here rather than listed again:
/// the schema file's type names and ``FieldType``'s scalar cases, the Swift types the record codec
/// stores as each scalar (`swiftType(_:)`: what `SchemaProbe` and `ValueKind.init(_:)`
/// read), the ranges of integer types (what the importer checks a JSON integer against), the index key
/// kind of each (``keyKind``) and the query constants a field of the type can be compared with
/// (`ValueKind.accepts(_:)`). Per-type code that cannot be a table entry (how a value is written
/// as CBOR, its order-preserving key) lives with the codec and `OrderedKey`, keyed by these cases.
public enum ScalarType: String, CaseIterable, Sendable, Hashable {
    /// `Bool`.
    case bool
    /// Every integer width up to 128 bits, signed or not (see ``WideInteger``).
    case integer
    /// `Double`.
    case double
    /// `Float`.
    case float
    /// `String`.
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

    /// The index key kind of the type's values; `.other` for types without an order-preserving key.
    public var keyKind: ValueKind {
        switch self {
        case .bool: .bool
        case .integer: .integer
        case .double, .float: .double
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .url, .data, .decimal: .other
        }
    }

    /// One Swift type the record codec stores as a scalar.
    struct SwiftType: @unchecked Sendable {
        let scalar: ScalarType
        /// A value of the type, for probing a record type's shape (``SchemaProbe``).
        let placeholder: Any
        /// For integer types, the values the type can hold.
        let integerRange: ClosedRange<WideInteger>?
    }

    /// The scalar stored for Swift type `type`, looking through `Optional` unless told not to; nil
    /// for types that go through their own `Codable` conformance.
    static func swiftType(_ type: Any.Type, throughOptional: Bool = true) -> SwiftType? {
        var type = type
        while throughOptional, let optional = type as? any OptionalType.Type { type = optional.wrappedType }
        return swiftTypes[ObjectIdentifier(type)]
    }

    private static let swiftTypes: [ObjectIdentifier: SwiftType] = {
        func integer<I: FixedWidthInteger>(_: I.Type) -> (ObjectIdentifier, SwiftType) {
            (ObjectIdentifier(I.self), SwiftType(scalar: .integer, placeholder: I.zero, integerRange: WideInteger(I.min)...WideInteger(I.max)))
        }
        func other<T>(_ value: T, _ scalar: ScalarType) -> (ObjectIdentifier, SwiftType) {
            (ObjectIdentifier(T.self), SwiftType(scalar: scalar, placeholder: value, integerRange: nil))
        }
        return Dictionary(uniqueKeysWithValues: [
            other(false, .bool),
            integer(Int.self), integer(Int8.self), integer(Int16.self), integer(Int32.self), integer(Int64.self),
            integer(Int128.self),
            integer(UInt.self), integer(UInt8.self), integer(UInt16.self), integer(UInt32.self), integer(UInt64.self),
            integer(UInt128.self),
            other(0.0, .double), other(Float(0), .float), other("", .string),
            other(Date(timeIntervalSince1970: 0), .date),
            other(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), .uuid),
            other(URL(string: "about:blank")!, .url), other(Data(), .data), other(Decimal(0), .decimal),
        ])
    }()
}

/// `Optional`, whatever it wraps: how ``ScalarType/swiftType(_:)`` looks through it.
private protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}
