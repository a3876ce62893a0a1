import Foundation
import LMDB

/// Chooses how to run a query: which access path yields the fewest candidates, and whether an
/// index can deliver the requested order so that a LIMIT stops early.
///
/// Row estimates come from the data itself, cheaply: the record count (O(1) in LMDB), exact
/// duplicate counts for index equality (`mdb_cursor_count`, O(log n)), and bounded walks of at
/// most ``probeLimit`` entries for ranges and prefixes (an index "dive"). The cost of an access
/// path is its estimated rows, times ``lookupCost`` when each row costs a second B-tree lookup.
struct QueryPlanner<Root: Record> {
    let transaction: ReadTransaction
    let context: EntityContext

    /// Entries walked at most to estimate a range; beyond it the estimate extrapolates.
    static var probeLimit: Int { 2_000 }
    /// What reading a record through an index costs relative to reading it in a scan.
    static var lookupCost: Double { 3 }

    func plan(_ query: Query<Root>) throws -> QueryPlan {
        let total = try transaction.lmdb(entity: context.name) { try transaction.raw.count(in: context.records) }
        let conjuncts: [QueryPredicate]
        switch query.predicate {
        case .and(let operands): conjuncts = operands
        case .constant(true): conjuncts = []
        default: conjuncts = [query.predicate]
        }
        let orderings = Self.significant(query.orderings, primaryKey: context.schema.primaryKey)
        /// Access cost plus the cost of sorting what it yields when it does not deliver the order.
        func withSortCost(_ candidate: Candidate) -> Candidate {
            var candidate = candidate
            if direction(of: candidate.access, for: orderings) == nil {
                let rows = Double(max(candidate.rows, 2))
                candidate.cost += rows * log2(rows) * 0.05
            }
            return candidate
        }
        var best = withSortCost(Candidate(access: .fullScan, rows: total, cost: Double(total), used: nil, ordered: nil))
        var singles: [Candidate] = []   // the best index path of each conjunct, for intersections
        for (position, conjunct) in conjuncts.enumerated() {
            var paths: [Candidate] = []
            switch conjunct {
            case .comparison(let comparison):
                paths = try accessPaths(for: comparison, total: total)
            case .or(let operands):
                paths = try unionPath(of: operands, total: total).map { [$0] } ?? []
            default:
                break
            }
            if let cheapest = paths.min(by: { $0.cost < $1.cost }), case .indexScan = cheapest.access {
                singles.append(cheapest)
            }
            for candidate in paths {
                var candidate = withSortCost(candidate)
                candidate.used = position
                if isBetter(candidate, than: best, hint: query.indexHint) { best = candidate }
            }
        }
        // A lower and an upper bound on one field make one index range.
        for (position, comparison) in Self.combinedRanges(conjuncts) {
            for candidate in try accessPaths(for: comparison, total: total) where candidate.yieldsKeys {
                var candidate = withSortCost(candidate)
                candidate.used = position
                if isBetter(candidate, than: best, hint: query.indexHint) { best = candidate }
            }
        }
        if let intersection = intersectionPath(of: singles) {
            let candidate = withSortCost(intersection)
            if isBetter(candidate, than: best, hint: query.indexHint) { best = candidate }
        }
        var plan = QueryPlan(entity: context.name, access: best.access, reversed: false,
                             residual: residual(conjuncts, without: best.used), sort: query.orderings,
                             orderFromAccess: query.orderings.isEmpty, offset: query.offset, limit: query.limit,
                             estimatedRows: best.rows)
        try chooseOrder(&plan, query: query, total: total, filteredRows: best.rows, filterCost: best.cost)
        return plan
    }

    private struct Candidate {
        var access: QueryPlan.Access
        var rows: Int
        var cost: Double
        var used: Int?
        /// The orderings this access delivers (forward), when it delivers one.
        var ordered: [IndexedField]?

        var yieldsKeys: Bool {
            switch access {
            case .indexScan, .primaryKeyLookup: true
            default: false
            }
        }
    }

