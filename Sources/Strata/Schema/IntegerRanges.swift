/// The ranges of a record type's top-level integer fields narrower than `Int64`, by field name,
/// as ``EntityDescription/init(_:)`` reads them from the type.
///
/// JSON integers are mapped as 64-bit values, so without these an `Int8` field would take 300 and
/// store a record its type cannot read back. They are a property of the Swift type, not of the
/// stored description: not in the schema-file format, and no part of a description's equality.
struct IntegerRanges: Sendable, Hashable {
    var byField: [String: ClosedRange<Int64>] = [:]

    static func == (lhs: IntegerRanges, rhs: IntegerRanges) -> Bool { true }
    func hash(into hasher: inout Hasher) {}

    /// The range of `type` when it is an integer type narrower than `Int64` (or unsigned).
    static func range<T>(of type: T.Type) -> ClosedRange<Int64>? {
        switch type {
        case is Int8.Type: Int64(Int8.min)...Int64(Int8.max)
        case is Int16.Type: Int64(Int16.min)...Int64(Int16.max)
        case is Int32.Type: Int64(Int32.min)...Int64(Int32.max)
        case is UInt8.Type: 0...Int64(UInt8.max)
        case is UInt16.Type: 0...Int64(UInt16.max)
        case is UInt32.Type: 0...Int64(UInt32.max)
        case is UInt64.Type, is UInt.Type: 0...Int64.max
        default: nil
        }
    }
}
