import Foundation

/// A Swift value that can stand in a typed predicate: `\.luckyNumber > 5`, `\.lastName == "Bluth"`.
public protocol QueryValueConvertible: Sendable {
    /// The value as the predicate tree holds it.
    var queryValue: QueryValue { get }
}

extension String: QueryValueConvertible { public var queryValue: QueryValue { .string(self) } }
extension Bool: QueryValueConvertible { public var queryValue: QueryValue { .bool(self) } }
extension Double: QueryValueConvertible { public var queryValue: QueryValue { .double(self) } }
extension Float: QueryValueConvertible { public var queryValue: QueryValue { .double(Double(self)) } }
extension Date: QueryValueConvertible { public var queryValue: QueryValue { .date(self) } }
extension UUID: QueryValueConvertible { public var queryValue: QueryValue { .uuid(self) } }
extension Data: QueryValueConvertible { public var queryValue: QueryValue { .data(self) } }
extension Int: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int8: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int16: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int32: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension Int64: QueryValueConvertible { public var queryValue: QueryValue { .int(self) } }
extension UInt8: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension UInt16: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension UInt32: QueryValueConvertible { public var queryValue: QueryValue { .int(Int64(self)) } }
extension UInt64: QueryValueConvertible {
    public var queryValue: QueryValue { self <= UInt64(Int64.max) ? .int(Int64(self)) : .uint(self) }
}
extension UInt: QueryValueConvertible { public var queryValue: QueryValue { UInt64(self).queryValue } }
extension Int128: QueryValueConvertible { public var queryValue: QueryValue { WideInteger(self).queryValue } }
extension UInt128: QueryValueConvertible { public var queryValue: QueryValue { WideInteger(self).queryValue } }

extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
    public var queryValue: QueryValue { self?.queryValue ?? .null }
}

extension RawRepresentable where Self: Sendable, RawValue: QueryValueConvertible {
    /// Enums with raw values compare by their raw value, as they are stored.
    public var queryValue: QueryValue { rawValue.queryValue }
}
