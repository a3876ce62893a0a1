extension QueryPlanner {
    /// The plan a query gets from the choice kept for its shape (``PlanCache``), as a prepared
    /// statement keeps its plan: the kept access path made again from the query's own constants
    /// (the same conjuncts on the same indexes) and estimated alone, its filter and order
    /// decided as in a full plan; not estimated when no other plan can read less for any
    /// constants (``isBoundAlone(_:conjuncts:query:)``). The estimate reads only what could undo the choice
    /// (``keptAllowance``): a range of at least ``probeLimit`` entries is interpolated, not
    /// counted; the leading values of a compound index with statistics are read from them
    /// unless one is frequent enough (or the values many enough) to exceed the allowance, when
    /// they are counted as in a full plan. No other access path is weighed; a walk in index order for a
    /// sorted LIMIT still is, against the path's rows times the guessed selectivity of each
    /// conjunct it leaves to the filter (``guessedSelectivity(_:)``).
    ///
    /// `bound`: the path is one no other plan can beat (``isBoundAlone(_:conjuncts:query:)``), the
    /// plan the query runs whatever its estimate, which is then not made (but for ``estimatesEveryPlan``,
    /// `explain`'s). Nil when the kept path cannot be made from this query's conjuncts (then it is
    /// planned in full).
    package func rebound(_ query: Query<Void>, to kept: PlanCache.Choice, total: Int) throws -> (plan: QueryPlan, bound: Bool)? {
        let conjuncts = Self.conjuncts(of: query.predicate)
        guard kept.conjuncts.allSatisfy(conjuncts.indices.contains) else { return nil }
        var planner = self
        var bound = try isBoundAlone(kept, conjuncts: conjuncts, query: query)
        if bound, !estimatesEveryPlan { planner.keptRows = kept.estimatedRows }
        guard var candidate = try planner.keptPath(kept, conjuncts: conjuncts, total: total) else { return nil }
        if bound, !candidate.exact || candidate.used.count != conjuncts.count {
            // Not the exact path the choice was (never so for one shape): estimated and confirmed after all.
            bound = false
            if planner.keptRows != nil {
                guard let estimated = try keptPath(kept, conjuncts: conjuncts, total: total) else { return nil }
                candidate = estimated
            }
        }
        var plan = QueryPlan(entity: context.name, access: candidate.access, reversed: false,
                             residual: residual(conjuncts, without: candidate.used), sort: query.orderings,
                             orderFromAccess: query.orderings.isEmpty, offset: query.offset, limit: query.limit,
                             estimatedRows: candidate.rows)
        plan.exactAccess = candidate.exact || candidate.used.isEmpty
        plan.keyField = context.schema.primaryKey
        let matches = conjuncts.indices.filter { !candidate.used.contains($0) }
            .reduce(Double(candidate.rows)) { $0 * Self.guessedSelectivity(conjuncts[$1]) }
        let orderings = Self.significant(query.orderings, primaryKey: context.schema.primaryKey)
        let cost = try costed(candidate, matches: matches, orderings: orderings, query: query).cost
        try chooseOrder(&plan, query: query, total: total, matches: matches, cost: cost)
        return (plan, bound)
    }

    /// True when no plan can read less than the kept path for any constants, so that it is bound
    /// to them without an estimate: it is an index scan that answers every conjunct exactly, and
    /// either
    /// - the query has a LIMIT and an order that does not start with the primary key, which the
    ///   path yields: it reads at most offset + limit entries, and any other path reads at least
    ///   as many candidates (a scan in primary-key order, which could stream, does not yield the
    ///   order), or
    /// - the query is counted in any order from the entries alone (`count()`, `exists()`): it reads
    ///   the matching entries, no record, where a scan reads every record.
    package func isBoundAlone(_ kept: PlanCache.Choice, conjuncts: [QueryPredicate], query: Query<Void>) throws -> Bool {
        guard kept.exact, kept.conjuncts.count == conjuncts.count, case .indexScan = kept.access else { return false }
        let orderings = Self.significant(query.orderings, primaryKey: context.schema.primaryKey)
        if orderings.isEmpty { return query.keysOnly && query.anyOrder }
        guard query.limit != nil, orderings[0].field != [context.schema.primaryKey] else { return false }
        return try delivery(of: kept.access, for: orderings) != nil
    }

    /// The candidate of the kept access path for `conjuncts`, from the generator that made it:
    /// a compound index's conditions, a range of two conjuncts, or one conjunct's index scan,
    /// text search or union, over the kept indexes alone. Nil when none has the kept access shape.
    private func keptPath(_ kept: PlanCache.Choice, conjuncts: [QueryPredicate], total: Int) throws -> Candidate? {
        var planner = self
        planner.weighed = kept.indexes
        planner.keptAllowance = kept.allowedRows
        var paths: [Candidate]
        if case .indexScan(_, _, .compound) = kept.access {
            paths = try planner.compoundPaths(conjuncts, ranges: Self.combinedRanges(conjuncts), total: total)
        } else if kept.conjuncts.count == 2 {
            // Both bounds of one field, made one range.
            guard let combined = Self.combinedRanges(conjuncts).first(where: { $0.positions == kept.conjuncts }),
                  let lower = combined.range.lower, let upper = combined.range.upper else { return nil }
            let comparison = FieldComparison(field: combined.field, op: .between, value: .list([lower, upper]))
            paths = try planner.accessPaths(for: comparison, total: total, range: combined.range)
                .map { var path = $0; path.used = combined.positions; return path }
        } else if kept.conjuncts.count == 1 {
            let position = kept.conjuncts[0]
            switch conjuncts[position] {
            case .comparison(let comparison): paths = try planner.accessPaths(for: comparison, total: total)
            case .or(let operands): paths = try planner.unionPath(of: operands, total: total).map { [$0] } ?? []
            default: return nil
            }
            paths = paths.map { var path = $0; path.used = [position]; return path }
        } else {
            return nil
        }
        return paths.first { $0.access.shape == kept.access && $0.used == kept.conjuncts }
    }
}
