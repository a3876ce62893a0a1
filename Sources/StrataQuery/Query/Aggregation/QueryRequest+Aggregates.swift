/// Aggregates of one field over the records a query returns: `min`, `max`, `sum`, `average`,
/// `distinct`. They read each record's field from its stored bytes (``StoredFieldValues``) and never
/// decode a record.
///
/// ```swift
/// try store.read { tx in
///     try tx.query(User.self).max(\.luckyNumber)                              // 13, as Int?
///     try tx.query(User.self).where(\.lastName == "Bluth").average(\.luckyNumber)  // 11.67: 3 of 5 have one
///     try tx.query(User.self).sum(\.luckyNumber)                              // 56, as Int
///     try tx.query(User.self).distinct(\.lastName)                            // ["Bluth", "Howser", "James", "Swanson"]
///     try tx.query(User.self).where("luckyNumber > %@", 5).min("luckyNumber") // .int(7)
/// }
/// ```
///
/// Results are typed by the key path: `min`/`max` return the field's type (`Int?` for an `Int` or
/// `Int?` field), `sum` the field's numeric type (zero when no value), `average` a `Double?`,
/// `distinct` an array of the field's type (nil included for an optional field). The overloads
/// taking a field name return ``QueryValue``s. Typed results go through the field type's key
/// encoding (``IndexableValue``), so the typed forms need an indexable field type; use the
/// field-name forms for others (enums, nested values).
///
/// A field the entity does not have is an `.invalidQuery` error naming it, as in a condition
/// (``KnownFields``). Nil and absent values are skipped by `min`, `max`, `sum` and `average`, as in SQL; `sum` and
/// `average` throw `.invalidQuery` on a value that is not a number, and a typed integer `sum` that
/// outgrows Int64 throws `.typeMismatch`. Every aggregate covers exactly the records the query
/// returns, so an `offset` or `limit` applies first (in the query's order), as with `count()`.
///
/// Without a window, when an index holds the answer, `min` and `max` read only the first or last
/// index key that has a value, and `distinct` only the index keys: without predicate, an index
/// led by the field (non-multi-value, binary keys); with one, the planner's index scan when it
/// answers the whole predicate and the field is the first one the scan does not pin to one value.
extension QueryRequest {
    /// The smallest non-nil value of the field among the results, or nil when there is none.
    public func min<V: IndexableValue & Comparable>(_ keyPath: KeyPath<Root, V> & Sendable) throws -> V? {
        try typed(extreme(KeyPathNames.components(of: keyPath), largest: false).value, keyPath)
    }

    /// The smallest non-nil value of an optional field among the results, or nil when there is none.
    public func min<V: IndexableValue & Comparable>(_ keyPath: KeyPath<Root, V?> & Sendable) throws -> V? {
        try typed(extreme(KeyPathNames.components(of: keyPath), largest: false).value, keyPath)
    }

    /// The smallest non-nil value of the field named `field` (dotted for nested fields).
    public func min(_ field: String) throws -> QueryValue? {
        try extreme(Aggregate<Root>.path(field), largest: false).value
    }

    /// The largest non-nil value of the field among the results, or nil when there is none.
    public func max<V: IndexableValue & Comparable>(_ keyPath: KeyPath<Root, V> & Sendable) throws -> V? {
        try typed(extreme(KeyPathNames.components(of: keyPath), largest: true).value, keyPath)
    }

    /// The largest non-nil value of an optional field among the results, or nil when there is none.
    public func max<V: IndexableValue & Comparable>(_ keyPath: KeyPath<Root, V?> & Sendable) throws -> V? {
        try typed(extreme(KeyPathNames.components(of: keyPath), largest: true).value, keyPath)
    }

    /// The largest non-nil value of the field named `field`.
    public func max(_ field: String) throws -> QueryValue? {
        try extreme(Aggregate<Root>.path(field), largest: true).value
    }

    /// The sum of the field's values among the results; zero when there are none.
    public func sum<V: IndexableValue & Numeric>(_ keyPath: KeyPath<Root, V> & Sendable) throws -> V {
        try typed(numeric(.sum, KeyPathNames.components(of: keyPath)).value, keyPath) ?? .zero
    }

    /// The sum of the non-nil values of an optional field; zero when there are none.
    public func sum<V: IndexableValue & Numeric>(_ keyPath: KeyPath<Root, V?> & Sendable) throws -> V {
        try typed(numeric(.sum, KeyPathNames.components(of: keyPath)).value, keyPath) ?? .zero
    }

