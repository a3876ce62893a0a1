extension QueryPlanner {
    /// Decides how the requested order is met: by the chosen access path, by walking an index in
    /// its order when a LIMIT makes that cheaper than filtering and sorting, or by sorting.
    ///
    /// Every query is ordered: by its orderings, then by primary key, so that any plan returns
    /// the same records in the same order.
    func chooseOrder(_ plan: inout QueryPlan, query: Query<Root>, total: Int, filteredRows: Int, filterCost: Double) throws {
        let orderings = Self.significant(query.orderings, primaryKey: context.schema.primaryKey)
        if delivers(plan.access, orderings) {
            plan.orderFromAccess = true
            plan.sort = []
            return
        }
        plan.orderFromAccess = false
        plan.sort = orderings.isEmpty ? [QueryOrdering(field: [context.schema.primaryKey])] : orderings
        guard let limit = query.limit, !orderings.isEmpty else { return }
        // Walking an index in the requested order reads about (offset + limit) / selectivity records.
        let selectivity = max(Double(filteredRows), 1) / max(Double(total), 1)
        let walkRows = min(Double(total), Double(query.offset + limit) / selectivity)
        let walkCost = walkRows * Self.lookupCost
        let sortCost = filterCost + Double(filteredRows) * 0.1
        for descriptor in context.schema.indexes where !descriptor.isMultiValue {
            guard context.indexes[descriptor.name] != nil,
                  Self.prefixMatches(orderings, descriptor.fields),
                  walkCost < sortCost || query.indexHint == descriptor.name
            else { continue }
            plan.access = .indexScan(index: descriptor.name, fields: descriptor.fields, condition: .all)
            plan.residual = query.predicate
            plan.orderFromAccess = true
            plan.sort = []
            plan.estimatedRows = Int(walkRows)
            return
        }
    }

    /// The orderings up to the first one on the primary key (those after it cannot matter).
    static func significant(_ orderings: [QueryOrdering], primaryKey: String) -> [QueryOrdering] {
        var result: [QueryOrdering] = []
        for ordering in orderings {
            if ordering.field == [primaryKey] {
                if !ordering.ascending { result.append(ordering) }
                break
            }
            result.append(ordering)
        }
        return result
    }

    /// True when `access` yields records in `orderings` order, ties in primary key order.
    func delivers(_ access: QueryPlan.Access, _ orderings: [QueryOrdering]) -> Bool {
        switch access {
        case .fullScan, .primaryKeyRange, .primaryKeyLookup:
            return orderings.isEmpty
        case .indexScan(_, let fields, let condition):
            guard !orderings.isEmpty else { return false }
            if Self.prefixMatches(orderings, fields) { return true }
            // Equality on the leading field, order on the next ones.
            if case .points(let values) = condition, values.count == 1, fields.count > 1 {
                return Self.prefixMatches(orderings, Array(fields.dropFirst()))
            }
            return false
        }
    }

    /// True when `orderings` are ascending and name the leading `fields`, with matching collations.
    static func prefixMatches(_ orderings: [QueryOrdering], _ fields: [IndexedField]) -> Bool {
        guard !orderings.isEmpty, orderings.count <= fields.count else { return false }
        for (ordering, field) in zip(orderings, fields) {
            guard ordering.ascending, ordering.field == field.path else { return false }
            if field.kind == .string, ordering.options != field.collation.options { return false }
            if field.kind == .other { return false }
        }
        return true
    }
}
