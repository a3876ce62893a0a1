extension QueryRequest {
    /// The plan the planner chooses for this query, without running it, estimated for its
    /// constants (a query of a shape planned before may run the same plan without a new estimate).
    public func explain() throws -> QueryPlan {
        guard let context = try resolvedContext() else {
            return QueryPlan(entity: entity, access: .fullScan, reversed: false, residual: query.predicate, sort: query.orderings,
                             orderFromAccess: true, offset: query.offset, limit: query.limit, estimatedRows: 0)
        }
        let prepared = try prepare(context)
        var plan = try QueryPlanner(transaction: transaction, context: context, estimatingEveryPlan: true).plan(prepared.query)
        plan.semiJoins = prepared.joins
        return plan
    }

    /// The number of matching records (after offset and limit); no record is decoded. Without a
    /// predicate it is the stored record count; when an index scan answers the whole predicate
    /// (equality, `IN`, a range or a prefix on indexed fields, compound ones included) it counts
    /// the index's entries without reading records.
    public func count() throws -> Int { try countWithSource().count }

    /// True when at least one record matches (after offset and limit); stops at the first,
    /// reading no record when an index answers the whole predicate.
    public func exists() throws -> Bool {
        // Whether a match is left after `offset` does not depend on their order.
        var query = countQuery
        query.limit = Swift.min(query.limit ?? 1, 1)
        var found = false
        try executeKeys(query) { _ in found = true; return false }
        return found
    }

    /// The plan ``count()`` runs, without running it: the query in any order, for its keys alone,
    /// so that an index scan answering the whole predicate is counted without reading a record
    /// (and nothing is sorted).
    public func explainCount() throws -> QueryPlan {
        guard let context = try resolvedContext() else { return try explain() }
        let prepared = try prepare(context, countQuery)
        var plan = try QueryPlanner(transaction: transaction, context: context, estimatingEveryPlan: true).plan(prepared.query)
        plan.semiJoins = prepared.joins
        return plan
    }

    /// The query as ``count()`` plans it: order cannot matter, keys alone are read.
    private var countQuery: Query<Root> {
        var query = self.query
        query.orderings = []
        query.anyOrder = true
        query.keysOnly = true
        return query
    }

    /// `count()` and how it was found.
    package func countWithSource() throws -> (count: Int, source: QueryExecutor.CountSource, plan: QueryPlan?) {
        guard let context = try resolvedContext() else { return (0, .records, nil) }
        let budget = QueryBudget.make(entity: context.name, timeout: timeLimit, transaction: transaction)
        return try QueryBudget.run(budget) {
            // Orderings are checked as they are for any query, then dropped.
            let query = try prepare(context, self.query).query
            var counted = countQuery
            counted.predicate = query.predicate
            let plan = try QueryPlanner(transaction: transaction, context: context).plan(counted)
            let answer = try QueryExecutor(transaction: transaction, context: context, plan: plan, predicate: query.predicate, timeout: timeLimit)
                .countResults()
            return (answer.count, answer.source, plan)
        }
    }

    /// Runs `query` for its results' stored primary keys alone (no record read when an index
    /// answers the whole predicate), passing each to `body` until it returns false.
    package func executeKeys(_ query: Query<Root>, _ body: ([UInt8]) throws -> Bool) throws {
        guard let context = try resolvedContext() else { return }
        let budget = QueryBudget.make(entity: context.name, timeout: timeLimit, transaction: transaction)
        try QueryBudget.run(budget) {
            let query = try prepare(context, query).query
            let plan = try QueryPlanner(transaction: transaction, context: context).plan(query)
            try QueryExecutor(transaction: transaction, context: context, plan: plan, predicate: query.predicate, timeout: timeLimit)
                .forEachResultKey(body)
        }
    }

    /// Runs `query`, passing each match's stored key and bytes to `body` until it returns false;
    /// `planned` sees the plan before the first match.
    package func execute(_ query: Query<Root>, planned: (QueryPlan) -> Void = { _ in },
                 _ body: (QueryExecutor.Match) throws -> Bool) throws {
        guard let context = try resolvedContext() else { return }
        // One budget for the semi-joins of relationship conditions and the query itself.
        let budget = QueryBudget.make(entity: context.name, timeout: timeLimit, transaction: transaction)
        try QueryBudget.run(budget) {
            try execute(try prepare(context, query).query, context: context, planned: planned, body)
        }
    }

    /// The query with its relationship conditions resolved, their semi-joins within the time limit.
    package func preparedWithinLimit(_ context: EntityContext) throws -> Query<Root> {
        let budget = QueryBudget.make(entity: context.name, timeout: timeLimit, transaction: transaction)
        return try QueryBudget.run(budget) { try prepare(context).query }
    }

    /// Runs a query whose relationship conditions are resolved, on `context`'s entity.
    /// Returns the plan it ran.
    @discardableResult
    package func execute(_ query: Query<Root>, context: EntityContext, planned: (QueryPlan) -> Void = { _ in },
                 _ body: (QueryExecutor.Match) throws -> Bool) throws -> QueryPlan {
        let plan = try QueryPlanner(transaction: transaction, context: context).plan(query)
        planned(plan)
        try QueryExecutor(transaction: transaction, context: context, plan: plan, predicate: query.predicate, timeout: timeLimit)
            .forEachResult(body)
        return plan
    }
}

