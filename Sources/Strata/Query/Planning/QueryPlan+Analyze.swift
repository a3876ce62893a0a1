import Foundation

extension QueryRequest {
    /// Runs the query's plan and returns it with its steps' actual rows and times
    /// (`strata explain --analyze`).
    ///
    /// Each stage is run on its own, from the start: the access path alone (every candidate it
    /// yields, unfiltered), then with the filter, then with the order (a `Sort`, or a `TopK` of
    /// offset + limit), then whole (offset and limit). A step's `seconds` is the time of the run
    /// that ends with it, so it includes the steps before it; `Offset` and `Limit` are the whole
    /// run's (an offset passes on what the limit keeps). The semi-joins' actual rows are the keys
    /// they produced. Nothing is decoded.
    public func analyze() throws -> (plan: QueryPlan, steps: [QueryPlan.Step]) {
        let plan = try explain()
        var steps = plan.steps
        guard let context = try resolvedContext() else { return (plan, steps) }
        let prepared = try prepare(context).query
        /// Rows and seconds of running `stage` with `predicate`.
        func measure(_ stage: QueryPlan, _ predicate: QueryPredicate) throws -> (Int, Double) {
            let started = DispatchTime.now()
            var rows = 0
            try QueryExecutor(transaction: transaction, context: context, plan: stage, predicate: predicate, timeout: timeLimit)
                .forEachResult { _ in rows += 1; return true }
            return (rows, Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
        }
        var unordered = plan
        unordered.sort = []
        unordered.orderFromAccess = true
        unordered.offset = 0
        unordered.limit = nil
        var accessOnly = unordered
        accessOnly.residual = .constant(true)
        accessOnly.exactAccess = false
        let access = try measure(accessOnly, .constant(true))
        let filtered = plan.residual == .constant(true) ? access : try measure(unordered, prepared.predicate)
        let whole = try measure(plan, prepared.predicate)
        // The order step alone: the sort, or the top offset + limit, before the offset applies.
        var ordered = plan
        ordered.offset = 0
        ordered.limit = plan.limit.map { plan.offset + $0 }
        let sorted = plan.orderFromAccess || plan.offset == 0 ? whole : try measure(ordered, prepared.predicate)
        for index in steps.indices {
            switch steps[index].operation {
            case "SemiJoin":
                steps[index].actualRows = steps[index].estimatedRows
            case "Filter":
                (steps[index].actualRows, steps[index].seconds) = filtered
            case "Sort", "TopK":
                (steps[index].actualRows, steps[index].seconds) = sorted
            case "Offset", "Limit":
                (steps[index].actualRows, steps[index].seconds) = whole
            default:
                (steps[index].actualRows, steps[index].seconds) = access
            }
        }
        return (plan, steps)
    }
}