    private func isBetter(_ candidate: Candidate, than best: Candidate, hint: String?) -> Bool {
        if let hint {
            let named = { (c: Candidate) -> Bool in if case .indexScan(hint, _, _) = c.access { true } else { false } }
            if named(candidate) != named(best) { return named(candidate) }
        }
        return candidate.cost < best.cost
    }

    private func residual(_ conjuncts: [QueryPredicate], without used: Int?) -> QueryPredicate {
        let rest = conjuncts.enumerated().filter { $0.offset != used }.map(\.element)
        switch rest.count {
        case 0: return .constant(true)
        case 1: return rest[0]
        default: return .and(rest)
        }
    }

    /// The access paths that can answer `comparison` alone, with their estimated rows and cost.
    private func accessPaths(for comparison: FieldComparison, total: Int) throws -> [Candidate] {
        var paths: [Candidate] = []
        if comparison.field == [context.schema.primaryKey], comparison.quantifier == nil, comparison.options.isEmpty {
            switch comparison.op {
            case .equal:
                paths.append(Candidate(access: .primaryKeyLookup(field: comparison.fieldName, keys: [comparison.value]),
                                       rows: 1, cost: Self.lookupCost, used: nil, ordered: nil))
            case .in:
                if case .list(let keys) = comparison.value {
                    paths.append(Candidate(access: .primaryKeyLookup(field: comparison.fieldName, keys: keys),
                                           rows: keys.count, cost: Double(keys.count) * Self.lookupCost, used: nil, ordered: nil))
                }
            default:
                if let range = Self.range(of: comparison) {
                    // A key range reads records in place; assume a third of them without a probe.
                    let rows = max(1, total / 3)
                    paths.append(Candidate(access: .primaryKeyRange(field: comparison.fieldName, range: range),
                                           rows: rows, cost: Double(rows), used: nil, ordered: nil))
                }
            }
        }
        for descriptor in context.schema.indexes {
            guard let database = context.indexes[descriptor.name], let leading = descriptor.fields.first,
                  leading.path == comparison.field, serves(leading, comparison, multiValue: descriptor.isMultiValue),
                  let condition = Self.condition(for: comparison)
            else { continue }
            let probe = IndexProbe(transaction: transaction, database: database, field: leading)
            let rows = try probe.estimateRows(condition, limit: Self.probeLimit, total: total)
            paths.append(Candidate(access: .indexScan(index: descriptor.name, fields: descriptor.fields, condition: condition),
                                   rows: rows, cost: Double(rows) * Self.lookupCost, used: nil,
                                   ordered: descriptor.isMultiValue ? nil : descriptor.fields))
        }
        return paths
    }

    /// `field BETWEEN {low, high}` for each field that has both a lower (`>`, `>=`) and an upper
    /// (`<`, `<=`) bound among the conjuncts, with the position of one of them. Inclusive where
    /// the bounds may be exclusive: a superset, and the executor rechecks every candidate.
    static func combinedRanges(_ conjuncts: [QueryPredicate]) -> [(Int, FieldComparison)] {
        var lower: [[String]: (Int, QueryValue)] = [:], upper: [[String]: QueryValue] = [:]
        for (position, conjunct) in conjuncts.enumerated() {
            guard case .comparison(let c) = conjunct, c.quantifier == nil, c.options.isEmpty, c.value != .null else { continue }
            switch c.op {
            case .greater, .greaterOrEqual: lower[c.field] = (position, c.value)
            case .less, .lessOrEqual: upper[c.field] = c.value
            default: break
            }
        }
        return lower.compactMap { field, bound in
            guard let high = upper[field] else { return nil }
            return (bound.0, FieldComparison(field: field, op: .between, value: .list([bound.1, high])))
        }
    }

