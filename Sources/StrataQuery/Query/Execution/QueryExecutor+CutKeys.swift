extension QueryExecutor {
    /// Calls `body` with each match in the order the access path delivers, until it returns
    /// false: the order of the requested orderings (then primary key) when the plan takes its
    /// order from the access path.
    ///
    /// An index walked for its order is exact except under cut keys: an index key longer than
    /// ``IndexKey/maxLength`` is stored cut, so values that differ only past the cut share one
    /// stored key and come out in primary key order among themselves. Those matches (a run of
    /// one cut key: contiguous in the walk, whichever direction) are collected and re-sorted by
    /// their full values, read from the records, before any is handed on; the caller applies
    /// offset and limit after that. Matches under keys that were not cut pass straight through,
    /// so an index without long keys costs nothing more.
    package func forEachMatchInAccessOrder(_ body: (Match) throws -> Bool) throws {
        guard !plan.accessOrder.isEmpty else {
            return try forEachMatch { match, _, _ in try body(match) }
        }
        var run = CutKeyRun(order: plan.accessOrder, context: context, transaction: transaction)
        var stopped = false
        try forEachMatch { match, _, cutKey in
            if let cutKey, cutKey == run.key {
                try run.append(match)
                return true
            }
            guard try run.flush(body) else { stopped = true; return false }
            guard let cutKey else { return try body(match) }
            run.key = cutKey
            try run.append(match)
            return true
        }
        if !stopped { _ = try run.flush(body) }
    }
}

/// The matches found under one cut index key, waiting to be sorted by their full values.
package struct CutKeyRun {
    /// The stored (cut) index key the matches share; nil when the run is empty.
    package var key: [UInt8]?
    private var rows: [(match: (key: [UInt8], bytes: [UInt8]), sortKey: [QueryValue])] = []
    private let order: ResultOrder
    /// The ordering fields alone, read only from the matches of a run: made for the first match
    /// under a cut key (a walk meets none unless an index holds keys longer than it stores).
    private var selection: FieldSelection?
    private var offsets: [Int] = []
    private let context: EntityContext
    private let transaction: ReadTransaction

    package init(order orderings: [QueryOrdering], context: EntityContext, transaction: ReadTransaction) {
        order = ResultOrder(orderings: orderings)
        self.context = context
        self.transaction = transaction
    }

    /// Adds a match, reading its ordering fields' full values.
    package mutating func append(_ match: (key: [UInt8], bytes: [UInt8])) throws {
        let selection = self.selection ?? FieldSelection(predicate: .constant(true), orderings: order.orderings, fields: context.schema.fields)
        self.selection = selection
        let values: StoredFieldValues
        do {
            values = try selection.values(of: match.bytes, reusing: &offsets)
        } catch {
            var error = StoredFieldValues.corrupt(entity: context.name, cause: error)
            error.key = transaction.describeStoredKey(match.key)
            error.message += " (key \(error.key ?? "?"))"
            throw error
        }
        rows.append((match, order.orderings.map { values.queryValue(at: $0.field) ?? .null }))
    }

    /// Hands the run's matches to `body` sorted by the orderings, then primary key, and empties
    /// the run; false when `body` asked to stop.
    package mutating func flush(_ body: ((key: [UInt8], bytes: [UInt8])) throws -> Bool) throws -> Bool {
        guard !rows.isEmpty else { return true }
        defer {
            rows.removeAll(keepingCapacity: true)
            key = nil
        }
        rows.sort { order.precedes($0, $1) }
        for row in rows {
            guard try body(row.match) else { return false }
        }
        return true
    }
}
