import Foundation

extension QueryValue {
    /// This value as a value of `kind`, when it is text that spells one (`"42"` for an integer
    /// key); nil when no conversion applies.
    package func converted(toKind kind: ValueKind) -> QueryValue? {
        guard case .string(let text) = self else { return nil }
        switch kind {
        case .integer: return ValueConverter.integer(.string(text))?.queryValue   // "1.0" as import takes it
        case .double: return Double(text).map(QueryValue.double)
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case .uuid: return UUID(uuidString: text).map(QueryValue.uuid)
        case .date: return DateParsing.seconds(.string(text), format: .automatic).map { .date(Date(timeIntervalSince1970: $0)) }
        case .string, .other: return nil
        }
    }
}
