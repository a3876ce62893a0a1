/// The kinds of values an index key can hold.
public enum ValueKind: String, Sendable, Codable, Hashable {
    /// Integers of every width, floating point, strings, dates, UUIDs, Booleans, and any other value.
    case integer, double, string, date, uuid, bool, other

    /// True when `value` can be looked up in keys of this kind (nil can, in every kind).
    package func accepts(_ value: QueryValue) -> Bool {
        switch (self, value) {
        case (_, .null), (.integer, .int), (.integer, .uint), (.integer, .wideInt), (.double, .double), (.string, .string),
             (.date, .date), (.uuid, .uuid), (.bool, .bool):
            return true
        case (.double, .int(let integer)):
            return Double(exactly: integer) != nil
        default:
            return false
        }
    }
}
