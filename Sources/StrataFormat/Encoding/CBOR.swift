import Foundation

/// CBOR (RFC 8949) constants shared by the record writer and reader.
///
/// Strata's record format, for readers in other languages:
///
/// | Swift value                  | CBOR                                                              |
/// |------------------------------|-------------------------------------------------------------------|
/// | record (top level)           | map, keys = unsigned field ids from the entity's `FieldTable`     |
/// | nested struct, enum, `[String: X]`, `[Int: X]` | map with text keys (the coding key's `stringValue`) |
/// | array, set, unkeyed          | array                                                             |
/// | `Bool`                       | simple value true / false                                         |
/// | integers of any width        | major type 0 / 1, shortest head; beyond 64 bits (`Int128`,        |
/// |                              | `UInt128`) tag 2 / 3 over the big-endian magnitude (RFC 8949 bignum) |
/// | `Double` / `Float`           | float64 / float32 (any float width or an integer is read back)    |
/// | `String`                     | text string                                                       |
/// | `Data`                       | byte string                                                       |
/// | `Date`                       | tag 1 + epoch seconds: an integer when whole, else float64        |
/// | `UUID`                       | tag 37 + 16-byte byte string                                      |
/// | `URL`                        | tag 32 + text (`absoluteString`)                                  |
/// | `Decimal`                    | text string of its `description` (lossless, locale-independent)  |
/// | `nil` written explicitly     | null (synthesized `Codable` omits nil fields instead)             |
///
/// Dictionaries and sets are written with their entries sorted by encoded bytes (RFC 8949 §4.2.1), so
/// equal values give equal bytes even though Swift's iteration order is random per process.
/// Indefinite lengths are never written and are refused on reading.
///
/// Dates: float64 seconds since 1970 cannot hold every `Date` exactly (Date stores seconds since 2001),
/// so a fractional date may come back up to one ulp (about 0.1 µs today) away, as with JSONEncoder's
/// `.secondsSince1970`. The decoded date then re-encodes to the same bytes, so an unchanged record is
/// still recognised as unchanged. Index keys use the exact reference-date seconds (see ``IndexableValue``).
@_spi(Format) public enum CBOR {
    /// The major type: the top three bits of an item's initial byte.
    public enum Major: UInt8, Sendable {
        case unsigned = 0, negative = 1, bytes = 2, text = 3, array = 4, map = 5, tag = 6, simple = 7
    }

    static let falseByte: UInt8 = 0xF4
    static let trueByte: UInt8 = 0xF5
    package static let nullByte: UInt8 = 0xF6
    static let undefinedByte: UInt8 = 0xF7
    static let float16Byte: UInt8 = 0xF9
    static let float32Byte: UInt8 = 0xFA
    static let float64Byte: UInt8 = 0xFB
    package static let emptyMapByte: UInt8 = 0xA0

    package static let epochDateTag: UInt64 = 1
    package static let uriTag: UInt64 = 32
    package static let uuidTag: UInt64 = 37

    /// The deepest nesting of containers a record may have; deeper data is refused as corrupt so that
    /// hostile bytes cannot exhaust the stack through a recursive `Decodable` type.
    package static let maximumDepth = 512

    /// `[String]` is read and written without a container; its metadata is looked up once, not per value.
    static let stringArrayType = ObjectIdentifier([String].self)

    /// The Swift types CBOR has its own form for, which the codecs read and write without a container.
    enum PrimitiveKind: UInt8 {
        case string, int, double, date, uuid, data, url, decimal, strings, bool, int64, float

        /// The kind of `type`, or nil for a type that goes through its own `Codable` conformance.
        @inline(__always)
        init?<T>(of type: T.Type) {
            // Most frequent types first: every test is a metadata comparison.
            if T.self == String.self { self = .string }
            else if T.self == Int.self { self = .int }
            else if T.self == Double.self { self = .double }
            else if T.self == Date.self { self = .date }
            else if T.self == UUID.self { self = .uuid }
            else if T.self == Data.self { self = .data }
            else if T.self == URL.self { self = .url }
            else if T.self == Decimal.self { self = .decimal }
            else if ObjectIdentifier(T.self) == CBOR.stringArrayType { self = .strings }
            else if T.self == Bool.self { self = .bool }
            else if T.self == Int64.self { self = .int64 }
            else if T.self == Float.self { self = .float }
            else { return nil }
        }
    }

    /// Whether a field table's name is `name`. Scans compare many names that differ: their lengths,
    /// stored inline in small strings, settle most of them without a full string comparison.
    @inline(__always)
    static func sameName(_ stored: String?, _ name: String) -> Bool {
        guard let stored, stored.utf8.count == name.utf8.count else { return false }
        return stored == name
    }

    /// Exact conversion of an IEEE half-precision bit pattern.
    static func halfToDouble(_ bits: UInt16) -> Double {
        let sign: Double = bits & 0x8000 != 0 ? -1 : 1
        let exponent = Int((bits >> 10) & 0x1F)
        let fraction = Double(bits & 0x3FF)
        switch exponent {
        case 0: return sign * fraction * 0x1p-24
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }
}

/// Why reading an item failed, before the decoder adds entity, key and field path.
@usableFromInline package enum CBORReadFailure: Error {
    /// The bytes are not valid CBOR at `offset`.
    case corrupt(offset: Int, reason: String)
    /// The item at `offset` is valid but not of the expected type.
    case mismatch(offset: Int, expected: String)
}
