import Foundation

/// A value in a predicate: what literals and arguments become.
public enum QueryValue: Sendable, Hashable {
    /// nil (`nil`, `NULL`).
    case null
    /// A Boolean.
    case bool(Bool)
    /// A signed integer that fits `Int64`.
    case int(Int64)
    /// Unsigned values above `Int64.max`.
    case uint(UInt64)
    /// Integers beyond 64 bits (`Int128` and `UInt128` values below `Int64.min` or above `UInt64.max`).
    case wideInt(WideInteger)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// A date.
    case date(Date)
    /// A UUID.
    case uuid(UUID)
    /// Bytes (`Data`).
    case data(Data)
    /// A list of values: the right-hand side of `IN` and `BETWEEN`, or a compound primary key's values.
    case list([QueryValue])
}
