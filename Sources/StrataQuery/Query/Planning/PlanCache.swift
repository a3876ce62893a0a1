import Foundation
import LMDB

/// The access paths chosen for queries of each shape, kept by the store so that a query of a
/// shape planned before runs the kept path with its own constants, as a prepared statement keeps
/// its plan (``QueryPlanner``, ``QueryPlanner/rebound(_:to:total:)``).
///
/// A query's shape is the query with its constants left out (kept: their kinds, the number of
/// values of an `IN` list, `nil`), with the entity's built indexes; a shape is looked up, never
/// a query's text. A kept choice is used again only while it still holds, and the query is
/// planned in full otherwise (and the new choice kept):
/// - the entity's record count is within a factor of ``countDrift`` of the count it was chosen at;
/// - the kept path, made again from the same conjuncts of the query on the same indexes and
///   estimated alone, reads at most ``estimateDrift`` times the rows it was chosen for (counting
///   at least ``smallEstimate``): a constant that finds far more entries (a skewed value) is
///   planned in full. One that finds fewer keeps the choice: whatever another index would save,
///   the kept path reads no more than it did.
///
/// The estimate is not made when no other plan can read less for any constants
/// (``QueryPlanner/isBoundAlone(_:conjuncts:query:)``): an index scan that answers every conjunct
/// exactly and either yields the requested order under a LIMIT (it reads at most offset + limit
/// entries) or is counted from its entries alone. Such a path is bound to the new constants and
/// keeps its estimate; ``QueryRequest/explain()`` estimates it for its constants and shows it,
/// whatever the estimate, as the plan the query runs.
///
/// A plan that reads no index (a full scan, primary keys) is not kept: its choice rests on every
/// index having been found too costly for its constants, which a repeated query with other
/// constants must weigh again. Nor is a walk of a whole index for its order: its estimate rests
/// on the selectivity of conditions other indexes measured. Nor an intersection of index scans,
/// which weighs two conjuncts' paths against each other. The store keeps at most ``capacity``
/// shapes and forgets them all when full. Shared by every thread of the process that uses the
/// store.
package final class PlanCache: Sendable {
    /// What a kept choice is looked up by.
    package struct Shape: Hashable, Sendable {
        package var entity: String
        /// The entity's built indexes, by name: adding or dropping one makes another shape.
        package var indexes: [String]
        /// The query, each constant replaced by ``QueryValue/shape``.
        package var query: Query<Void>

        /// The entity and the query: the indexes, the same for every shape of the entity, are
        /// compared (`==`) but not hashed, which would hash every index name at each lookup.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(query)
        }
    }

    /// A kept choice.
    package struct Choice: Sendable {
        /// The indexes the chosen access path reads: all that a query of the shape weighs.
        package var indexes: Set<String>
        /// The chosen access path, each constant replaced by ``QueryValue/shape``.
        package var access: QueryPlan.Access
        /// The positions of the conjuncts the path answers (left out of the filter), ascending.
        package var conjuncts: [Int]
        /// Its estimated rows.
        package var estimatedRows: Int
        /// True when the path answers the conjuncts it uses exactly (``QueryPlan/exactAccess``).
        package var exact: Bool
        /// The entity's records when it was chosen.
        package var records: Int

        /// The choice `plan` made on `records` records, its access path answering the conjuncts
        /// at `conjuncts`; nil when it reads no index, walks a whole one or intersects scans.
        package init?(_ plan: QueryPlan, conjuncts: [Int], records: Int) {
            indexes = plan.access.indexNames
            guard !indexes.isEmpty, !plan.access.walksWholeIndex else { return nil }
            if case .intersection = plan.access { return nil }
            access = plan.access.shape
            self.conjuncts = conjuncts
            estimatedRows = plan.estimatedRows
            exact = plan.exactAccess
            self.records = records
        }

        /// True when the entity's record count is still near the one the choice was made at.
        package func holds(records count: Int) -> Bool {
            PlanCache.within(count, records, factor: PlanCache.countDrift)
        }

        /// True when `plan`, the kept path made again for another query of the shape, is this
        /// choice again: the same access path, reading at most ``PlanCache/estimateDrift`` times
        /// the rows (of at least ``PlanCache/smallEstimate``).
        package func isConfirmed(by plan: QueryPlan) -> Bool {
            plan.access.shape == access && plan.estimatedRows <= allowedRows
        }

        /// The most rows the kept path may be estimated at, for other constants, for the choice
        /// to stand: ``PlanCache/estimateDrift`` times its estimate (of at least
        /// ``PlanCache/smallEstimate``).
        package var allowedRows: Int { PlanCache.estimateDrift * max(estimatedRows, PlanCache.smallEstimate) }
    }

    /// The most shapes kept.
    package static var capacity: Int { 256 }
    /// How far the record count may move before kept choices are planned again.
    package static var countDrift: Int { 2 }
    /// How many times the kept estimate a repeated query's may be for the choice to stand.
    package static var estimateDrift: Int { 4 }
    /// The fewest rows a kept estimate counts as: a path that reads a handful of rows may read a
    /// few handfuls.
    package static var smallEstimate: Int { 16 }

    private let choices = ConditionLock<[Shape: Choice]>([:])

    /// The choice kept for `shape`.
    package func choice(for shape: Shape) -> Choice? {
        choices.withLock { $0[shape] }
    }

    /// Keeps `choice` for `shape`, forgetting every kept choice first when ``capacity`` are kept.
    package func keep(_ choice: Choice, for shape: Shape) {
        choices.withLock { choices in
            if choices.count >= Self.capacity, choices[shape] == nil { choices.removeAll(keepingCapacity: true) }
            choices[shape] = choice
        }
    }

    /// The number of shapes kept.
    package var count: Int { choices.withLock { $0.count } }

    /// True when `a` and `b` are within `factor` of each other (counting 0 as 1).
    package static func within(_ a: Int, _ b: Int, factor: Int) -> Bool {
        Double(max(a, b, 1)) <= Double(max(min(a, b), 1)) * Double(factor)
    }
}

