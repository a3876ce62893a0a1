import Foundation

extension QueryRequest {
    /// Runs the query's plan and returns it with its steps' actual rows and times
    /// (`strata explain --analyze`).
    ///
    /// The actual rows are those of one run of the whole plan: the candidates its access path
    /// yielded, the matches its filter kept, what the order step kept (a `Sort`: every match; a
    /// `TopK`: the best offset + limit), and what the offset and limit passed on. A plan that
    /// takes its order from the access path stops reading where the limit is met, and its steps
    /// say so. Times: each stage of a plan that sorts is also run on its own, from the start (the
    /// access path alone, then with the filter, then with the order), and a step's `seconds` is
    /// the time of the run that ends with it, so it includes the steps before it; the steps of a
    /// plan that streams in the access path's order ran interleaved, and each has the whole run's
    /// time, as do `Offset` and `Limit`. The semi-joins' actual rows are the keys they produced.
    /// Nothing is decoded.
    public func analyze() throws -> (plan: QueryPlan, steps: [QueryPlan.Step]) {
        let plan = try explain()
        var steps = plan.steps
        guard let context = try resolvedContext() else { return (plan, steps) }
        let prepared = try prepare(context).query
        /// Rows, seconds, candidates read and matches found of running `stage` with `predicate`.
        var postings: [String: Int] = [:]
        func measure(_ stage: QueryPlan, _ predicate: QueryPredicate) throws -> (rows: Int, seconds: Double, candidates: Int, matches: Int) {
            let started = DispatchTime.now()
            var rows = 0
            let executor = try QueryExecutor(transaction: transaction, context: context, plan: stage, predicate: predicate, timeout: timeLimit)
            try executor.forEachResult { _ in rows += 1; return true }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            if stage == plan { postings = executor.textIndexesRead.mapValues(\.blocksRead) }
            return (rows, seconds, executor.candidatesRead, executor.matchesFound)
        }
        let whole = try measure(plan, prepared.predicate)
        var access = (whole.candidates, whole.seconds), filtered = (whole.matches, whole.seconds)
        var sorted = (plan.limit.map { Swift.min(whole.matches, plan.offset + $0) } ?? whole.matches, whole.seconds)
        if !plan.orderFromAccess {
            var unordered = plan
            unordered.sort = []
            unordered.orderFromAccess = true
            unordered.offset = 0
            unordered.limit = nil
            var accessOnly = unordered
            accessOnly.residual = .constant(true)
            accessOnly.exactAccess = false
            access.1 = try measure(accessOnly, .constant(true)).seconds
            filtered.1 = plan.residual == .constant(true) ? access.1 : try measure(unordered, prepared.predicate).seconds
            // The order step alone: the sort, or the top offset + limit, before the offset applies.
            var ordered = plan
            ordered.offset = 0
            ordered.limit = plan.limit.map { plan.offset + $0 }
            if plan.offset > 0 { sorted.1 = try measure(ordered, prepared.predicate).seconds }
        }
        for index in steps.indices {
            switch steps[index].operation {
            case "SemiJoin":
                steps[index].actualRows = steps[index].estimatedRows
            case "Filter":
                (steps[index].actualRows, steps[index].seconds) = filtered
            case "Sort", "TopK":
                (steps[index].actualRows, steps[index].seconds) = sorted
            case "Offset", "Limit":
                (steps[index].actualRows, steps[index].seconds) = (whole.rows, whole.seconds)
            default:
                (steps[index].actualRows, steps[index].seconds) = access
            }
        }
        // A text search's step, the plan's own or a part of an intersection or a union.
        func notePostings(_ step: inout QueryPlan.Step) {
            if step.operation == "TextSearch", let index = step.index { step.postingsRead = postings[index] ?? 0 }
            for child in step.children.indices { notePostings(&step.children[child]) }
        }
        for index in steps.indices { notePostings(&steps[index]) }
        return (plan, steps)
    }
}
