import StrataText

extension QueryPlanner {
    /// The terms of a prefix counted at most to estimate its matches; beyond them, a third of
    /// the records is assumed.
    package static var prefixProbeLimit: Int { 64 }

    /// The access path of a `SEARCH` comparison: its full-text index, estimated from the terms'
    /// document frequencies (a term: its documents; all of several: the fewest; any: the sum; a
    /// phrase or `NEAR`: its rarest term; `a NOT b`: a's; a prefix: the sum over the terms it
    /// stands for). Exact: every record it yields matches. None when the index is not weighed.
    package func textPaths(for comparison: FieldComparison, total: Int) throws -> [Candidate] {
        let target = try TextSearchTarget(comparison, schema: context.schema)
        guard weighed?.contains(QueryPlan.Access.textIndexName(target.descriptor.name)) ?? true else { return [] }
        let index = try transaction.storedTextIndex(target, context)
        var frequencies: [TextQueryTerm: Int] = [:]
        func documents(_ term: TextQueryTerm) throws -> Int {
            if let known = frequencies[term] { return known }
            var count = 0
            if let index {
                if term.isPrefix {
                    var seen = 0
                    let prefix = Array(term.text.utf8)
                    try index.walkTerms(from: prefix) { candidate in
                        guard candidate.starts(with: prefix) else { return .stop }
                        seen += 1
                        guard seen <= Self.prefixProbeLimit else { return .stop }
                        count += try index.postingCount(of: String(decoding: candidate, as: UTF8.self))
                        return .next
                    }
                    if seen > Self.prefixProbeLimit { count = max(count, total / 3) }
                } else {
                    count = try index.postingCount(of: term.text)
                }
            }
            frequencies[term] = min(count, total)
            return min(count, total)
        }
        func estimate(_ query: TextQuery) throws -> Int {
            switch query {
            case .match(let match): return try match.terms.map(documents).min() ?? 0
            case .near(let matches, _): return try matches.map { try estimate(.match($0)) }.min() ?? 0
            case .all(let queries): return try queries.map(estimate).min() ?? 0
            case .any(let queries): return min(total, try queries.map(estimate).reduce(0, +))
            case .excluding(let positive, _): return try estimate(positive)
            case .nothing: return 0
            }
        }
        let rows = try transaction.searching(target, context) { try estimate(target.query) }
        var terms: [QueryPlan.TermFrequency] = []
        for term in target.query.terms {
            let shown = term.text + (term.isPrefix ? "*" : "") + (term.typos > 0 ? "~\(term.typos)" : "")
            terms.append(QueryPlan.TermFrequency(term: shown, documents: try documents(term)))
        }
        // The postings of every term are read, then each match's record.
        let postings = terms.reduce(0) { $0 + $1.documents }
        let access = QueryPlan.TextAccess(comparison: comparison, index: target.descriptor.name, terms: terms)
        return [Candidate(access: .textSearch(access), rows: rows,
                          cost: Double(postings) * Self.entryCost + Double(rows) * Self.lookupCost,
                          used: [], ordered: nil, exact: true)]
    }
}

extension QueryPlan.Access {
    /// The name a full-text index goes by among the indexes a plan reads (apart from the
    /// entity's other indexes, whose names it may share).
    package static func textIndexName(_ index: String) -> String { "text:" + index }
}