    /// The sum of the field named `field`: `.int` while exact in Int64, else `.double`; nil when
    /// no result has a value (SQL's `SUM`).
    public func sum(_ field: String) throws -> QueryValue? {
        try numeric(.sum, Aggregate<Root>.path(field)).value
    }

    /// The mean of the field's non-nil values among the results, or nil when there are none.
    public func average<V>(_ keyPath: KeyPath<Root, V> & Sendable) throws -> Double? {
        try average(of: KeyPathNames.components(of: keyPath))
    }

    /// The mean of the non-nil values of the field named `field`, or nil when there are none.
    public func average(_ field: String) throws -> Double? {
        try average(of: Aggregate<Root>.path(field))
    }

    /// The distinct values of the field among the results, in ascending order (nil first).
    public func distinct<V: IndexableValue & Hashable>(_ keyPath: KeyPath<Root, V> & Sendable) throws -> [V] {
        let field = KeyPathNames.components(of: keyPath)
        return try groups(by: field, [], distinct: true).map { group throws(StrataError) in
            try group.key.converted(to: V.self, field: field, entity: entity)
        }
    }

    /// The distinct values of the field named `field`, in the order queries sort values (nil first).
    public func distinct(_ field: String) throws -> [QueryValue] {
        try groups(by: Aggregate<Root>.path(field), [], distinct: true).map(\.key)
    }

    // MARK: Internals, with the source of the answer (for tests)

    /// `min` or `max` of `field` as a query value, and where it came from.
    package func extreme(_ field: [String], largest: Bool) throws -> (value: QueryValue?, source: AggregateSource) {
        try checkAggregated(field, largest ? "max" : "min")
        guard let runner = try runner() else { return (nil, Self.noRecords) }
        if let answer = try runner.indexExtreme(field, largest: largest) { return answer }
        var accumulator = AggregateAccumulator(largest ? .max : .min)
        let entity = self.entity
        let source = try runner.forEachRecord { fields in try accumulator.add(fields.queryValue(at: field), field: field, entity: entity) }
        return (accumulator.result, source)
    }

    /// `sum` or `average` of `field` as a query value, and where it came from.
    package func numeric(_ function: AggregateFunction, _ field: [String]) throws -> (value: QueryValue?, source: AggregateSource) {
        try checkAggregated(field, function.rawValue)
        guard let runner = try runner() else { return (nil, Self.noRecords) }
        var accumulator = AggregateAccumulator(function)
        let entity = self.entity
        let source = try runner.forEachRecord { fields in try accumulator.add(fields.queryValue(at: field), field: field, entity: entity) }
        return (accumulator.result, source)
    }

    /// `count()` from the record count or an index's entries, with its source (the plan that
    /// counted them); nil when the records had to be read.
    package func indexOnlyCount() throws -> (count: Int, source: AggregateSource)? {
        let answer = try countWithSource()
        guard let plan = answer.plan else { return (0, Self.noRecords) }
        switch answer.source {
        case .recordCount: return (answer.count, AggregateSource(kind: .recordCount, detail: plan.entity))
        case .indexEntries: return (answer.count, AggregateSource(kind: .indexCount, detail: plan.description))
        case .keys, .records: return nil
        }
    }

    /// Checks the field an aggregate reads as a condition's field is checked
    /// (``KnownFields/check(_:column:for:)``, `.unknownField`): "sum(agee): unknown field
    /// 'agee' in User (did you mean 'age'?)". Nothing is checked for an entity the store lacks.
    package func checkAggregated(_ field: [String], _ function: String, label: String = "") throws(StrataError) {
        try knownFields?.check(field, for: "\(function)(\(label)\(field.joined(separator: ".")))")
    }

    private func average(of field: [String]) throws -> Double? {
        if case .double(let mean)? = try numeric(.average, field).value { return mean }
        return nil
    }

    private func runner() throws -> AggregateRunner<Root>? {
        guard let context = try resolvedContext() else { return nil }
        return AggregateRunner(transaction: transaction, context: context, query: try preparedWithinLimit(context), timeout: timeLimit)
    }

    private static var noRecords: AggregateSource { AggregateSource(kind: .records, detail: "no records") }

    private func typed<V: IndexableValue, Field>(_ value: QueryValue?, _ keyPath: KeyPath<Root, Field>) throws -> V? {
        try value.map { value throws(StrataError) in
            try value.converted(to: V.self, field: KeyPathNames.components(of: keyPath), entity: entity)
        }
    }
}
