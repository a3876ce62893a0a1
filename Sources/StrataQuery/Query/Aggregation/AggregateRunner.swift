@_spi(Format) import StrataFormat
import LMDB

/// Computes aggregates of one query: from index keys alone when an index holds the exact answer,
/// otherwise from the stored bytes of the matching records (``StoredFieldValues``, no decoding).
/// Counts are the query's own `count()`, which the planner answers from index entries.
///
/// An index answers exactly only when its keys are the values themselves, in their order, and its
/// entries are exactly the query's records (``keyWalk(ordering:)``): non-multi-value, binary keys
/// for strings, keys not cut. Doubles and dates need one more check: index keys order NaN last
/// where ``QueryValueOrder`` orders it first, so a walk meeting a NaN is not used. Every index
/// answer returns nil when in doubt, and the caller takes the record path.
package struct AggregateRunner<Root> {
    package let transaction: ReadTransaction
    package let context: EntityContext
    package let query: Query<Root>
    /// The query's time limit (``QueryRequest/timeout(_:)``).
    package var timeout: Duration?

    package var entity: String { context.name }
    /// Neither offset nor limit: the aggregate covers every match, whatever their order.
    package var isUnwindowed: Bool { query.limit == nil && query.offset == 0 }

    // MARK: Record path

    /// Calls `body` with the fields of every record the query returns; returns the plan used.
    package func forEachRecord(_ body: (StoredFieldValues) throws -> Void) throws -> AggregateSource {
        var query = self.query
        if isUnwindowed { query.orderings = [] }   // order cannot change an aggregate of all matches
        let plan = try QueryPlanner(transaction: transaction, context: context).plan(query)
        try QueryExecutor(transaction: transaction, context: context, plan: plan, predicate: query.predicate, timeout: timeout)
            .forEachResult { match in
                try body(try StoredFieldValues(bytes: match.bytes, fields: context.schema.fields, entity: context.name))
                return true
            }
        return AggregateSource(kind: .records, detail: plan.description)
    }

    // MARK: Index-only answers

    /// The smallest or largest non-nil value of `field` from the first or last index key of the
    /// query's key walk (``keyWalk(ordering:)``) that holds one.
    package func indexExtreme(_ field: [String], largest: Bool) throws -> (value: QueryValue?, source: AggregateSource)? {
        guard let walk = try keyWalk(ordering: field) else { return nil }
        var found: QueryValue?
        var usable = true
        if !largest, [.double, .date].contains(walk.probe.fields[walk.position].kind) {
            // NaN, ordered first by queries, sorts last in keys: the smallest value needs its absence.
            try walk.probe.walk(walk.condition, reversed: true) { key, _ in
                usable = walk.value(ofKey: key).map { !$0.isNaN } ?? false
                return false
            }
        }
        // True to go on to the next key: this one holds nil.
        func take(_ key: [UInt8]) -> Bool {
            guard usable else { return false }
            guard let value = walk.value(ofKey: key), !value.isNaN else { usable = false; return false }
            if value == .null { return true }
            found = value
            return false
        }
        if largest {
            try walk.probe.walk(walk.condition, reversed: true) { key, _ in take(key) }
        } else {
            // Distinct keys, not entries: the nil values, which come first, are passed a key at a time.
            try walk.probe.forEachKey(walk.condition, counting: false) { key, _ in take(key) }
        }
        guard usable else { return nil }
        return (found, AggregateSource(kind: .indexEnds, detail: walk.detail))
    }

    /// The distinct values of `field` with their record counts, from the index keys of the
    /// query's key walk (``keyWalk(ordering:)``) and their duplicate counts, in index order.
    package func indexGroupCounts(_ field: [String]) throws -> (groups: [(key: QueryValue, count: Int)], source: AggregateSource)? {
        guard let walk = try keyWalk(ordering: field) else { return nil }
        var groups: [(key: QueryValue, count: Int)] = []
        var usable = true
        try walk.probe.forEachKey(walk.condition) { key, entries in
            guard let value = walk.value(ofKey: key), !value.isNaN else { usable = false; return false }
            if let last = groups.last, QueryValueOrder.compare(last.key, value, options: []) == 0 {
                groups[groups.count - 1].count += entries   // a compound index: the same value, a later field's next key
            } else {
                groups.append((value, entries))
            }
            return true
        }
        return usable ? (groups, AggregateSource(kind: .indexGroups, detail: walk.detail)) : nil
    }

    /// An index walk whose entries are exactly the query's records and whose keys come in the
    /// order of `field`: the keys of an index whose field at `position` is `field`, every field
    /// before it pinned to one value. Without predicate, an index led by the field (single-field
    /// indexes first); with one, the planner's index scan when it answers the whole predicate
    /// (exact, nothing left to filter) and the field is the first one it does not pin. The field's
    /// keys must order its values exactly (binary strings, a kind of its own). Nil for a query with
    /// a window, or when there is no such walk.
    package struct KeyWalk {
        package let probe: IndexProbe
        package let condition: QueryPlan.IndexCondition
        /// The field's place in the index's keys.
        package let position: Int
        /// What the source names: the index, or the plan.
        package let detail: String

        /// The field's value in an index key; nil when the key was cut before its end.
        package func value(ofKey key: [UInt8]) -> QueryValue? {
            guard !IndexKey.mayBeTruncated(key) else { return nil }
            var offset = 0
            for _ in 0..<position {
                guard (try? OrderedKey.queryValue(from: key, at: &offset)) != nil else { return nil }
            }
            return try? OrderedKey.queryValue(from: key, at: &offset)
        }
    }

    package func keyWalk(ordering field: [String]) throws -> KeyWalk? {
        guard isUnwindowed else { return nil }
        if query.predicate == .constant(true) {
            guard let index = indexes(on: field, collation: []).first,
                  let descriptor = context.schema.indexes.first(where: { $0.name == index.name }) else { return nil }
            return KeyWalk(probe: IndexProbe(transaction: transaction, database: index.database, fields: descriptor.fields),
                           condition: .all, position: 0, detail: "\(entity).\(index.name)")
        }
        var keysOnly = query
        keysOnly.orderings = []
        keysOnly.keysOnly = true
        let plan = try QueryPlanner(transaction: transaction, context: context).plan(keysOnly)
        guard plan.exactAccess, plan.residual == .constant(true), plan.semiJoins.isEmpty,
              case .indexScan(let name, let fields, let condition) = plan.access,
              let descriptor = context.schema.indexes.first(where: { $0.name == name }), !descriptor.isMultiValue,
              let database = context.indexes[name] else { return nil }
        let position = QueryPlanner.pinnedFields(condition)
        guard position < fields.count, fields[position].path == field, fields[position].kind != .other,
              fields[position].kind != .string || fields[position].collation.options.isEmpty else { return nil }
        return KeyWalk(probe: IndexProbe(transaction: transaction, database: database, fields: fields),
                       condition: condition, position: position, detail: plan.description)
    }

    // MARK: Helpers

    package struct UsableIndex {
        package let name: String
        package let database: Database
        package let leading: IndexedField
        package let isSingleField: Bool
    }

    /// The built non-multi-value indexes led by `field` whose keys order its values exactly:
    /// strings only under the given collation, single-field indexes first.
    package func indexes(on field: [String], collation options: StringComparisonOptions) -> [UsableIndex] {
        context.schema.indexes.compactMap { descriptor -> UsableIndex? in
            guard !descriptor.isMultiValue, let leading = descriptor.fields.first, leading.path == field,
                  leading.kind != .other, leading.kind != .string || leading.collation.options == options,
                  let database = context.indexes[descriptor.name] else { return nil }
            return UsableIndex(name: descriptor.name, database: database, leading: leading, isSingleField: descriptor.fields.count == 1)
        }.sorted { $0.isSingleField && !$1.isSingleField }
    }


}
