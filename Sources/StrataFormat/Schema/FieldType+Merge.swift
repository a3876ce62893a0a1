extension FieldType {
    /// The narrowest type holding values of both: what schema inference makes of a field seen with
    /// both, and what the type check's sample of stored values (`StoredFieldSample`) makes of them.
    package static func merge(_ a: FieldType, _ b: FieldType) -> FieldType {
        switch (a, b) {
        case _ where a == b: return a
        case (.scalar(.integer), .scalar(.double)), (.scalar(.double), .scalar(.integer)): return .scalar(.double)
        case (.scalar(.date), .scalar(.string)), (.scalar(.string), .scalar(.date)), (.scalar(.uuid), .scalar(.string)), (.scalar(.string), .scalar(.uuid)), (.scalar(.date), .scalar(.uuid)), (.scalar(.uuid), .scalar(.date)): return .scalar(.string)
        case (.array(let x), .array(let y)):
            if x == .any, y != .any { return b }   // an empty array says nothing about the elements
            if y == .any { return a }
            return .array(merge(x, y))
        default: return .any
        }
    }
}
