import LMDB

/// Walks the entries of one index that meet an index condition, in index order: the planner uses
/// it to estimate rows, the executor to find candidates.
///
/// Bounds are compared as byte prefixes cut to `IndexKey.maxLength`, so keys that were cut when
/// stored are always among the candidates (the executor rechecks every candidate).
struct IndexProbe {
    let transaction: ReadTransaction
    let database: Database
    let field: IndexedField

    /// Counts entries meeting `condition`, walking at most `limit`; beyond that, extrapolates.
    func estimateRows(_ condition: QueryPlan.IndexCondition, limit: Int, total: Int) throws -> Int {
        var count = 0
        var truncated = false
        try walk(condition) { _, _ in
            count += 1
            if count >= limit { truncated = true; return false }
            return true
        }
        // A walk cut short says only "at least `limit`": assume a quarter of the records beyond it.
        return truncated ? max(limit, total / 4) : count
    }

    /// Calls `body` with (index key, primary key) for every entry meeting `condition`, in index
    /// order, until `body` returns false.
    func walk(_ condition: QueryPlan.IndexCondition, reversed: Bool = false, _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        if reversed { return try walkBackward(condition, body) }
        try transaction.lmdb {
            try transaction.raw.withCursor(database) { cursor in
                switch condition {
                case .all:
                    var more = try cursor.first()
                    while more {
                        guard try body(cursor.key, cursor.value) else { return }
                        more = try cursor.next()
                    }
                case .points(let values):
                    let prefixes = Set(values.compactMap { encoded($0) }).sorted { $0.lexicographicallyPrecedes($1) }
                    for prefix in prefixes {
                        guard try walk(cursor, from: prefix, while: { $0.starts(with: prefix) }, body) else { return }
                    }
                case .prefix(let text):
                    let prefix = Array(IndexKey.prefix(text, collation: field.collation).prefix(IndexKey.maxLength))
                    _ = try walk(cursor, from: prefix, while: { $0.starts(with: prefix) }, body)
                case .range(let range):
                    try walk(cursor, range, body)
                }
            }
        }
    }

    private func encoded(_ value: QueryValue) -> [UInt8]? {
        IndexKey.encode(value, kind: field.kind, collation: field.collation).map { Array($0.prefix(IndexKey.maxLength)) }
    }

    /// Walks from the first key ≥ `start` while `inside` holds; false when `body` asked to stop.
    private func walk(_ cursor: Cursor, from start: [UInt8], while inside: ([UInt8]) -> Bool,
                      _ body: ([UInt8], [UInt8]) throws -> Bool) throws -> Bool {
        var more = try cursor.seek(atLeast: start)
        while more {
            let key = cursor.key
            guard inside(key) else { return true }
            guard try body(key, cursor.value) else { return false }
            more = try cursor.next()
        }
        return true
    }

    private func walk(_ cursor: Cursor, _ range: QueryPlan.ValueRange, _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        // Comparisons with nil are false, so a range never starts at the nil key (tag 0x00).
        let lower = range.lower.flatMap(encoded) ?? [0x01]
        let upper = range.upper.flatMap(encoded)
        let skipLower = range.lower != nil && !range.lowerInclusive
        _ = try walk(cursor, from: lower, while: { key in
            guard let upper else { return true }
            if key.starts(with: upper) { return range.upperInclusive || upper.count >= IndexKey.maxLength }
            return key.lexicographicallyPrecedes(upper)
        }, { key, primaryKey in
            // Leading value equal to an exclusive lower bound (unless the bound was cut: then it may differ).
            if skipLower, key.starts(with: lower), lower.count < IndexKey.maxLength { return true }
            return try body(key, primaryKey)
        })
    }

    // MARK: Backward

    /// As `walk`, with keys in descending order; the values of one key (primary keys) still come
    /// in ascending order, the tie-break every result order uses.
    private func walkBackward(_ condition: QueryPlan.IndexCondition, _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        try transaction.lmdb {
            try transaction.raw.withCursor(database) { cursor in
                switch condition {
                case .all:
                    _ = try backward(cursor, before: nil, while: { _ in true }, body)
                case .points(let values):
                    let prefixes = Set(values.compactMap { encoded($0) }).sorted { $0.lexicographicallyPrecedes($1) }
                    for prefix in prefixes.reversed() {
                        guard try backward(cursor, before: Self.successor(prefix), while: { $0.starts(with: prefix) }, body) else { return }
                    }
                case .prefix(let text):
                    let prefix = Array(IndexKey.prefix(text, collation: field.collation).prefix(IndexKey.maxLength))
                    _ = try backward(cursor, before: Self.successor(prefix), while: { $0.starts(with: prefix) }, body)
                case .range(let range):
                    let lower = range.lower.flatMap(encoded) ?? [0x01]
                    let upper = range.upper.flatMap(encoded)
                    let cutUpper = (upper?.count ?? 0) >= IndexKey.maxLength
                    // Start below the first key past the upper bound: past every key it prefixes when
                    // inclusive (or cut), at the bound itself when exclusive.
                    let end = upper.map { range.upperInclusive || cutUpper ? Self.successor($0) : $0 }
                    let skipLower = range.lower != nil && !range.lowerInclusive && lower.count < IndexKey.maxLength
                    _ = try backward(cursor, before: end ?? nil, while: { key in
                        !key.lexicographicallyPrecedes(lower) && !(skipLower && key.starts(with: lower))
                    }, body)
                }
            }
        }
    }

    /// Walks keys downward from the last key below `end` (nil: from the very last key) while
    /// `inside` holds, each key's values upward; false when `body` asked to stop.
    private func backward(_ cursor: Cursor, before end: [UInt8]?, while inside: ([UInt8]) -> Bool,
                          _ body: ([UInt8], [UInt8]) throws -> Bool) throws -> Bool {
        var more: Bool
        if let end, try cursor.seek(atLeast: end) {
            more = try cursor.previous()
        } else {
            more = try cursor.last()
        }
        let duplicates = database.options.contains(.sortedDuplicates)
        while more {
            let key = cursor.key
            guard inside(key) else { return true }
            if duplicates {
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
            more = try cursor.previous()
        }
        return true
    }

    /// The smallest byte string greater than every string that starts with `prefix`, or nil when
    /// there is none (all 0xFF).
    static func successor(_ prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}
