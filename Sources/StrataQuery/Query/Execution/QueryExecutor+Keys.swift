import LMDB

extension QueryExecutor {
    /// True when the access path alone answers the query, so its results are the primary keys it
    /// yields, read without their records: an index scan whose every candidate meets the whole
    /// predicate (``QueryPlan/exactAccess``, nothing left to check) in the order asked for (the
    /// index's own primary key order, merged or one key; an order of indexed values would need
    /// the values of cut keys). A candidate under a cut key (``IndexKey/mayBeTruncated(_:)``) is
    /// still checked against its record.
    package var answersFromKeys: Bool {
        guard exact, case .constant(true) = checked, plan.orderFromAccess, plan.accessOrder.isEmpty,
              case .indexScan = plan.access else { return false }
        return true
    }

    /// How ``countResults()`` found its answer.
    package enum CountSource: Equatable {
        /// The entity's stored record count (no predicate).
        case recordCount
        /// The entries of the index scan, counted key by key (`mdb_cursor_count`).
        case indexEntries
        /// The primary keys of the index scan, one by one (some keys were cut).
        case keys
        /// The records, read and checked.
        case records
    }

    /// The number of results after the plan's offset and limit, with no record read when the
    /// access path answers the query (``answersFromKeys``): the entity's record count without a
    /// predicate, or the entries of the index scan counted per key.
    package func countResults() throws -> (count: Int, source: CountSource) {
        let window = { (count: Int) in max(0, min(count - self.plan.offset, self.plan.limit ?? Int.max)) }
        if exact, case .constant(true) = checked, case .fullScan = plan.access {
            return (window(try transaction.recordCount(context)), .recordCount)
        }
        if answersFromKeys, case .indexScan(let name, let fields, let condition) = plan.access,
           let database = context.indexes[name] {
            let counted = try indexProbe(database, fields, for: condition).countEntries(condition)
            if !counted.sawCutKey { return (window(counted.entries), .indexEntries) }
        }
        var count = 0
        let source: CountSource = answersFromKeys ? .keys : .records
        try forEachResultKey { _ in count += 1; return true }
        return (count, source)
    }

    /// Calls `body` with the stored primary key of each result in order, after `offset`, at most
    /// `limit` times, until it returns false: from the index entries alone when the access path
    /// answers the query (``answersFromKeys``), otherwise from the matching records.
    package func forEachResultKey(_ body: ([UInt8]) throws -> Bool) throws {
        guard answersFromKeys, case .indexScan(let name, let fields, let condition) = plan.access,
              let database = context.indexes[name] else {
            return try forEachResult { try body($0.key) }
        }
        var skipped = 0, delivered = 0
        func deliver(_ key: [UInt8]) throws -> Bool {
            if skipped < plan.offset { skipped += 1; return true }
            if let limit = plan.limit, delivered >= limit { return false }
            delivered += 1
            guard try body(key) else { return false }
            return plan.limit.map { delivered < $0 } ?? true
        }
        let budget = self.budget
        try QueryBudget.run(budget) {
            try transaction.lmdb(entity: context.name) {
                if plan.merge == .primaryKey {
                    var merge = try IndexMerge(transaction: transaction, sources: mergeSources, chunk: mergeChunk)
                    while let key = try merge.next() {
                        try budget?.tick()
                        guard try deliver(key) else { return }
                    }
                    return
                }
                // The whole predicate, for the candidates under cut keys; prepared when the first comes.
                var whole: PreparedPredicate?
                var bytes: [UInt8] = [], offsets: [Int] = []
                try indexProbe(database, fields, for: condition)
                    .walk(condition, reversed: plan.reversed) { indexKey, primaryKey in
                        try budget?.tick()
                        if IndexKey.mayBeTruncated(indexKey) {
                            guard try record(primaryKey, into: &bytes) else { return true }
                            if whole == nil { whole = PreparedPredicate(predicate, selection: selection, texts: texts) }
                            let values = try fieldValues(of: bytes, selection, { primaryKey }, &offsets)
                            guard whole!.evaluate(on: values) else { return true }
                            if let budget, budget.failure != nil { try budget.check() }
                        }
                        return try deliver(primaryKey)
                    }
            }
        }
    }
}