    /// A union of one access path per operand of an OR, when every operand has one.
    private func unionPath(of operands: [QueryPredicate], total: Int) throws -> Candidate? {
        var parts: [Candidate] = []
        for operand in operands {
            // Only paths that yield primary keys without reading records can be combined.
            guard case .comparison(let comparison) = operand,
                  let cheapest = try accessPaths(for: comparison, total: total).filter({ $0.yieldsKeys })
                      .min(by: { $0.cost < $1.cost })
            else { return nil }
            parts.append(cheapest)
        }
        guard parts.count > 1 else { return nil }
        let rows = min(total, parts.reduce(0) { $0 + $1.rows })
        let entries = parts.reduce(0.0) { $0 + Double($1.rows) }
        return Candidate(access: .union(parts.map(\.access)), rows: rows, cost: entries * 0.2 + Double(rows) * Self.lookupCost,
                         used: nil, ordered: nil)
    }

    /// An intersection of the two most selective index paths of different conjuncts, when reading
    /// both sets of index entries and the common records costs less than either alone.
    private func intersectionPath(of singles: [Candidate]) -> Candidate? {
        let sorted = singles.sorted { $0.rows < $1.rows }
        // `singles` holds one path per conjunct, so the two come from different conditions.
        guard sorted.count >= 2 else { return nil }
        let (first, second) = (sorted[0], sorted[1])
        // Entries are cheap to read; records are what an intersection saves. Estimate the common
        // rows as if the conditions were independent.
        let entries = Double(first.rows + second.rows)
        let common = max(1, min(first.rows, second.rows) / 4)
        let cost = entries * 0.2 + Double(common) * Self.lookupCost
        guard cost < first.cost else { return nil }
        return Candidate(access: .intersection([first.access, second.access]), rows: common, cost: cost, used: nil, ordered: nil)
    }

    /// True when an index field can find the records meeting `comparison` (perhaps among others
    /// the filter then removes): same field, a compatible collation, values of its kind.
    private func serves(_ field: IndexedField, _ comparison: FieldComparison, multiValue: Bool) -> Bool {
        if multiValue {
            guard comparison.quantifier == .any || comparison.quantifier == nil,
                  comparison.op == .equal || comparison.op == .in else { return false }
        } else if comparison.quantifier != nil {
            return false
        }
        // For equality, a folded index finds a superset of what any stricter comparison matches
        // (equal strings fold equal); a stricter index cannot find what a folded one matches.
        // Ranges and prefixes follow the index's order, so they need exactly its collation.
        let folded = field.collation.options
        if field.kind == .string {
            switch comparison.op {
            case .equal, .in: guard comparison.options.isSubset(of: folded) else { return false }
            default: guard comparison.options == folded else { return false }
            }
        }
        if comparison.op == .beginsWith { return field.kind == .string }
        switch comparison.value {
        case .list(let values): return !values.isEmpty && values.allSatisfy(field.kind.accepts)
        default: return field.kind.accepts(comparison.value)
        }
    }

    /// The index condition of a comparison operator, or nil when an index cannot serve it.
    static func condition(for comparison: FieldComparison) -> QueryPlan.IndexCondition? {
        switch (comparison.op, comparison.value) {
        case (.equal, let value): return .points([value])
        case (.in, .list(let values)): return .points(values)
        case (.beginsWith, .string(let prefix)): return .prefix(prefix)
        default: return range(of: comparison).map { .range($0) }
        }
    }

    static func range(of comparison: FieldComparison) -> QueryPlan.ValueRange? {
        switch (comparison.op, comparison.value) {
        case (_, .null): return nil
        case (.less, let value): return QueryPlan.ValueRange(upper: value, upperInclusive: false)
        case (.lessOrEqual, let value): return QueryPlan.ValueRange(upper: value)
        case (.greater, let value): return QueryPlan.ValueRange(lower: value, lowerInclusive: false)
        case (.greaterOrEqual, let value): return QueryPlan.ValueRange(lower: value)
        case (.between, .list(let bounds)) where bounds.count == 2 && bounds[0] != .null && bounds[1] != .null:
            return QueryPlan.ValueRange(lower: bounds[0], upper: bounds[1])
        default: return nil
        }
    }
}
