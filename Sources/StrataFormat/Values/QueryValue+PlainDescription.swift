import Foundation

extension QueryValue {
    /// The value as a person reads it in a message: strings without quotes, dates in ISO 8601.
    package var plainDescription: String {
        switch self {
        case .string(let value): value
        case .date(let value): value.formatted(.iso8601)
        default: explained
        }
    }

    /// The value as the predicate format writes it (`explain`, messages): strings quoted and
    /// escaped, dates as `CAST(…)`, long lists shortened.
    package var explained: String {
        switch self {
        case .null: return "nil"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .wideInt(let value): return value.description
        case .double(let value): return String(value)
        case .string(let value): return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .date(let value): return "CAST('\(ISO8601DateFormatter().string(from: value))', 'NSDate')"
        case .uuid(let value): return "'\(value.uuidString)'"
        case .data(let value): return "<\(value.count) bytes>"
        case .list(let values) where values.count > 8:
            return "{" + values.prefix(5).map(\.explained).joined(separator: ", ") + ", … \(values.count - 5) more}"
        case .list(let values): return "{" + values.map(\.explained).joined(separator: ", ") + "}"
        }
    }
}
