extension ReadTransaction {
    /// The record `record` refers to through `relationship`, or nil when its reference is nil or
    /// names no stored record.
    public func parent<Source, Target>(_ relationship: ToOne<Source, Target>, of record: Source) throws -> Target? {
        guard let key = record[keyPath: relationship.key] else { return nil }
        return try get(Target.self, key: key)
    }

    /// The records that refer to `target` through `relationship` (its inverse, to-many side: a
    /// user's notes), in primary key order, found through the index on the reference field.
    public func related<Source, Target>(_ relationship: ToOne<Source, Target>, of target: Target) throws -> [Source] {
        try referring(relationship, to: target).all()
    }

    /// How many records refer to `target` through `relationship`, counted in the index without
    /// reading them (`notes.@count`).
    public func count<Source, Target>(_ relationship: ToOne<Source, Target>, of target: Target) throws -> Int {
        try referring(relationship, to: target).count()
    }

    /// The records whose keys `record` lists through `relationship`, in list order; keys without
    /// a stored record are left out.
    public func related<Source, Target>(_ relationship: ToMany<Source, Target>, of record: Source) throws -> [Target] {
        try get(Target.self, keys: record[keyPath: relationship.keys])
    }

    /// The records that list `target` through `relationship` (its inverse: the recipes that use
    /// an ingredient), in primary key order, through the multi-value index on the key list.
    public func related<Source, Target>(_ relationship: ToMany<Source, Target>, listing target: Target) throws -> [Source] {
        let comparison = FieldComparison(field: [relationship.keyField], op: .equal,
                                         value: try QueryValue(argument: target.primaryKeyValue), quantifier: .any)
        return try query(Source.self).filtered(by: .comparison(comparison)).all()
    }

    private func referring<Source, Target>(_ relationship: ToOne<Source, Target>, to target: Target) throws -> QueryRequest<Source> {
        let comparison = FieldComparison(field: [relationship.keyField], op: .equal, value: try QueryValue(argument: target.primaryKeyValue))
        return query(Source.self).filtered(by: .comparison(comparison))
    }
}

extension QueryRequest {
    /// This request with `predicate` added (AND).
    package func filtered(by predicate: QueryPredicate) -> Self {
        var copy = self
        copy.query = query.filtered(by: predicate)
        return copy
    }
}