extension QueryRequest where Root: Record {
    /// Every matching record, in order.
    public func all() throws -> [Root] {
        // The decoded runs are kept and moved into one array at the end: appended one by one,
        // each record would cost a look-up of the array's type here, where `Root` is not known.
        var records = DecodedRecords<Root>()
        try run(query, draining: { pipeline, describe in try pipeline.drain(describeKey: describe, into: &records) })
        return records.moveIntoArray()
    }

    /// Calls `body` with each matching record in order, decoding in batches.
    public func forEach(_ body: (Root) throws -> Void) throws {
        try run(query) { (record: consuming Root) in try body(consume record) }
    }

    /// The first matching record in order, or nil.
    public func first() throws -> Root? { try first(1).first }

    /// The first `count` matching records in order.
    public func first(_ count: Int) throws -> [Root] {
        try limit(Swift.min(count, query.limit ?? count)).all()
    }

    /// The last matching record in order, or nil.
    public func last() throws -> Root? { try last(1).last }

    /// The last `count` matching records, in order.
    public func last(_ count: Int) throws -> [Root] {
        precondition(query.limit == nil && query.offset == 0, "last(_:) counts from the end of all matches; drop limit and offset")
        var reversed = query
        let primaryKey = (try resolvedContext())?.schema.primaryKey ?? transaction.store.primaryKeyName(of: Root.self)
        reversed.orderings = QueryPlanner.significant(query.orderings, primaryKey: primaryKey).map { ordering in
            var flipped = ordering
            flipped.ascending.toggle()
            return flipped
        } + [QueryOrdering(field: [primaryKey], ascending: false)]
        reversed.limit = count
        var records = DecodedRecords<Root>()
        try run(reversed, draining: { pipeline, describe in try pipeline.drain(describeKey: describe, into: &records) })
        return records.moveIntoArray().reversed()
    }

    /// The primary keys of the matching records, in order; no record is decoded.
    public func ids() throws -> [Root.PrimaryKey] {
        var keys: [Root.PrimaryKey] = []
        var query = self.query
        query.keysOnly = true
        try executeKeys(query) { key in
            var position = 0
            keys.append(try Root.PrimaryKey.readOrderedKey(from: key, at: &position))
            return true
        }
        return keys
    }

    /// Runs `query` and passes the results on in order, each moved out of its batch rather than
    /// copied (see ``run(_:draining:)``).
    private func run(_ query: Query<Root>, _ body: (consuming Root) throws -> Void) throws {
        try run(query, draining: { pipeline, describe in try pipeline.drain(describeKey: describe, body) })
    }

    /// Runs `query`, its results decoded while they are found, on the store's workers
    /// (``DecodePipeline``), and calls `drain` with the pipeline (and the function that names a
    /// stored key in its errors) every ``BatchDecoder/batchSize`` results and once at the end,
    /// to take the records decoded so far, in order; a caller that lets them go keeps memory
    /// bounded on any result count. A query whose limit or estimate promises few results decodes
    /// them on this thread.
    private func run(_ query: Query<Root>,
                     draining drain: (DecodePipeline<Root>, _ describeKey: ([UInt8]) -> String) throws -> Void) throws {
        guard let context = try resolvedContext() else { return }
        let pipeline = DecodePipeline<Root>(fields: context.schema.fields, entity: context.name, executor: transaction.store.decodeExecutor)
        // A query that throws stops the pipeline's decoding job.
        defer { pipeline.cancel() }
        let describe = { (key: [UInt8]) in transaction.describeStoredKey(key, of: Root.self) }
        // Looked up once: a generic type's static member costs a type look-up at each use.
        let batchSize = BatchDecoder<Root>.batchSize
        // No more results than the limit, nor than the access path's candidates, as estimated.
        try execute(query, planned: { plan in
            let expected = Swift.min(plan.limit ?? .max, plan.estimatedRows)
            pipeline.expect(expected)
        }) { match in
            if pipeline.append(key: match.key, value: match.bytes) >= batchSize { try drain(pipeline, describe) }
            return true
        }
        try drain(pipeline, describe)
    }
}
