extension QueryPlanner {
    /// Decides how the requested order is met: by the chosen access path, by walking an index in
    /// its order when a LIMIT makes that cheaper than the chosen path (`cost`, sorting included),
    /// or by sorting. A hint naming an index allows only that index's order.
    ///
    /// Every query is ordered: by its orderings, then by primary key, so that any plan returns
    /// the same records in the same order.
    package func chooseOrder(_ plan: inout QueryPlan, query: Query<Void>, total: Int, matches: Double, cost: Double) throws {
        let orderings = Self.significant(query.orderings, primaryKey: context.schema.primaryKey)
        if orderings.isEmpty, query.anyOrder {
            // Any order will do: the access path's own, unsorted, unmerged.
            plan.orderFromAccess = true
            plan.sort = []
            return
        }
        if let delivery = try delivery(of: plan.access, for: orderings) {
            plan.orderFromAccess = true
            plan.reversed = delivery.direction == .backward
            plan.sort = []
            if case .indexScan = plan.access {
                plan.accessOrder = orderings
                plan.merge = delivery.merge
            }
            return
        }
        plan.orderFromAccess = false
        plan.sort = orderings.isEmpty ? [QueryOrdering(field: [context.schema.primaryKey])] : orderings
        guard let limit = query.limit, !orderings.isEmpty else { return }
        // Walking an index in the requested order reads about (offset + limit) / selectivity records.
        let selectivity = max(matches, 1) / max(Double(total), 1)
        let walkRows = min(Double(total), Double(query.offset + limit) / selectivity)
        let walkCost = walkRows * Self.lookupCost
        for descriptor in context.schema.indexes where !descriptor.isMultiValue {
            guard context.indexes[descriptor.name] != nil,
                  let direction = Self.prefixMatches(orderings, descriptor.fields),
                  query.indexHint.map({ $0 == descriptor.name }) ?? (walkCost < cost)
            else { continue }
            plan.access = .indexScan(index: descriptor.name, fields: descriptor.fields, condition: .all)
            plan.reversed = direction == .backward
            plan.residual = query.predicate
            plan.exactAccess = true   // it guarantees nothing: the residual is the whole predicate
            plan.orderFromAccess = true
            plan.accessOrder = orderings
            plan.sort = []
            plan.estimatedRows = Int(walkRows)
            return
        }
    }

