/// Grouping: the records of a query by the value of one field, with counts and aggregates per group.
///
/// ```swift
/// try store.read { tx in
///     let families = try tx.query(User.self)
///         .group(by: \.lastName, aggregating: .average(\.luckyNumber), .min(\.luckyNumber))
///         .having { $0.count > 1 }
///     for family in families {
///         print(family.key, family.count, family.average(\.luckyNumber) ?? 0, family.min(\.luckyNumber) ?? .null)
///     }
///     // Bluth 5 11.67 9   (Buster and Oscar have no lucky number: skipped by average and min)
///     try tx.query(User.self).where(\.luckyNumber > 5).group(by: "lastName").map(\.count)
/// }
/// ```
///
/// Groups come back ordered by key: nil first, then in ``QueryValueOrder``. Strings group by
/// their exact (binary) value. A grouping query with only counts and no window reads no record
/// when an index holds the answer (as for `distinct`: an index led by the
/// field, or the index scan that answers the whole predicate with the field first among those
/// it does not pin): it walks the index keys and their duplicate counts. The other aggregates
/// read each matching record's fields from its stored bytes, without decoding the record.
extension QueryRequest {
    /// The query's records grouped by the value of `keyPath`, each group with its `count` and
    /// the `aggregates` asked for (read them with `group.average(\.field)`, `group[.max(\.field)]`).
    /// Narrow the groups with ``AggregateGroups/having(_:)``.
    public func group<Key: IndexableValue & Hashable>(
        by keyPath: KeyPath<Root, Key> & Sendable, aggregating aggregates: Aggregate<Root>...
    ) throws -> AggregateGroups<Root, Key> {
        let field = KeyPathNames.components(of: keyPath)
        let untyped = try groups(by: field, aggregates)
        let groups = try untyped.groups.map { group throws(StrataError) in
            group.withKey(try group.key.converted(to: Key.self, field: field, entity: entity))
        }
        return AggregateGroups(groups: groups, source: untyped.source)
    }

    /// As ``group(by:aggregating:)->AggregateGroups<Root,Key>``, with the field by stored name
    /// (`"lastName"`, `"address.city"`) and the keys as query values.
    public func group(by field: String, aggregating aggregates: Aggregate<Root>...) throws -> AggregateGroups<Root, QueryValue> {
        try groups(by: Aggregate<Root>.path(field), aggregates)
    }

    /// The groups with query-value keys, and how they were computed (for `distinct` when
    /// `distinct`, as error messages name it). Fields the entity does not have are `.invalidQuery`
    /// errors, as in conditions.
    package func groups(by field: [String], _ aggregates: [Aggregate<Root>], distinct: Bool = false) throws -> AggregateGroups<Root, QueryValue> {
        try checkAggregated(field, distinct ? "distinct" : "group", label: distinct ? "" : "by: ")
        for aggregate in aggregates where aggregate.function != .count { try checkAggregated(aggregate.field, aggregate.function.rawValue) }
        guard let context = try resolvedContext() else {
            return AggregateGroups(groups: [], source: AggregateSource(kind: .records, detail: "no \(entity) records"))
        }
        let runner = AggregateRunner(transaction: transaction, context: context, query: try preparedWithinLimit(context), timeout: timeLimit)
        var computed: [Aggregate<Root>] = []
        for aggregate in aggregates where aggregate.function != .count && !computed.contains(aggregate) { computed.append(aggregate) }

        var groups: [AggregateGroup<Root, QueryValue>]
        let source: AggregateSource
        if computed.isEmpty, let answer = try runner.indexGroupCounts(field) {
            groups = answer.groups.map { AggregateGroup(key: $0.key, count: $0.count, aggregates: [], values: []) }
            source = answer.source
        } else {
            var table: [GroupKey: GroupState] = [:]
            let entity = self.entity
            source = try runner.forEachRecord { fields in
                let key = GroupKey(value: fields.queryValue(at: field) ?? .null)
                try table[key, default: GroupState(computed)].add(fields, computed, entity: entity)
            }
            groups = table.map { key, state in
                AggregateGroup(key: key.value, count: state.count, aggregates: computed, values: state.accumulators.map(\.result))
            }
        }
        groups.sort { QueryValueOrder.compare($0.key, $1.key, options: []) < 0 }
        return AggregateGroups(groups: groups, source: source)
    }
}

/// One group's running count and aggregates.
private struct GroupState {
    var count = 0
    var accumulators: [AggregateAccumulator]

    init<Root>(_ aggregates: [Aggregate<Root>]) {
        accumulators = aggregates.map { AggregateAccumulator($0.function) }
    }

    mutating func add<Root>(_ fields: StoredFieldValues, _ aggregates: [Aggregate<Root>], entity: String) throws(StrataError) {
        count += 1
        for position in aggregates.indices {
            try accumulators[position].add(fields.queryValue(at: aggregates[position].field), field: aggregates[position].field, entity: entity)
        }
    }
}