extension PlanCache.Shape {
    /// The shape of `query` on `context`'s entity with its built indexes (an extension's initializer:
    /// the memberwise one stays).
    package init(_ query: Query<Void>, _ context: EntityContext) {
        self.init(entity: context.name,
                  indexes: context.schema.indexes.map(\.name) + context.schema.fullTextIndexes.map { QueryPlan.Access.textIndexName($0.name) },
                  query: query.shape)
    }
}

extension QueryValue {
    /// The value with its payload left out: its kind alone (an `IN` list keeps its length, `nil`
    /// stays `nil`). What queries of one shape have in common.
    package var shape: QueryValue {
        switch self {
        case .null: .null
        case .bool: .bool(false)
        case .int: .int(0)
        case .uint: .uint(0)
        case .wideInt: .wideInt(WideInteger(0))
        case .double: .double(0)
        case .string: .string("")
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .data: .data(Data())
        case .list(let values): .list(values.map(\.shape))
        }
    }
}

extension QueryPredicate {
    /// The predicate with each constant replaced by its ``QueryValue/shape``.
    package var shape: QueryPredicate {
        switch self {
        case .constant: return self
        case .comparison(var comparison):
            comparison.value = comparison.value.shape
            return .comparison(comparison)
        case .and(let operands): return .and(operands.map(\.shape))
        case .or(let operands): return .or(operands.map(\.shape))
        case .not(let operand): return .not(operand.shape)
        }
    }
}

extension Query<Void> {
    /// The query with each constant of its predicate replaced by its ``QueryValue/shape``.
    package var shape: Query<Void> {
        var copy = self
        copy.predicate = predicate.shape
        return copy
    }
}

extension QueryPlan.Access {
    /// The indexes the access path reads.
    package var indexNames: Set<String> {
        switch self {
        case .indexScan(let name, _, _): [name]
        case .union(let parts), .intersection(let parts): parts.reduce(into: []) { $0.formUnion($1.indexNames) }
        case .textSearch(let access): [Self.textIndexName(access.index)]
        case .primaryKeyLookup, .primaryKeyRange, .fullScan: []
        }
    }

    /// True when the access path reads a whole index (`.all`: for its order).
    package var walksWholeIndex: Bool {
        switch self {
        case .indexScan(_, _, .all): true
        case .union(let parts), .intersection(let parts): parts.contains(where: \.walksWholeIndex)
        default: false
        }
    }

    /// The access path with each constant replaced by its ``QueryValue/shape``.
    package var shape: QueryPlan.Access {
        switch self {
        case .primaryKeyLookup(let field, let keys): .primaryKeyLookup(field: field, keys: keys.map(\.shape))
        case .primaryKeyRange(let field, let range): .primaryKeyRange(field: field, range: range.shape)
        case .indexScan(let name, let fields, let condition): .indexScan(index: name, fields: fields, condition: condition.shape)
        case .fullScan: .fullScan
        case .textSearch(let access):
            .textSearch(QueryPlan.TextAccess(comparison: FieldComparison(field: access.comparison.field, op: .search,
                                                                         value: access.comparison.value.shape),
                                             index: access.index, terms: []))
        case .union(let parts): .union(parts.map(\.shape))
        case .intersection(let parts): .intersection(parts.map(\.shape))
        }
    }
}

extension QueryPlan.IndexCondition {
    /// The condition with each constant replaced by its ``QueryValue/shape``.
    package var shape: QueryPlan.IndexCondition {
        switch self {
        case .points(let values): .points(values.map(\.shape))
        case .range(let range): .range(range.shape)
        case .prefix: .prefix("")
        case .all: .all
        case .compound(let leading, let next): .compound(leading: leading.map { $0.map(\.shape) }, next: next.shape)
        }
    }
}

extension QueryPlan.ValueRange {
    /// The range with its bounds replaced by their ``QueryValue/shape``.
    package var shape: QueryPlan.ValueRange {
        QueryPlan.ValueRange(lower: lower?.shape, lowerInclusive: lowerInclusive, upper: upper?.shape, upperInclusive: upperInclusive)
    }
}

extension Store {
    /// The indexes chosen for queries of each shape (``QueryPlanner``): made at the first
    /// query, kept in the store's ``StoreAttachments``.
    package var planCache: PlanCache { attachments.attachment { PlanCache() } }
}