    /// The orderings up to the first one on the primary key (those after it cannot matter).
    package static func significant(_ orderings: [QueryOrdering], primaryKey: String) -> [QueryOrdering] {
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

    /// How an access path yields records in a requested order: the way it is walked, and how the
    /// executor merges an index scan's keys or stretches (nil: walked as stored).
    package struct Delivery: Equatable {
        package var direction: WalkDirection
        package var merge: QueryPlan.Merge?
    }

    /// How `access` yields records in `orderings` order (ties in ascending primary key order), or
    /// nil when it cannot.
    package func delivery(of access: QueryPlan.Access, for orderings: [QueryOrdering]) throws -> Delivery? {
        switch access {
        case .fullScan, .primaryKeyRange:
            if orderings.isEmpty { return Delivery(direction: .forward) }
            if orderings.count == 1, orderings[0].field == [context.schema.primaryKey], !orderings[0].ascending {
                return Delivery(direction: .backward)
            }
            return nil
        case .primaryKeyLookup, .union, .intersection, .textSearch:
            return orderings.isEmpty ? Delivery(direction: .forward) : nil
        case .indexScan(let name, let fields, let condition):
            let pinned = Self.pinnedFields(condition)
            guard !orderings.isEmpty else {
                // Each key of a single-field index holds its primary keys in order (a cut key too:
                // it is one stored key); several points are merged by the executor.
                if fields.count == 1, case .points = condition {
                    return Delivery(direction: .forward, merge: pinned == 1 ? nil : .primaryKey)
                }
                // Every field pinned to one value: one key, whose primary keys are in order.
                if pinned == fields.count { return Delivery(direction: .forward) }
                // A compound index bound on its leading field alone yields no fewer keys than a
                // single-field index on that field, which serves the same condition: not merged.
                if fields.count > 1, !condition.isCompound, context.schema.indexes.contains(where: { index in
                    index.fields == [fields[0]] && !index.isMultiValue && context.indexes[index.name] != nil
                }) { return nil }
                // A few keys (a compound index's leading value over a field of few values, a
                // short range): the executor merges their entries.
                return try mergeableKeys(of: access) ? Delivery(direction: .forward, merge: .primaryKey) : nil
            }
            if let direction = Self.prefixMatches(orderings, fields) { return Delivery(direction: direction) }
            // Equality on the leading fields, order on the next ones.
            if pinned > 0, pinned < fields.count, let direction = Self.prefixMatches(orderings, Array(fields.dropFirst(pinned))) {
                return Delivery(direction: direction)
            }
            // IN on the leading fields, order on the next ones: each combination's stretch is in
            // that order, and the executor merges them.
            guard context.schema.indexes.first(where: { $0.name == name })?.isMultiValue == false else { return nil }
            for after in stride(from: Self.pointFields(condition), to: pinned, by: -1) where after < fields.count {
                if let direction = Self.prefixMatches(orderings, Array(fields.dropFirst(after))) {
                    return Delivery(direction: direction, merge: .laterFields(after: after))
                }
            }
            return nil
        }
    }

    /// The most distinct keys an index scan merges into primary key order
    /// (``QueryPlan/Merge/primaryKey``); a scan meeting more keys is sorted instead.
    package static var mergeKeyLimit: Int { 64 }

    /// True when an index scan (not of the whole index) meets at most ``mergeKeyLimit`` distinct
    /// keys, counted in the index (keys only, no entries).
    package func mergeableKeys(of access: QueryPlan.Access) throws -> Bool {
        guard case .indexScan(let name, let fields, let condition) = access, condition != .all,
              let database = context.indexes[name] else { return false }
        return try IndexProbe(transaction: transaction, database: database, fields: fields)
            .distinctKeys(condition, limit: Self.mergeKeyLimit) != nil
    }

    /// How many of an index's first fields `condition` pins to one value each: its keys then come
    /// in the order of the fields after them.
    package static func pinnedFields(_ condition: QueryPlan.IndexCondition) -> Int {
        switch condition {
        case .points(let values): return isOneValue(values) ? 1 : 0
        case .compound(let leading, let next):
            let pinned = leading.prefix(while: isOneValue).count
            guard pinned == leading.count else { return pinned }
            return pinned + pinnedFields(next)
        case .range, .prefix, .all: return 0
        }
    }

    /// True when `values` hold one value, perhaps repeated (`IN {3, 3}`).
    package static func isOneValue(_ values: [QueryValue]) -> Bool {
        guard let first = values.first else { return false }
        return values.allSatisfy { $0 == first }
    }

    /// How many of an index's first fields `condition` bounds by points (`==` or `IN`), one value
    /// or several: the combinations of their values are the stretches an ordered merge merges.
    package static func pointFields(_ condition: QueryPlan.IndexCondition) -> Int {
        switch condition {
        case .points: return 1
        case .compound(let leading, let next):
            if case .points = next { return leading.count + 1 }
            return leading.count
        case .range, .prefix, .all: return 0
        }
    }

    /// The direction in which `fields` deliver `orderings` (all ascending or all descending, naming
    /// every field with matching collations), or nil. Orderings that name only the leading fields
    /// of a compound index do not match: ties would come in the order of the other fields, not of
    /// the primary key.
    package static func prefixMatches(_ orderings: [QueryOrdering], _ fields: [IndexedField]) -> WalkDirection? {
        guard !orderings.isEmpty, orderings.count == fields.count else { return nil }
        let ascending = orderings[0].ascending
        for (ordering, field) in zip(orderings, fields) {
            guard ordering.ascending == ascending, ordering.field == field.path else { return nil }
            if field.kind == .string, ordering.options != field.collation.options { return nil }
            if field.kind == .other { return nil }
        }
        return ascending ? .forward : .backward
    }
}

/// Which way an access path is walked.
package enum WalkDirection { case forward, backward }
