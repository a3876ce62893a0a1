import LMDB

/// Counts and estimates of the entries an index condition meets: bounded counts
/// (`mdb_cursor_count` per key) and interpolation between the index's first and last keys. Each
/// count or interpolation reads the index and is tallied in the transaction's
/// ``ReadTransaction/indexEstimateReads``.
extension IndexProbe {
    /// What a bounded count of index entries found.
    package struct EntryCount {
        /// Entries meeting the condition among those counted.
        package var entries = 0
        /// False when the count stopped at its limit before the end of the condition's keys.
        package var complete = true
        /// True when a counted key has the cut length (its value is not known exactly).
        package var sawCutKey = false
    }

    /// Counts the entries meeting `condition` key by key (`mdb_cursor_count` for the duplicates of
    /// each key), without copying keys or reading records; stops once `limit` entries are counted.
    /// The keys of an exclusive lower bound, which come first, are passed over here; the rest of
    /// each stretch is counted in one call (``Cursor/countEntries(upTo:throughPrefix:limit:)``).
    package func countEntries(_ condition: QueryPlan.IndexCondition, limit: Int = .max) throws -> EntryCount {
        let stretches = keyBounds(condition)
        return try transaction.lmdb { try transaction.withCursor(database) { cursor in try count(stretches, limit: limit, cursor) } }
    }

    /// ``countEntries(_:limit:)`` of the stretches of a condition (``keyBounds(_:)``), with `cursor`.
    private func count(_ stretches: [KeyBounds], limit: Int, _ cursor: Cursor) throws -> EntryCount {
        transaction.indexEstimateReads += 1
        var result = EntryCount()
        for bounds in stretches where result.complete {
            var more = try bounds.start.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
            if let values = bounds.values {
                // Each key's values within the bounds, one by one.
                while more, result.complete, cursor.withCurrent({ key, _ in bounds.verdict(key) }) == .take {
                    let key = cursor.key
                    if key.count >= IndexKey.maxLength { result.sawCutKey = true }
                    try forEachValue(cursor, key: key, within: values) { _ in
                        result.entries += 1
                        if result.entries >= limit { result.complete = false }
                        return result.complete
                    }
                    more = try cursor.seek(atLeast: key + [0])
                }
                continue
            }
            if let skipped = bounds.skipped {
                while more, cursor.withCurrent({ key, _ in KeyBounds.starts(key, with: skipped) }) { more = try cursor.nextKey() }
            }
            guard more else { continue }
            let end = bounds.countEnd
            let counted = try cursor.countEntries(upTo: end.upper, throughPrefix: end.throughPrefix, limit: limit - result.entries)
            result.entries += counted.entries
            if counted.reachedLimit { result.complete = false }
            if counted.longestKey >= IndexKey.maxLength { result.sawCutKey = true }
        }
        return result
    }

    /// The entries meeting `condition`: counted when there are at most `limit`, otherwise
    /// interpolated from where its bounds fall between the index's first and last keys (as if
    /// keys were spread evenly), and never fewer than were counted. `counted`: the count of
    /// `condition` to `limit` when the caller has made it. The condition's stretches of keys are
    /// built once, and one cursor counts and interpolates.
    ///
    /// `interpolatingFirst`: a range is interpolated before it is counted, and counted only when
    /// the interpolation finds fewer than `limit` entries; otherwise the interpolation is the
    /// estimate, which is the one a count that reaches `limit` gives (the count is spared, not the
    /// estimate changed, whenever the range holds at least `limit` entries). Other conditions are
    /// counted first.
    package func estimateRows(_ condition: QueryPlan.IndexCondition, limit: Int, counted: EntryCount? = nil,
                              interpolatingFirst: Bool = false) throws -> Int {
        if let counted, counted.complete { return counted.entries }
        let given = counted, stretches = keyBounds(condition)
        let early: Bool = if case .range = condition { interpolatingFirst && given == nil } else { false }
        return try transaction.lmdb {
            try transaction.withCursor(database) { cursor -> Int in
                let interpolated = early ? try interpolation(stretches, cursor) : nil
                if let interpolated, interpolated >= limit { return interpolated }
                let counted = try given ?? count(stretches, limit: limit, cursor)
                if counted.complete { return counted.entries }
                // A key range inside pinned keys: estimated per key (other conditions build no bounds here).
                if case .compound(let leading, _) = condition, leading.count == fields.count,
                   stretches.contains(where: { $0.values != nil }) {
                    return max(counted.entries, Int(try valueEstimate(stretches, cursor).rounded()))
                }
                return max(counted.entries, try interpolated ?? interpolation(stretches, cursor) ?? 0)
            }
        }
    }

    /// The entries of `stretches` as the fraction of the span from the index's first key to its
    /// last that they cover, times the index's entries (``KeySpace``); nil when the index is empty.
    private func interpolation(_ stretches: [KeyBounds], _ cursor: Cursor) throws -> Int? {
        transaction.indexEstimateReads += 1
        guard try cursor.first() else { return nil }
        let first = cursor.key
        guard try cursor.last() else { return nil }
        let space = KeySpace(first: first, last: cursor.key)
        let fraction = stretches.reduce(0.0) { $0 + space.fraction(of: $1) }
        let entries = try transaction.entryCount(in: database)
        return Int((fraction * Double(entries)).rounded())
    }

    /// The entries within the values' bounds of `stretches`: for each key, its entries times the
    /// fraction of the span from its first to its last value that the bounds cover (``KeySpace``).
    private func valueEstimate(_ stretches: [KeyBounds], _ cursor: Cursor) throws -> Double {
        let duplicates = database.options.contains(.sortedDuplicates)
        var rows = 0.0
        for bounds in stretches {
            var more = try bounds.start.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
            while more, cursor.withCurrent({ key, _ in bounds.verdict(key) }) == .take {
                let key = cursor.key
                let entries = duplicates ? try cursor.duplicateCount() : 1
                if let values = bounds.values, entries > 1 {
                    let first = cursor.value
                    _ = try cursor.lastDuplicate()
                    let space = KeySpace(first: first, last: cursor.value)
                    let range = KeyBounds.range(lower: values.lower, lowerInclusive: values.lowerInclusive,
                                                upper: values.upper, upperInclusive: values.upperInclusive)
                    rows += Double(entries) * space.fraction(of: range)
                } else {
                    rows += Double(entries)
                }
                more = try cursor.seek(atLeast: key + [0])
            }
        }
        return rows
    }
}
