/// The kinds of values an index key can hold.
public enum ValueKind: String, Sendable, Codable, Hashable {
    case integer, double, string, date, uuid, bool, other

    /// The kind of a Swift type, looking through `Optional`.
    init(_ type: Any.Type) {
        var name = String(describing: type)
        while name.hasPrefix("Optional<"), name.hasSuffix(">") { name = String(name.dropFirst(9).dropLast()) }
        switch name {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": self = .integer
        case "Double", "Float": self = .double
        case "String": self = .string
        case "Date": self = .date
        case "UUID": self = .uuid
        case "Bool": self = .bool
        default: self = .other
        }
    }

    /// True when `value` can be looked up in keys of this kind (nil can, in every kind).
    func accepts(_ value: QueryValue) -> Bool {
        switch (self, value) {
        case (_, .null), (.integer, .int), (.integer, .uint), (.double, .double), (.string, .string),
             (.date, .date), (.uuid, .uuid), (.bool, .bool):
            return true
        case (.double, .int(let integer)):
            return Double(exactly: integer) != nil
        default:
            return false
        }
    }
}
