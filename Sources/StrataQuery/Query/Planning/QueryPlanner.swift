import Foundation
import LMDB

/// Chooses how to run a query: which access path yields the fewest candidates, and whether an
/// index can deliver the requested order so that a LIMIT stops early.
///
/// Row estimates come from the data itself, cheaply: the record count (O(1) in LMDB), exact
/// duplicate counts for index equality (`mdb_cursor_count`, O(log n)), and for ranges and
/// prefixes a count of at most ``probeLimit`` entries key by key (no copies, no records), beyond
/// which the span of keys is interpolated between the index's first and last keys
/// (``KeySpace``). The cost of an access path is its estimated rows, times ``lookupCost`` when
/// each row costs a second B-tree lookup.
///
/// A query of a shape planned before runs the access path kept for the shape, made again from its
/// constants and estimated alone, while that choice still holds (``PlanCache``,
/// ``rebound(_:to:total:)``).
package struct QueryPlanner {
    package let transaction: ReadTransaction
    package let context: EntityContext
    /// The indexes whose access paths are weighed; nil: every index.
    var weighed: Set<String>?
    /// Set while a kept access path is made again (``rebound(_:to:total:)``): the most rows it may
    /// be estimated at for its choice to stand (``PlanCache/Choice/allowedRows``). Its estimate
    /// then reads no more of the index than that decision needs: a range is interpolated
    /// before it is counted (``IndexProbe/estimateRows(_:limit:counted:interpolatingFirst:)``),
    /// and a compound index's leading values are taken from its statistics when those show them
    /// within the allowance (``statisticsRows(_:of:probe:allowed:)``).
    var keptAllowance: Int?
    /// Set while a kept access path that no other path can beat for any constants is made again
    /// (``rebound(_:to:total:)``): its estimate, taken as it is, without reading the index.
    var keptRows: Int?
    /// True for ``QueryRequest/explain()``: every plan, a kept one too, is estimated for its
    /// constants, so that the estimate shown is this query's.
    let estimatesEveryPlan: Bool

    /// A planner in `transaction` for `context`'s entity; `estimatingEveryPlan` for `explain`.
    package init(transaction: ReadTransaction, context: EntityContext, estimatingEveryPlan: Bool = false) {
        self.transaction = transaction
        self.context = context
        estimatesEveryPlan = estimatingEveryPlan
    }

    /// Entries counted at most to estimate a range; beyond it the estimate interpolates.
    package static var probeLimit: Int { 64 }
    /// What reading a record through an index costs relative to reading it in a scan.
    package static var lookupCost: Double { 3 }
    /// What reading one index entry costs relative to reading a record in a scan.
    package static var entryCost: Double { 0.2 }
    /// What a `SEARCH` condition left to the filter costs on each record it checks (the record's
    /// texts tokenized and searched alone), relative to reading a record in a scan.
    package static var textFilterCost: Double { 10 }

    /// The plan for `query`.
    package func plan<Root>(_ query: Query<Root>) throws -> QueryPlan {
        try plan(query.retyped(as: Void.self))
    }

    /// The plan for `query`, as concrete code (no generic record type): the access path kept for
    /// its shape, made again from its constants, when that choice still holds
    /// (``rebound(_:to:total:)``), else over every index (the choice then kept).
    private func plan(_ query: Query<Void>) throws -> QueryPlan {
        try PatternMatching.validatePatterns(of: query.predicate, entity: context.name)
        let total = try transaction.recordCount(context)
        let cache = transaction.store.planCache
        let shape = PlanCache.Shape(query, context)
        if let kept = cache.choice(for: shape), kept.holds(records: total),
           let (plan, bound) = try rebound(query, to: kept, total: total), bound || kept.isConfirmed(by: plan) {
            return plan
        }
        let (plan, conjuncts) = try choose(query, total: total)
        if let choice = PlanCache.Choice(plan, conjuncts: conjuncts, records: total) { cache.keep(choice, for: shape) }
        return plan
    }

    /// The cheapest plan for `query` over the indexes weighed, on an entity of `total` records,
    /// with the positions of the conjuncts its access path answers (``PlanCache/Choice/conjuncts``).
    private func choose(_ query: Query<Void>, total: Int) throws -> (plan: QueryPlan, conjuncts: [Int]) {
        let conjuncts = Self.conjuncts(of: query.predicate)
        var candidates = [Candidate(access: .fullScan, rows: total, cost: Double(total), used: [], ordered: nil)]
        var singles: [Candidate] = []   // the best index path of each conjunct, for intersections
        // The fraction of records each conjunct keeps: from its cheapest path, else a guess.
        var selectivity = conjuncts.map(Self.guessedSelectivity)
        // A lower and an upper bound on one field make one index range, exclusive bounds included;
        // each bound alone would only find more entries.
        let ranges = Self.combinedRanges(conjuncts)
        for combined in ranges {
            let comparison = FieldComparison(field: combined.field, op: .between, value: .list([combined.range.lower!, combined.range.upper!]))
            let paths = try accessPaths(for: comparison, total: total, range: combined.range)
            if let cheapest = paths.min(by: { $0.rows < $1.rows }) {
                selectivity[combined.positions[0]] = Double(cheapest.rows) / Double(max(total, 1))
                for position in combined.positions.dropFirst() { selectivity[position] = 1 }
            }
            candidates += paths.map { var path = $0; path.used = combined.positions; return path }
        }
        let bounded = Set(ranges.flatMap { $0.positions })
        for (position, conjunct) in conjuncts.enumerated() where !bounded.contains(position) {
            var paths: [Candidate] = []
            switch conjunct {
            case .comparison(let comparison):
                paths = try accessPaths(for: comparison, total: total)
            case .or(let operands):
                paths = try unionPath(of: operands, total: total).map { [$0] } ?? []
            default:
                break
            }
            if let cheapest = paths.min(by: { $0.cost < $1.cost }) {
                switch cheapest.access {
                case .indexScan, .textSearch:
                    var single = cheapest
                    single.used = [position]
                    singles.append(single)
                default: break
                }
                selectivity[position] = Double(cheapest.rows) / Double(max(total, 1))
            }
            candidates += paths.map { var path = $0; path.used = [position]; return path }
        }
        if let intersection = intersectionPath(of: singles) { candidates.append(intersection) }
        let compound = try compoundPaths(conjuncts, ranges: ranges, total: total)
        Self.keepContainment(&candidates, within: compound)
        candidates += compound

        let matches = selectivity.reduce(Double(total), *)
        let orderings = Self.significant(query.orderings, primaryKey: context.schema.primaryKey)
        var best: Candidate?
        // The SEARCH conditions of each conjunct: each row a path reads is checked by those it leaves to the filter.
        let searches = conjuncts.map { $0.textSearches.count }
        let anySearch = searches.contains { $0 > 0 }
        for candidate in candidates {
            var candidate = candidate
            if anySearch {
                let left = searches.indices.reduce(0) { candidate.used.contains($1) ? $0 : $0 + searches[$1] }
                candidate.cost += Double(candidate.rows) * Self.textFilterCost * Double(left)
            }
            if query.keysOnly, orderings.isEmpty, candidate.exact, candidate.used.count == conjuncts.count,
               case .indexScan = candidate.access {
                // The index entries answer alone: no record is read.
                candidate.cost = Double(candidate.rows) * Self.entryCost
            }
            candidate = try costed(candidate, matches: matches, orderings: orderings, query: query)
            if best.map({ isBetter(candidate, than: $0, hint: query.indexHint) }) ?? true { best = candidate }
        }
        let chosen = best!
        var plan = QueryPlan(entity: context.name, access: chosen.access, reversed: false,
                             residual: residual(conjuncts, without: chosen.used), sort: query.orderings,
                             orderFromAccess: query.orderings.isEmpty, offset: query.offset, limit: query.limit,
                             estimatedRows: chosen.rows)
        plan.exactAccess = chosen.exact || chosen.used.isEmpty
        plan.keyField = context.schema.primaryKey
        try chooseOrder(&plan, query: query, total: total, matches: matches, cost: chosen.cost)
        return (plan, chosen.used)
    }

    /// The conditions `predicate` joins by AND (none for `TRUEPREDICATE`): what access paths answer.
    package static func conjuncts(of predicate: QueryPredicate) -> [QueryPredicate] {
        switch predicate {
        case .and(let operands): operands
        case .constant(true): []
        default: [predicate]
        }
    }

    /// The cost of running `candidate` to the end of the query: an access path that yields the
    /// requested order (or any order, when none is asked for) stops after `offset + limit`
    /// matches, about `(offset + limit) / (matches / rows)` of its rows; one that does not must
    /// read all its rows and sort the matches.
    package func costed(_ candidate: Candidate, matches: Double, orderings: [QueryOrdering], query: Query<Void>) throws -> Candidate {
        var candidate = candidate
        let rows = Double(max(candidate.rows, 1))
        let kept = min(matches, rows)
        let delivered = try orderings.isEmpty && query.anyOrder || delivery(of: candidate.access, for: orderings) != nil
        if delivered {
            if let limit = query.limit, streams(candidate.access) {
                let needed = Double(query.offset + limit) * rows / max(kept, 1)
                candidate.cost *= min(1, needed / rows)
            }
        } else {
            let sorted = max(kept, 2)
            candidate.cost += sorted * log2(sorted) * Self.sortCost
        }
        return candidate
    }

    /// True when the executor yields an access path's first records before reading all its
    /// entries: not an intersection, nor a union of parts that cannot be merged.
    private func streams(_ access: QueryPlan.Access) -> Bool {
        switch access {
        case .intersection, .textSearch: return false
        case .union(let parts): return parts.allSatisfy { $0.yieldsSortedKeysPerPoint }
        default: return true
        }
    }

    /// What sorting costs per comparison, relative to reading a record in a scan.
    package static var sortCost: Double { 0.05 }

    /// The fraction of records a conjunct is assumed to keep before any index tells: a tenth for
    /// an equality, a third otherwise (SQLite guesses alike).
    package static func guessedSelectivity(_ conjunct: QueryPredicate) -> Double {
        if case .comparison(let comparison) = conjunct, comparison.op == .equal { return 0.1 }
        return 1.0 / 3
    }

    package struct Candidate {
        package var access: QueryPlan.Access
        package var rows: Int
        package var cost: Double
        /// The conjuncts the access path guarantees (left out of the residual filter).
        package var used: [Int]
        /// The orderings this access delivers (forward), when it delivers one.
        package var ordered: [IndexedField]?
        /// Every candidate meets the conjuncts in `used` (``QueryPlan/exactAccess``).
        package var exact = false

        package var yieldsKeys: Bool {
            switch access {
            case .indexScan, .primaryKeyLookup, .textSearch: true
            default: false
            }
        }
    }

    private func isBetter(_ candidate: Candidate, than best: Candidate, hint: String?) -> Bool {
        if let hint {
            let named = { (c: Candidate) -> Bool in
                switch c.access {
                case .indexScan(hint, _, _): true
                case .textSearch(let text): text.index == hint
                default: false
                }
            }
            if named(candidate) != named(best) { return named(candidate) }
        }
        if candidate.cost == best.cost { return candidate.used.count > best.used.count }   // the one that leaves less to filter
        return candidate.cost < best.cost
    }

    package func residual(_ conjuncts: [QueryPredicate], without used: [Int]) -> QueryPredicate {
        let rest = conjuncts.enumerated().filter { !used.contains($0.offset) }.map { $0.element }
        switch rest.count {
        case 0: return .constant(true)
        case 1: return rest[0]
        default: return .and(rest)
        }
    }

    /// The access paths that can answer `comparison` alone (or `range` of its field, when given),
    /// with their estimated rows and cost.
    package func accessPaths(for comparison: FieldComparison, total: Int, range: QueryPlan.ValueRange? = nil) throws -> [Candidate] {
        if comparison.op == .search { return try textPaths(for: comparison, total: total) }
        var paths: [Candidate] = []
        if comparison.field == [context.schema.primaryKey], comparison.quantifier == nil, comparison.options.isEmpty {
            switch comparison.op {
            case .equal:
                paths.append(Candidate(access: .primaryKeyLookup(field: comparison.fieldName, keys: [comparison.value]),
                                       rows: 1, cost: Self.lookupCost, used: [], ordered: nil, exact: true))
            case .in:
                if case .list(let keys) = comparison.value {
                    paths.append(Candidate(access: .primaryKeyLookup(field: comparison.fieldName, keys: keys),
                                           rows: keys.count, cost: Double(keys.count) * Self.lookupCost, used: [], ordered: nil, exact: true))
                }
            default:
                if let range = range ?? Self.range(of: comparison) ?? Self.prefixRange(of: comparison) {
                    // A key range reads records in place; assume a third of them without a probe.
                    let rows = max(1, total / 3)
                    paths.append(Candidate(access: .primaryKeyRange(field: comparison.fieldName, range: range),
                                           rows: rows, cost: Double(rows), used: [], ordered: nil))
                }
            }
        }
        let keyFields = context.schema.primaryKeyFields
        if keyFields.count > 1, comparison.field == [keyFields[0]], comparison.quantifier == nil, comparison.options.isEmpty,
           comparison.value != .null,
           let range = range ?? (comparison.op == .equal ? QueryPlan.ValueRange(lower: comparison.value, upper: comparison.value)
                                                         : Self.range(of: comparison) ?? Self.prefixRange(of: comparison)) {
            // Records keyed by a compound key sort by its first field: a condition on that field
            // is a stretch of stored keys (an inclusive bound takes every key its value's key
            // begins). Not exact: the whole predicate is checked on each record.
            let rows = max(1, total / 3)
            paths.append(Candidate(access: .primaryKeyRange(field: comparison.fieldName, range: range),
                                   rows: rows, cost: Double(rows), used: [], ordered: nil))
        }
        for descriptor in context.schema.indexes {
            // The field first: comparing paths is cheaper than hashing the index's name.
            guard let leading = descriptor.fields.first, leading.path == comparison.field,
                  weighed?.contains(descriptor.name) ?? true, let database = context.indexes[descriptor.name],
                  serves(leading, comparison, multiValue: descriptor.isMultiValue),
                  let condition = range.map(QueryPlan.IndexCondition.range) ?? Self.condition(for: comparison)
            else { continue }
            let probe = IndexProbe(transaction: transaction, database: database, field: leading)
            let rows: Int
            if descriptor.fields.count > 1, case .points(let values) = condition {
                // A compound index's keys under one leading value are many distinct keys, which
                // the bounded count cannot reach: a single-field index on the field counts them
                // exactly (then nothing is counted here), or else the index's statistics
                // estimate them.
                rows = min(total, try keptRows ?? leadingPointRows(values, of: descriptor, probe: probe))
            } else {
                rows = min(total, try keptRows ?? probe.estimateRows(condition, limit: Self.probeLimit, interpolatingFirst: keptAllowance != nil))
            }
            paths.append(Candidate(access: .indexScan(index: descriptor.name, fields: descriptor.fields, condition: condition),
                                   rows: rows, cost: Double(rows) * Self.lookupCost, used: [],
                                   ordered: descriptor.isMultiValue ? nil : descriptor.fields,
                                   exact: Self.isExact(condition, of: comparison, field: leading, multiValue: descriptor.isMultiValue)))
        }
        Self.agreeOnLeadingEstimates(&paths)
        return paths
    }

    /// Gives every index scan of the same condition on the same leading field (and collation,
    /// not multi-value) the largest of their estimates: they hold the same entries for it, but a
    /// bounded count reaches further in an index whose keys repeat (a single field's duplicates
    /// are counted per key) than in one whose keys are distinct (a compound index), where the
    /// estimate falls back on interpolation.
    package static func agreeOnLeadingEstimates(_ paths: inout [Candidate]) {
        func leading(_ path: Candidate) -> (field: IndexedField, condition: QueryPlan.IndexCondition)? {
            guard path.ordered != nil, case .indexScan(_, let fields, let condition) = path.access else { return nil }
            return (fields[0], condition)
        }
        // A few paths at most (one per index led by the field): compared pairwise.
        for index in paths.indices {
            guard let mine = leading(paths[index]) else { continue }
            var rows = paths[index].rows
            for other in paths {
                guard other.rows > rows, let theirs = leading(other), theirs.field == mine.field,
                      theirs.condition == mine.condition else { continue }
                rows = other.rows
            }
            guard rows > paths[index].rows else { continue }
            paths[index].cost *= Double(rows) / Double(max(paths[index].rows, 1))
            paths[index].rows = rows
        }
    }

    /// A union of one access path per operand of an OR, when every operand has one.
    package func unionPath(of operands: [QueryPredicate], total: Int) throws -> Candidate? {
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
        return Candidate(access: .union(parts.map { $0.access }), rows: rows, cost: entries * Self.entryCost + Double(rows) * Self.lookupCost,
                         used: [], ordered: nil)
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
        let cost = entries * Self.entryCost + Double(common) * Self.lookupCost
        guard cost < first.cost else { return nil }
        // A text search's matches are exact (no cut key among them), so its condition is not
        // checked again; an index scan's condition is, as its keys may be cut.
        let trusted = [first, second].filter { if case .textSearch = $0.access { $0.exact } else { false } }.flatMap(\.used)
        return Candidate(access: .intersection([first.access, second.access]), rows: common, cost: cost, used: trusted,
                         ordered: nil, exact: !trusted.isEmpty)
    }
}
