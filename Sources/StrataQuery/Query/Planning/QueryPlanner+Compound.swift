import LMDB

extension QueryPlanner {
    /// The most combinations of leading values (`IN` lists multiplied) a compound scan walks.
    package static var compoundPointLimit: Int { 1_024 }

    /// One access path per compound index whose first fields the conjuncts pin: equality (or
    /// `IN`) on the first k fields, then equality, `IN`, a range (both bounds of one field make one
    /// range) or a prefix on field k + 1, as SQLite's planner uses a multi-column index. Only paths
    /// that use more than the leading field's equality are made here (that one is a single-field
    /// path of ``accessPaths(for:total:range:)``). The path is exact, leaving its conjuncts out of
    /// the filter, when every one of them is exact on its field (``isExact(_:of:field:multiValue:)``).
    package func compoundPaths(_ conjuncts: [QueryPredicate], ranges: [(positions: [Int], field: [String], range: QueryPlan.ValueRange)],
                       total: Int) throws -> [Candidate] {
        var paths: [Candidate] = []
        for descriptor in context.schema.indexes where descriptor.fields.count > 1 && !descriptor.isMultiValue
            && weighed?.contains(descriptor.name) ?? true {
            guard let database = context.indexes[descriptor.name] else { continue }
            var used: [Int] = []
            var leading: [[QueryValue]] = []
            var exact = true
            // Equality or IN on each leading field, in order, while the conjuncts pin one.
            for field in descriptor.fields.dropLast() {
                guard let (position, comparison, values) = pinning(field, in: conjuncts, excluding: used) else { break }
                leading.append(values)
                used.append(position)
                exact = exact && Self.isExact(.points(values), of: comparison, field: field, multiValue: false)
            }
            guard !leading.isEmpty, leading.reduce(1, { $0 * $1.count }) <= Self.compoundPointLimit else { continue }
            let field = descriptor.fields[leading.count]
            var next = QueryPlan.IndexCondition.all
            if let combined = ranges.first(where: { range in range.field == field.path && !range.positions.contains(where: used.contains) }),
               let lower = combined.range.lower, let upper = combined.range.upper,
               serves(field, FieldComparison(field: field.path, op: .between, value: .list([lower, upper])), multiValue: false) {
                next = .range(combined.range)
                used += combined.positions
                let comparison = FieldComparison(field: field.path, op: .between, value: .list([lower, upper]))
                exact = exact && Self.isExact(next, of: comparison, field: field, multiValue: false)
            } else if let (position, comparison, condition) = bounding(field, in: conjuncts, excluding: used) {
                next = condition
                used.append(position)
                exact = exact && Self.isExact(condition, of: comparison, field: field, multiValue: false)
            }
            // The leading field's equality alone is the single-field path.
            guard used.count > 1 else { continue }
            let condition = QueryPlan.IndexCondition.compound(leading: leading, next: next)
            let probe = IndexProbe(transaction: transaction, database: database, fields: descriptor.fields)
            let rows = min(total, try keptRows ?? compoundRows(condition, of: descriptor, probe: probe, conjuncts: used.map { conjuncts[$0] }))
            paths.append(Candidate(access: .indexScan(index: descriptor.name, fields: descriptor.fields, condition: condition),
                                   rows: rows, cost: Double(rows) * Self.lookupCost, used: used.sorted(),
                                   ordered: descriptor.fields, exact: exact))
        }
        return paths + (try keyRangePaths(conjuncts, ranges: ranges))
    }

