/// The conditions an index can answer: which comparisons an index field serves, the index
/// condition and key range of each, both bounds of one field made one range, and when an index
/// scan answers its conjuncts exactly.
extension QueryPlanner {
    /// True when the keys an index scan meets under `condition` on `field` are exactly those of the
    /// records meeting `comparison` (keys not cut aside): not multi-value, no quantifier, the
    /// comparison's collation the index's, and values (bounds) of the field's kind whose key encoding is one-to-one and keeps
    /// the order comparisons use; no nil; ranges bounded on both ends. Doubles stay out (NaN sorts
    /// differently in keys).
    package static func isExact(_ condition: QueryPlan.IndexCondition, of comparison: FieldComparison, field: IndexedField, multiValue: Bool) -> Bool {
        // A folded index's keys encode the folded strings, which `[cd]` comparisons compare byte
        // by byte: the same rules as binary keys and comparisons.
        guard !multiValue, comparison.quantifier == nil, comparison.options == field.collation.options else { return false }
        let kind = field.kind
        func fits(_ value: QueryValue) -> Bool {
            switch (kind, value) {
            case (.integer, .int), (.string, .string), (.date, .date), (.bool, .bool), (.uuid, .uuid): true
            default: false
            }
        }
        switch condition {
        case .points(let values): return !values.isEmpty && values.allSatisfy(fits)
        case .range(let range):
            // A field of a declared kind holds values of that kind or nil (which no range takes),
            // so one bound will do; dates need both ends (a NaN date's key sorts last, where
            // comparisons order it first).
            guard range.lower != nil || range.upper != nil, [range.lower, range.upper].allSatisfy({ $0.map(fits) ?? true })
            else { return false }
            return kind != .date || range.lower != nil && range.upper != nil
        case .prefix: return kind == .string && comparison.op == .beginsWith
        case .all, .compound: return false
        }
    }

    /// One range for each field that has both a lower (`>`, `>=`) and an upper (`<`, `<=`) bound
    /// among the conjuncts, with both bounds as written (exclusive ones too) and the positions of
    /// the two conjuncts it replaces. Fields in a stable order.
    package static func combinedRanges(_ conjuncts: [QueryPredicate]) -> [(positions: [Int], field: [String], range: QueryPlan.ValueRange)] {
        // The last lower and the last upper bound of each field: a query has a few conjuncts, so
        // a linear search finds a field's bound sooner than hashing its path.
        var lower: [(position: Int, comparison: FieldComparison)] = [], upper: [(position: Int, comparison: FieldComparison)] = []
        for (position, conjunct) in conjuncts.enumerated() {
            guard case .comparison(let c) = conjunct, c.quantifier == nil, c.options.isEmpty, c.value != .null else { continue }
            switch c.op {
            case .greater, .greaterOrEqual:
                lower.removeAll { $0.comparison.field == c.field }
                lower.append((position, c))
            case .less, .lessOrEqual:
                upper.removeAll { $0.comparison.field == c.field }
                upper.append((position, c))
            default: break
            }
        }
        var ranges: [(positions: [Int], field: [String], range: QueryPlan.ValueRange)] = []
        for low in lower {
            guard let high = upper.first(where: { $0.comparison.field == low.comparison.field }) else { continue }
            let range = QueryPlan.ValueRange(lower: low.comparison.value, lowerInclusive: low.comparison.op == .greaterOrEqual,
                                             upper: high.comparison.value, upperInclusive: high.comparison.op == .lessOrEqual)
            ranges.append(([min(low.position, high.position), max(low.position, high.position)], low.comparison.field, range))
        }
        return ranges.sorted { $0.positions.lexicographicallyPrecedes($1.positions) }
    }

    /// True when an index field can find the records meeting `comparison` (perhaps among others
    /// the filter then removes): same field, a compatible collation, values of its kind.
    package func serves(_ field: IndexedField, _ comparison: FieldComparison, multiValue: Bool) -> Bool {
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
    package static func condition(for comparison: FieldComparison) -> QueryPlan.IndexCondition? {
        switch (comparison.op, comparison.value) {
        case (.equal, let value): return .points([value])
        case (.in, .list(let values)): return .points(values)
        case (.beginsWith, .string(let prefix)): return .prefix(prefix)
        default: return range(of: comparison).map { .range($0) }
        }
    }

    /// The key range holding exactly the strings a `BEGINSWITH` prefix matches: from the prefix
    /// up to the next string past every one that starts with it (the last character moved up one
    /// code point; ordered string keys sort by code point). Nil for an empty prefix or a prefix of
    /// only U+10FFFF, which bound nothing.
    package static func prefixRange(of comparison: FieldComparison) -> QueryPlan.ValueRange? {
        guard comparison.op == .beginsWith, case .string(let prefix) = comparison.value else { return nil }
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }   // past the surrogates, which are not scalars
            guard let successor = Unicode.Scalar(next) else { continue }
            scalars.append(successor)
            var upper = String.UnicodeScalarView()
            upper.append(contentsOf: scalars)
            return QueryPlan.ValueRange(lower: .string(prefix), upper: .string(String(upper)), upperInclusive: false)
        }
        return nil
    }

    package static func range(of comparison: FieldComparison) -> QueryPlan.ValueRange? {
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
