extension QueryExecutor {
    /// The records a text access matches, with their scores, ascending by stored primary key.
    package func textMatches(of access: QueryPlan.TextAccess) throws -> [(key: [UInt8], score: Double)] {
        let target = try TextSearchTarget(access.comparison, schema: context.schema)
        let index = try transaction.storedTextIndex(target, context)
        if let index { textIndexesRead[target.descriptor.name] = index }
        return try transaction.textMatches(target, in: index, context)
    }

    /// The results of a query ordered by relevance alone with a limit, whose text access answers
    /// its whole predicate: the best `offset + limit` documents by the block-max top-k of
    /// StrataText, which scores only the documents that could enter them, then windowed. Ties
    /// are broken by primary key as a sort would: the top-k is widened (doubled) until the
    /// documents it leaves out score below the last one kept. Nil for any other plan.
    package func relevanceTop() throws -> [Match]? {
        guard plan.sort.count == 1, plan.sort[0].isRelevance, let limit = plan.limit, exact, checked == .constant(true),
              case .textSearch(let access) = plan.access, texts.count == 1 else { return nil }
        let wanted = plan.offset + limit
        guard wanted > 0 else { return [] }
        let target = try TextSearchTarget(access.comparison, schema: context.schema)
        let index = try transaction.storedTextIndex(target, context)
        if let index { textIndexesRead[target.descriptor.name] = index }
        var count = wanted + 1
        var best: [(key: [UInt8], score: Double)]
        while true {
            best = try transaction.topTextMatches(target, count, in: index, context)
            if best.count < count || best[count - 1].score < best[wanted - 1].score { break }
            count = count > Int.max / 4 ? Int.max : count * 2
        }
        best.sort { $0.score != $1.score ? $0.score > $1.score : $0.key.lexicographicallyPrecedes($1.key) }
        var matches: [Match] = []
        candidatesRead += Swift.min(best.count, wanted)
        for found in best.prefix(wanted).dropFirst(plan.offset) {
            var bytes: [UInt8] = []
            guard try record(found.key, into: &bytes) else { continue }
            matchesFound += 1
            matches.append((found.key, bytes))
        }
        return matches
    }
}
