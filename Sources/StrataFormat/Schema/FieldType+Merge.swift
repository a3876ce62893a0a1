extension FieldType {
    /// The narrowest type holding values of both: what schema inference makes of a field seen with
    /// both, and what the type check's sample of stored values (`StoredFieldSample`) makes of them.
    package static func merge(_ a: FieldType, _ b: FieldType) -> FieldType {
        switch (a, b) {
        case _ where a == b: return a
        case (.integer, .double), (.double, .integer): return .double
        case (.date, .string), (.string, .date), (.uuid, .string), (.string, .uuid), (.date, .uuid), (.uuid, .date): return .string
        case (.array(let x), .array(let y)):
            if x == .any, y != .any { return b }   // an empty array says nothing about the elements
            if y == .any { return a }
            return .array(merge(x, y))
        default: return .any
        }
    }
}