    /// One access path per index whose every field the conjuncts pin (`==` or `IN`) when another
    /// conjunct bounds the primary key by a range (`>`, `>=`, `<`, `<=`, both, or `BEGINSWITH` on a
    /// string key): the entries under each pinned key are sorted primary keys, so the key acts as
    /// the index's last field, as SQLite's rowid does, and the walk seeks the range's lower bound
    /// in each key's entries (`MDB_GET_BOTH_RANGE`) and stops past its upper one. `lastName ==
    /// "Bluth" AND id > 4812 ORDER BY lastName LIMIT 50` (a page after a record, in an index's order)
    /// reads 50 entries, not every entry of "Bluth" before 4812.
    ///
    /// For a primary key of one field of a kind with order-preserving keys (not `.other`), bounded
    /// by values of that kind. Not exact: candidates are checked against the whole predicate.
    private func keyRangePaths(_ conjuncts: [QueryPredicate], ranges: [(positions: [Int], field: [String], range: QueryPlan.ValueRange)]) throws -> [Candidate] {
        let keyName = context.schema.primaryKey
        guard context.schema.primaryKeyFields.count <= 1, conjuncts.count > 1 else { return [] }
        // Compared in place: no one-element path made for each comparison.
        func isKey(_ field: [String]) -> Bool { field.count == 1 && field[0] == keyName }
        // The key's range: both bounds made one, else the first conjunct that bounds it.
        var bound: (positions: [Int], range: QueryPlan.ValueRange)?
        if let combined = ranges.first(where: { isKey($0.field) }) {
            bound = (combined.positions, combined.range)
        } else {
            for (position, conjunct) in conjuncts.enumerated() {
                guard case .comparison(let comparison) = conjunct, isKey(comparison.field), comparison.quantifier == nil,
                      comparison.options.isEmpty, let range = Self.range(of: comparison) ?? Self.prefixRange(of: comparison)
                else { continue }
                bound = ([position], range)
                break
            }
        }
        guard let bound else { return [] }
        let kind = try transaction.primaryKeyKind(of: context)
        guard kind != .other, [bound.range.lower, bound.range.upper].allSatisfy({ $0.map { $0 != .null && kind.accepts($0) } ?? true })
        else { return [] }
        let primaryKey = IndexedField(path: [keyName], collation: .binary, kind: kind)
        var paths: [Candidate] = []
        for descriptor in context.schema.indexes where !descriptor.isMultiValue && weighed?.contains(descriptor.name) ?? true {
            guard let database = context.indexes[descriptor.name] else { continue }
            var used = bound.positions, leading: [[QueryValue]] = []
            for field in descriptor.fields {
                // A single field's nil is one key too (`field == nil`: nil is indexed, first).
                guard let (position, _, values) = pinning(field, in: conjuncts, excluding: used)
                        ?? (descriptor.fields.count == 1 ? pinningNil(field, in: conjuncts, excluding: used) : nil) else { break }
                leading.append(values)
                used.append(position)
            }
            guard leading.count == descriptor.fields.count, leading.reduce(1, { $0 * $1.count }) <= Self.compoundPointLimit else { continue }
            let condition = QueryPlan.IndexCondition.compound(leading: leading, next: .range(bound.range))
            let probe = IndexProbe(transaction: transaction, database: database, fields: descriptor.fields, primaryKey: primaryKey)
            let rows = try keptRows ?? probe.estimateRows(condition, limit: Self.probeLimit)
            paths.append(Candidate(access: .indexScan(index: descriptor.name, fields: descriptor.fields, condition: condition),
                                   rows: rows, cost: Double(rows) * Self.lookupCost, used: used.sorted(),
                                   ordered: descriptor.fields, exact: false))
        }
        return paths
    }

    /// Raises the estimate of each scan of a compound index's leading values to at least that of
    /// every compound scan of the same index within them: a stretch of keys holds every stretch
    /// inside it, which interpolated estimates (keys spread unevenly) can miss.
    package static func keepContainment(_ candidates: inout [Candidate], within compound: [Candidate]) {
        guard !compound.isEmpty else { return }
        for index in candidates.indices {
            guard case .indexScan(let name, _, .points(let values)) = candidates[index].access else { continue }
            var largest = 0
            for candidate in compound {
                guard case .indexScan(name, _, .compound(let leading, _)) = candidate.access,
                      leading[0].allSatisfy(values.contains) else { continue }
                largest = max(largest, candidate.rows)
            }
            guard largest > candidates[index].rows else { continue }
            candidates[index].cost *= Double(largest) / Double(max(candidates[index].rows, 1))
            candidates[index].rows = largest
        }
    }

