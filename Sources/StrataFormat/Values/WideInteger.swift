/// An integer of any width a field can hold, from `Int128.min` through `UInt128.max`: a sign and a
/// magnitude.
///
/// It is the one model of an integer value. Every integer field type shares it (an `Int8` and a
/// `UInt128` field hold values of the same kind, compared by value), and the places that meet
/// integers without their Swift type go through it: the stored CBOR (major types 0 and 1, and the
/// bignum tags 2 and 3 beyond 64 bits), index keys (`OrderedKey`), query values (``QueryValue``,
/// whose `int` and `uint` cases are its 64-bit forms and `wideInt` the rest) and JSON numbers.
public struct WideInteger: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// True for values below zero (zero is never negative).
    public let isNegative: Bool
    /// The absolute value.
    public let magnitude: UInt128

    /// The smallest value: `Int128.min`.
    public static let min = WideInteger(Int128.min)
    /// The largest value: `UInt128.max`.
    public static let max = WideInteger(UInt128.max)

    /// `value`, which every fixed-width integer of at most 128 bits is exactly.
    public init<I: BinaryInteger>(_ value: I) {
        isNegative = value < 0
        magnitude = UInt128(value.magnitude)
    }

    /// The value with this sign and magnitude, or nil outside `Int128.min ... UInt128.max`.
    public init?(isNegative: Bool, magnitude: UInt128) {
        if isNegative, magnitude > UInt128(Int128.max) + 1 { return nil }
        self.isNegative = isNegative && magnitude != 0
        self.magnitude = magnitude
    }

    /// The value of decimal digits with an optional leading `-`, or nil when they are not an
    /// integer in range.
    public init?(_ text: some StringProtocol) {
        let negative = text.hasPrefix("-")
        guard let magnitude = UInt128(negative ? text.dropFirst() : text[...], radix: 10) else { return nil }
        self.init(isNegative: negative, magnitude: magnitude)
    }

    /// The value as `I`, or nil when `I` cannot hold it.
    public func exactly<I: FixedWidthInteger>(_: I.Type) -> I? {
        if isNegative {
            let value = magnitude == UInt128(Int128.max) + 1 ? Int128.min : -Int128(magnitude)
            return I(exactly: value)
        }
        return I(exactly: magnitude)
    }

    /// The nearest `Double`.
    public var doubleValue: Double { isNegative ? -Double(magnitude) : Double(magnitude) }

    /// The value's query form: `int` in `Int64`'s range, `uint` above it up to `UInt64.max`,
    /// `wideInt` beyond.
    public var queryValue: QueryValue {
        if let value = exactly(Int64.self) { return .int(value) }
        if let value = exactly(UInt64.self) { return .uint(value) }
        return .wideInt(self)
    }

    public var description: String { isNegative ? "-\(magnitude)" : String(magnitude) }

    public static func < (a: WideInteger, b: WideInteger) -> Bool {
        if a.isNegative != b.isNegative { return a.isNegative }
        return a.isNegative ? a.magnitude > b.magnitude : a.magnitude < b.magnitude
    }
}

extension QueryValue {
    /// The integer this value holds (`int`, `uint` or `wideInt`), or nil for every other kind.
    public var wideInteger: WideInteger? {
        switch self {
        case .int(let value): WideInteger(value)
        case .uint(let value): WideInteger(value)
        case .wideInt(let value): value
        default: nil
        }
    }
}
