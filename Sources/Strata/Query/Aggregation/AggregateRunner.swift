import LMDB

/// Computes aggregates of one query: from index keys alone when an index holds the exact answer,
/// otherwise from the stored bytes of the matching records (``StoredFieldValues``, no decoding).
/// Counts are the query's own `count()`, which the planner answers from index entries.
///
/// An index answers exactly only when its keys are the values themselves: a non-multi-value index
/// whose leading field is the aggregated one, with binary keys (or, for a condition, the
/// condition's own collation), and keys not cut short inside the leading value. Doubles and dates
/// need one more check: index keys order NaN last where ``QueryValueOrder`` orders it first, so an
/// index holding a NaN is not used. Every index answer returns nil when in doubt, and the caller
/// takes the record path.
struct AggregateRunner<Root> {
    let transaction: ReadTransaction
    let context: EntityContext
    let query: Query<Root>
    /// The query's time limit (``QueryRequest/timeout(_:)``).
    var timeout: Duration?

    var entity: String { context.name }
    /// Neither offset nor limit: the aggregate covers every match, whatever their order.
    var isUnwindowed: Bool { query.limit == nil && query.offset == 0 }

    // MARK: Record path

    /// Calls `body` with the fields of every record the query returns; returns the plan used.
    func forEachRecord(_ body: (StoredFieldValues) throws -> Void) throws -> AggregateSource {
        var query = self.query
        if isUnwindowed { query.orderings = [] }   // order cannot change an aggregate of all matches
        let plan = try QueryPlanner<Root>(transaction: transaction, context: context).plan(query)
        try QueryExecutor(transaction: transaction, context: context, plan: plan, predicate: query.predicate, timeout: timeout)
            .forEachResult { match in
                try body(try StoredFieldValues(bytes: match.bytes, fields: context.schema.fields, entity: context.name))
                return true
            }
        return AggregateSource(kind: .records, detail: plan.description)
    }

    // MARK: Index-only answers

    /// The smallest or largest non-nil value of `field` from the first or last index key, for a
    /// query without predicate or window.
    func indexExtreme(_ field: [String], largest: Bool) throws -> (value: QueryValue?, source: AggregateSource)? {
        guard query.predicate == .constant(true), isUnwindowed,
              let index = indexes(on: field, collation: []).first, try !holdsNaN(index) else { return nil }
        let key = try withCursor(index) { cursor in
            (largest ? try cursor.last() : try cursor.seek(atLeast: [OrderedKey.nilTag + 1])) ? cursor.key : nil
        }
        let source = AggregateSource(kind: .indexEnds, detail: "\(entity).\(index.name)")
        guard let key else { return (nil, source) }
        guard let value = QueryValue.leadingValue(ofIndexKey: key) else { return nil }
        return (value == .null ? nil : value, source)
    }

    /// The distinct values of `field` with their record counts, from the index keys and their
    /// duplicate counts, in index order; for a query without predicate or window.
    func indexGroupCounts(_ field: [String]) throws -> (groups: [(key: QueryValue, count: Int)], source: AggregateSource)? {
        guard query.predicate == .constant(true), isUnwindowed, let index = indexes(on: field, collation: []).first else { return nil }
        let groups = try withCursor(index) { cursor -> [(key: QueryValue, count: Int)]? in
            var groups: [(key: QueryValue, count: Int)] = []
            var more = try cursor.first()
            while more {
                guard let value = QueryValue.leadingValue(ofIndexKey: cursor.key) else { return nil }
                let count = try cursor.duplicateCount()
                if let last = groups.last, QueryValueOrder.compare(last.key, value, options: []) == 0 {
                    groups[groups.count - 1].count += count   // a compound index: same leading value, next key
                } else {
                    groups.append((value, count))
                }
                more = try cursor.nextKey()
            }
            return groups
        }
        return groups.map { ($0, AggregateSource(kind: .indexGroups, detail: "\(entity).\(index.name)")) }
    }

    // MARK: Helpers

    struct UsableIndex {
        let name: String
        let database: Database
        let leading: IndexedField
        let isSingleField: Bool
    }

    /// The built non-multi-value indexes led by `field` whose keys order its values exactly:
    /// strings only under the given collation, single-field indexes first.
    func indexes(on field: [String], collation options: StringComparisonOptions) -> [UsableIndex] {
        context.schema.indexes.compactMap { descriptor -> UsableIndex? in
            guard !descriptor.isMultiValue, let leading = descriptor.fields.first, leading.path == field,
                  leading.kind != .other, leading.kind != .string || leading.collation.options == options,
                  let database = context.indexes[descriptor.name] else { return nil }
            return UsableIndex(name: descriptor.name, database: database, leading: leading, isSingleField: descriptor.fields.count == 1)
        }.sorted { $0.isSingleField && !$1.isSingleField }
    }

    /// True when a double or date index holds NaN (its last key).
    private func holdsNaN(_ index: UsableIndex) throws -> Bool {
        guard index.leading.kind == .double || index.leading.kind == .date else { return false }
        let last = try withCursor(index) { cursor in try cursor.last() ? cursor.key : nil }
        return last.flatMap(QueryValue.leadingValue(ofIndexKey:))?.isNaN ?? false
    }

    private func withCursor<R>(_ index: UsableIndex, _ body: (Cursor) throws -> R) throws -> R {
        try transaction.withIndexCursor(index.database, entity: entity, body)
    }

}
