import LMDB

/// Walks the entries of one index that meet an index condition, in index order: the planner uses
/// it to estimate rows, the executor to find candidates.
///
/// Bounds are compared as byte prefixes cut to `IndexKey.maxLength`, so keys that were cut when
/// stored are always among the candidates (the executor rechecks every candidate).
package struct IndexProbe {
    package let transaction: ReadTransaction
    package let database: Database
    /// The index's fields, in key order (a records database: its primary key field).
    package let fields: [IndexedField]

    /// The primary key field, which orders the entries under each key (an index key's sorted
    /// duplicates) as if it were the index's last field: a compound condition pinning every field
    /// of the index bounds it with its next condition (a range). Nil: such a bound is not applied
    /// (every entry of the key is a candidate).
    package var primaryKey: IndexedField?

    package init(transaction: ReadTransaction, database: Database, fields: [IndexedField], primaryKey: IndexedField? = nil) {
        precondition(!fields.isEmpty, "an index has at least one field")
        self.transaction = transaction
        self.database = database
        self.fields = fields
        self.primaryKey = primaryKey
    }

    package init(transaction: ReadTransaction, database: Database, field: IndexedField) {
        self.init(transaction: transaction, database: database, fields: [field])
    }

    /// The leading field, which every condition but a compound one is on.
    package var field: IndexedField { fields[0] }

    /// Calls `body` with (index key, primary key) for every entry meeting `condition`, in index
    /// order, until `body` returns false.
    package func walk(_ condition: QueryPlan.IndexCondition, reversed: Bool = false, _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        if reversed { return try walkBackward(condition, body) }
        try transaction.lmdb {
            try transaction.withCursor(database) { cursor in
                // Each entry is copied into the same two arrays: no allocation per entry unless
                // `body` keeps one (then copy-on-write gives the next entry fresh storage).
                var key: [UInt8] = [], value: [UInt8] = []
                for bounds in keyBounds(condition) {
                    var more = try bounds.start.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
                    walking: while more {
                        if let values = bounds.values {
                            guard case .take = cursor.withCurrent({ current, _ in bounds.verdict(current) }) else { break walking }
                            key = cursor.key
                            var going = true
                            try forEachValue(cursor, key: key, within: values) { primaryKey in
                                going = try body(key, primaryKey)
                                return going
                            }
                            guard going else { return }
                            more = try cursor.seek(atLeast: key + [0])
                            continue walking
                        }
                        let verdict = cursor.withCurrent { current, currentValue in
                            let verdict = bounds.verdict(current)
                            if case .take = verdict {
                                current.replaceBytes(of: &key)
                                currentValue.replaceBytes(of: &value)
                            }
                            return verdict
                        }
                        switch verdict {
                        case .stop: break walking
                        case .skip: break
                        case .take: guard try body(key, value) else { return }
                        }
                        more = try cursor.next()
                    }
                }
            }
        }
    }

    /// Calls `body` with each distinct stored key meeting `condition`, ascending, and its entries
    /// (`mdb_cursor_count`; 0 when not `counting`), until `body` returns false. Reads keys only
    /// (`MDB_NEXT_NODUP`).
    package func forEachKey(_ condition: QueryPlan.IndexCondition, counting: Bool = true, _ body: ([UInt8], Int) throws -> Bool) throws {
        try transaction.lmdb {
            try transaction.withCursor(database) { cursor in
                let duplicates = database.options.contains(.sortedDuplicates)
                for bounds in keyBounds(condition) {
                    var more = try bounds.start.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
                    walking: while more {
                        switch cursor.withCurrent({ key, _ in bounds.verdict(key) }) {
                        case .stop: break walking
                        case .skip: break
                        case .take:
                            let entries = !counting ? 0 : duplicates ? try cursor.duplicateCount() : 1
                            guard try body(cursor.key, entries) else { return }
                        }
                        more = try cursor.nextKey()
                    }
                }
            }
        }
    }

    /// The distinct stored keys meeting `condition`, ascending, or nil when there are more than
    /// `limit`. Each key's entries are primary keys in ascending order (its sorted duplicates, or
    /// the one entry of a unique index), so merging the keys' entries (``IndexMerge``) yields
    /// the condition's records in primary key order. Reads keys only.
    package func distinctKeys(_ condition: QueryPlan.IndexCondition, limit: Int) throws -> [[UInt8]]? {
        var keys: [[UInt8]] = []
        var complete = true
        try forEachKey(condition, counting: false) { key, _ in
            guard keys.count < limit else { complete = false; return false }
            keys.append(key)
            return true
        }
        return complete ? keys : nil
    }

    /// The stretches of keys meeting `condition`, in key order (points: one per distinct key; a
    /// compound condition: one or more per combination of leading values).
    package func keyBounds(_ condition: QueryPlan.IndexCondition) -> [KeyBounds] {
        guard case .compound(let leading, let next) = condition else { return keyBounds(condition, of: field, under: []) }
        return leadingPrefixes(leading).flatMap { bounds(next, after: leading.count, under: $0.prefix) }
    }

    /// The stretches of keys under `prefix` (the encoded values of the index's first `pinned`
    /// fields) whose next part meets `condition`: on the field after them, or, when they are all
    /// of the index's fields, on the primary key (the one key, its values bounded by a range).
    private func bounds(_ condition: QueryPlan.IndexCondition, after pinned: Int, under prefix: [UInt8]) -> [KeyBounds] {
        if pinned < fields.count { return keyBounds(condition, of: fields[pinned], under: prefix) }
        guard pinned == fields.count else { return [] }
        var key = KeyBounds.prefix(Self.cut(prefix))
        if case .range(let range) = condition, let primaryKey {
            let lower = range.lower.flatMap { encoded($0, of: primaryKey) }, upper = range.upper.flatMap { encoded($0, of: primaryKey) }
            if lower != nil || upper != nil {
                key.values = KeyBounds.ValueBounds(lower: lower, lowerInclusive: range.lowerInclusive,
                                                   upper: upper, upperInclusive: range.upperInclusive)
            }
        }
        return [key]
    }

    /// Calls `body` with each value (primary key) under `key`, where the cursor rests on its
    /// first value, that `values` bound, ascending, until `body` returns false. In a
    /// sorted-duplicates database it seeks the lower bound (`MDB_GET_BOTH_RANGE`) and stops past
    /// the upper one; otherwise the key's one value is checked.
    func forEachValue(_ cursor: Cursor, key: [UInt8], within values: KeyBounds.ValueBounds,
                      _ body: ([UInt8]) throws -> Bool) throws {
        let duplicates = database.options.contains(.sortedDuplicates)
        var more = true
        if duplicates, let lower = values.lower { more = try cursor.seek(key: key, valueAtLeast: lower) }
        while more {
            switch cursor.withCurrent({ _, value in values.verdict(value) }) {
            case .stop: return
            case .skip: break
            case .take: guard try body(cursor.value) else { return }
            }
            guard duplicates else { return }
            more = try cursor.nextDuplicate()
        }
    }

    /// The stretches of keys meeting `condition`, one per combination of the values its points
    /// pin (`==` or `IN` on the index's first fields), with the length of the encoded values of the
    /// combination's first `fields` fields: merged by the rest of the key, they yield the order of
    /// the fields after those (``IndexMerge``). Nil when `condition` does not bound the first
    /// `fields` fields by points.
    package func stretches(_ condition: QueryPlan.IndexCondition, after fields: Int) -> [(bounds: KeyBounds, leadingLength: Int)]? {
        switch condition {
        case .points(let values) where fields == 1:
            return pointKeys(values).map { (.prefix($0), $0.count) }
        case .compound(let leading, let next):
            let pointed: Int = if case .points = next { leading.count + 1 } else { leading.count }
            guard fields >= 1, fields <= pointed else { return nil }
            let combinations = leadingPrefixes(leading, measuring: fields)
            if fields <= leading.count {
                return combinations.flatMap { combination in
                    bounds(next, after: leading.count, under: combination.prefix)
                        .map { ($0, min(combination.length, IndexKey.maxLength)) }
                }
            }
            guard leading.count < self.fields.count else { return [] }
            guard case .points(let values) = next else { return nil }
            let keys = pointKeys(values, of: self.fields[leading.count])
            return combinations.flatMap { combination in
                keys.map { key in
                    let stretch = Self.cut(combination.prefix + key)
                    return (KeyBounds.prefix(stretch), min(combination.length + key.count, stretch.count))
                }
            }
        default:
            return nil
        }
    }

    /// The stretches of keys whose part after `prefix` (the encoded values of the fields before
    /// `field`) meets `condition` on `field`.
    private func keyBounds(_ condition: QueryPlan.IndexCondition, of field: IndexedField, under prefix: [UInt8]) -> [KeyBounds] {
        switch condition {
        case .all:
            return [prefix.isEmpty ? .all : .prefix(Self.cut(prefix))]
        case .points(let values):
            return pointKeys(values, of: field).map { .prefix(Self.cut(prefix + $0)) }
        case .prefix(let text):
            return [.prefix(Self.cut(prefix + IndexKey.prefix(text, collation: field.collation)))]
        case .range(let range):
            return [.range(under: prefix, lower: range.lower.flatMap { encoded($0, of: field) }, lowerInclusive: range.lowerInclusive,
                           upper: range.upper.flatMap { encoded($0, of: field) }, upperInclusive: range.upperInclusive)]
        case .compound:
            return []   // a compound condition's next condition is on one field
        }
    }

    /// The encoded values of each combination of `leading` values of the first fields, in key
    /// order, with the length of the encoded values of its first `measured` fields.
    private func leadingPrefixes(_ leading: [[QueryValue]], measuring measured: Int = 0) -> [(prefix: [UInt8], length: Int)] {
        var combinations: [(prefix: [UInt8], length: Int)] = [([], 0)]
        for (position, (values, field)) in zip(leading, fields).enumerated() {
            let keys = pointKeys(values, of: field)
            combinations = combinations.flatMap { combination in
                keys.map { (combination.prefix + $0, combination.length + (position < measured ? $0.count : 0)) }
            }
        }
        return combinations
    }

    /// The distinct stored keys of `values` in the leading field (cut as stored), ascending.
    package func pointKeys(_ values: [QueryValue]) -> [[UInt8]] { pointKeys(values, of: field) }

    private func pointKeys(_ values: [QueryValue], of field: IndexedField) -> [[UInt8]] {
        if values.count == 1 { return encoded(values[0], of: field).map { [$0] } ?? [] }
        return Set(values.compactMap { encoded($0, of: field) }).sorted { $0.lexicographicallyPrecedes($1) }
    }

    private func encoded(_ value: QueryValue, of field: IndexedField) -> [UInt8]? {
        IndexKey.lookupKey(value, kind: field.kind, collation: field.collation).map(Self.cut)
    }

    private static func cut(_ key: [UInt8]) -> [UInt8] {
        key.count > IndexKey.maxLength ? Array(key.prefix(IndexKey.maxLength)) : key
    }

    // MARK: Backward

    /// As `walk`, with keys in descending order; the values of one key (primary keys) still come
    /// in ascending order, the tie-break every result order uses.
    private func walkBackward(_ condition: QueryPlan.IndexCondition, _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        try transaction.lmdb {
            try transaction.withCursor(database) { cursor in
                for bounds in keyBounds(condition).reversed() {
                    guard try backward(cursor, bounds, body) else { return }
                }
            }
        }
    }

    /// Walks the keys of `bounds` downward from its end, each key's values upward; false when
    /// `body` asked to stop.
    private func backward(_ cursor: Cursor, _ bounds: KeyBounds, _ body: ([UInt8], [UInt8]) throws -> Bool) throws -> Bool {
        var more: Bool
        if let end = bounds.backwardStart, try cursor.seek(atLeast: end) {
            more = try cursor.previous()
        } else {
            more = try cursor.last()
        }
        let duplicates = database.options.contains(.sortedDuplicates)
        while more {
            let key = cursor.key
            switch bounds.backwardVerdict(key) {
            case .stop, .skip: return true   // the keys passed over (an exclusive lower bound) come last going down
            case .take:
                if let values = bounds.values {
                    // The key's values within the bounds, ascending, as every walk yields them.
                    _ = try cursor.seek(exactly: key)
                    var going = true
                    try forEachValue(cursor, key: key, within: values) { primaryKey in
                        going = try body(key, primaryKey)
                        return going
                    }
                    guard going else { return false }
                    _ = try cursor.seek(exactly: key)
                } else if duplicates {
                    // Re-seek the key (its first value) rather than trust where the cursor rests after
                    // the last duplicate: then one step back is the previous key's last value.
                    var next = try cursor.seek(exactly: key)
                    while next {
                        guard try body(key, cursor.value) else { return false }
                        next = try cursor.nextDuplicate()
                    }
                    _ = try cursor.seek(exactly: key)
                } else {
                    guard try body(key, cursor.value) else { return false }
                }
            }
            more = try cursor.previous()
        }
        return true
    }
}
