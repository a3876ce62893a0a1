/// How a date is written in JSON.
public enum DateFormat: String, Sendable, Hashable, Codable {
    /// ISO 8601 with or without fractional seconds, `Z` or an offset, or a date alone; or a number
    /// of seconds since 1970 (numbers above 100,000,000,000 are taken as milliseconds).
    case automatic
    /// ISO 8601 only.
    case iso8601
    /// A number (or numeric string) of seconds since 1970.
    case secondsSince1970
    /// A number (or numeric string) of milliseconds since 1970.
    case millisecondsSince1970
}
