extension EntityDescription {
    /// The description of the record type `type` from its `Decodable` conformance (the schema
    /// probe), made once per type and kept for the process; nil when the type cannot be probed.
    /// What writes through a type keep of fields it does not know, the fields an index declared
    /// on it may name and the types its queries are checked against all come from here.
    package static func probed<T: Record>(_ type: T.Type) -> EntityDescription? {
        let id = ObjectIdentifier(type)
        if let known = probedTypes.withLock({ $0[id] }) { return known }
        let description = try? EntityDescription(type)
        probedTypes.withLock { $0[id] = description }
        return description
    }

    private static let probedTypes = ConditionLock<[ObjectIdentifier: EntityDescription?]>([:])
}
