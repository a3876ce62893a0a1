/// The ranges of a record type's top-level integer fields whose Swift type holds less than every
/// integer a field can hold (``WideInteger``: `Int128.min` through `UInt128.max`), by field name, as
/// ``EntityDescription/init(_:)`` reads them from the type.
///
/// JSON integers are mapped as wide values, so without these an `Int8` field would take 300 and
/// store a record its type cannot read back. They are a property of the Swift type, not of the
/// stored description: not in the schema-file format, and no part of a description's equality.
package struct IntegerRanges: Sendable, Hashable {
    package var byField: [String: ClosedRange<WideInteger>] = [:]

    package static func == (lhs: IntegerRanges, rhs: IntegerRanges) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}

    /// The range of `type` when it is an integer type that cannot hold every wide integer
    /// (``ScalarType``'s table).
    static func range<T>(of type: T.Type) -> ClosedRange<WideInteger>? {
        guard let range = ScalarType.swiftType(type, throughOptional: false)?.integerRange,
              range != WideInteger.min...WideInteger.max else { return nil }
        return range
    }

    /// Every value of `Int64`: what the importer's direct path writes for a JSON integer.
    package static let int64 = WideInteger(Int64.min)...WideInteger(Int64.max)
}