    /// The entries of a compound condition: counted when there are few; otherwise the entries of
    /// its first field's values (``leadingPointRows(_:of:probe:)``) times the
    /// selectivity of each further conjunct (for equality on the second field of a two-field
    /// index with statistics: one of a value's keys; otherwise guessed). Without statistics, no
    /// more than the interpolation of the condition's keys. Never fewer than were counted.
    private func compoundRows(_ condition: QueryPlan.IndexCondition, of descriptor: IndexDescriptor, probe: IndexProbe,
                              conjuncts: [QueryPredicate]) throws -> Int {
        let counted = try probe.countEntries(condition, limit: Self.probeLimit)
        guard !counted.complete, case .compound(let leading, let next) = condition else { return counted.entries }
        let first = try leadingPointRows(leading[0], of: descriptor, probe: probe)
        let statistics = try statistics(of: descriptor, in: probe.database)
        var narrowed = Double(first)
        if let statistics, probe.fields.count == 2, conjuncts.count == 2, case .points(let values) = next {
            narrowed *= min(1, Double(values.count) * statistics.nextFieldSelectivity)
        } else {
            narrowed = conjuncts.dropFirst().reduce(narrowed) { $0 * Self.guessedSelectivity($1) }
            if statistics == nil { narrowed = min(narrowed, Double(try probe.estimateRows(condition, limit: Self.probeLimit, counted: counted))) }
        }
        return max(counted.entries, Int(narrowed.rounded(.up)))
    }

    /// The entries of `values` of a compound index's leading field: counted exactly by a
    /// single-field index on that field when there is one; else the bounded count or its
    /// interpolation, and, when that reached the bound and the index has current statistics,
    /// ``leadingRows(_:probe:statistics:)``. The statistics are looked up only then.
    /// A kept path made again (``keptAllowance``) takes them from the statistics alone when
    /// they show the values cannot reach the allowance (``statisticsRows(_:of:probe:allowed:)``).
    package func leadingPointRows(_ values: [QueryValue], of descriptor: IndexDescriptor, probe: IndexProbe) throws -> Int {
        if let exact = try exactPointRows(probe.fields[0], values) { return exact }
        if let allowed = keptAllowance, let rows = try statisticsRows(values, of: descriptor, probe: probe, allowed: allowed) {
            return rows
        }
        let estimated = try probe.estimateRows(.points(values), limit: Self.probeLimit)
        guard estimated >= Self.probeLimit, let statistics = try statistics(of: descriptor, in: probe.database) else { return estimated }
        // The statistics see skew that interpolation cannot.
        return max(Self.probeLimit, try leadingRows(values, probe: probe, statistics: statistics))
    }

    /// The most entries of one leading value counted in a compound index with statistics, before
    /// the statistics' average stands in.
    package static var statisticsCountLimit: Int { 1_024 }

    /// The entries of `values` of a compound index's leading field: a frequent value's from the
    /// statistics; any other value's counted in the index up to ``statisticsCountLimit`` (so a
    /// rare value is exact, whatever the average), beyond which the statistics' average stands in.
    package func leadingRows(_ values: [QueryValue], probe: IndexProbe, statistics: IndexKeyStatistics) throws -> Int {
        var rows = 0
        for (value, key) in Set(values).compactMap({ value in probe.pointKeys([value]).first.map { (value, $0) } }) {
            if let counted = statistics.frequentEntries(key) {
                rows += counted
                continue
            }
            let counted = try probe.countEntries(.points([value]), limit: Self.statisticsCountLimit)
            rows += counted.complete ? counted.entries : max(counted.entries, statistics.leadingEntries(key))
        }
        return rows
    }

    /// The entries of `values` of a compound index's leading field from the index's current
    /// statistics alone, reading no index: a frequent value's counted entries, any other value's
    /// the statistics' average (``IndexKeyStatistics/leadingEntries(_:)``). For a kept path made
    /// again, whose choice stands while it reads at most `allowed` rows. Nil (the values are then
    /// counted) when the index has no current statistics, or when the values could hold more than
    /// `allowed` entries: each frequent value's entries, each other value's
    /// ``IndexKeyStatistics/rareCeiling`` and the entries the index gained since the statistics
    /// were taken, summed. A skewed value is frequent, so it is counted and can undo the choice.
    package func statisticsRows(_ values: [QueryValue], of descriptor: IndexDescriptor, probe: IndexProbe, allowed: Int) throws -> Int? {
        guard let (statistics, entries) = try currentStatistics(of: descriptor, in: probe.database) else { return nil }
        var rows = 0, most = max(0, entries - statistics.entries)
        for key in probe.pointKeys(values) {
            if let counted = statistics.frequentEntries(key) {
                rows += counted
                most += counted
            } else {
                rows += statistics.leadingEntries(key)
                most += statistics.rareCeiling
            }
            if most > allowed { return nil }
        }
        return rows
    }

    /// The statistics of a compound index (``IndexKeyStatistics``) while they are current: taken of
    /// the same fields, at an entry count within a quarter of the index's.
    package func statistics(of descriptor: IndexDescriptor, in database: Database) throws -> IndexKeyStatistics? {
        try currentStatistics(of: descriptor, in: database)?.statistics
    }

    /// ``statistics(of:in:)``, with the index's entry count now.
    private func currentStatistics(of descriptor: IndexDescriptor, in database: Database) throws
        -> (statistics: IndexKeyStatistics, entries: Int)? {
        guard let statistics = context.schema.statistics[descriptor.name], statistics.fields == descriptor.fields else { return nil }
        let entries = try transaction.entryCount(of: database, entity: context.name)
        return statistics.isCurrent(entries: entries) ? (statistics, entries) : nil
    }

    /// The entries of `values` in a single-field index on `field` (its keys' duplicates, counted
    /// exactly), when the entity has one of the same collation; nil otherwise.
    package func exactPointRows(_ field: IndexedField, _ values: [QueryValue]) throws -> Int? {
        guard let single = context.schema.indexes.first(where: { $0.fields == [field] && !$0.isMultiValue }),
              let database = context.indexes[single.name] else { return nil }
        let probe = IndexProbe(transaction: transaction, database: database, field: field)
        return try probe.countEntries(.points(values)).entries
    }

    /// A conjunct (not in `excluding`) that pins `field` to one value (`==`) or a few (`IN`), with
    /// the values.
    private func pinning(_ field: IndexedField, in conjuncts: [QueryPredicate], excluding: [Int])
        -> (position: Int, comparison: FieldComparison, values: [QueryValue])? {
        for (position, conjunct) in conjuncts.enumerated() where !excluding.contains(position) {
            guard case .comparison(let comparison) = conjunct, comparison.field == field.path,
                  serves(field, comparison, multiValue: false) else { continue }
            switch (comparison.op, comparison.value) {
            case (.equal, let value) where value != .null: return (position, comparison, [value])
            case (.in, .list(let values)) where !values.isEmpty && !values.contains(.null): return (position, comparison, values)
            default: continue
            }
        }
        return nil
    }

    /// A conjunct (not in `excluding`) that pins `field` to nil (`field == nil`), with the value.
    private func pinningNil(_ field: IndexedField, in conjuncts: [QueryPredicate], excluding: [Int])
        -> (position: Int, comparison: FieldComparison, values: [QueryValue])? {
        for (position, conjunct) in conjuncts.enumerated() where !excluding.contains(position) {
            guard case .comparison(let comparison) = conjunct, comparison.field == field.path, comparison.op == .equal,
                  comparison.value == .null, serves(field, comparison, multiValue: false) else { continue }
            return (position, comparison, [.null])
        }
        return nil
    }

    /// A conjunct (not in `excluding`) that bounds `field`: equality, `IN`, a prefix or one side of
    /// a range, with its index condition.
    private func bounding(_ field: IndexedField, in conjuncts: [QueryPredicate], excluding: [Int])
        -> (position: Int, comparison: FieldComparison, condition: QueryPlan.IndexCondition)? {
        if let (position, comparison, values) = pinning(field, in: conjuncts, excluding: excluding) {
            return (position, comparison, .points(values))
        }
        for (position, conjunct) in conjuncts.enumerated() where !excluding.contains(position) {
            guard case .comparison(let comparison) = conjunct, comparison.field == field.path,
                  serves(field, comparison, multiValue: false),
                  let condition = Self.condition(for: comparison) else { continue }
            return (position, comparison, condition)
        }
        return nil
    }
}
