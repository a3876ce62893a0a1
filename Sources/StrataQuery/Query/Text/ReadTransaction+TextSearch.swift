@_spi(Format) import StrataFormat
import StrataText

extension ReadTransaction {
    /// The stored full-text index `target` reads, as this transaction sees it: in a write
    /// transaction, its changes held for the commit are written first (one segment), so a query
    /// finds what the transaction wrote. Nil when the index has no databases yet (no record).
    package func storedTextIndex(_ target: TextSearchTarget, _ context: EntityContext) throws -> StoredTextIndex? {
        if let write = self as? WriteTransaction { try write.writeHeldTextChanges(target.descriptor.name, context) }
        guard let databases = context.textIndexes[target.descriptor.name] else { return nil }
        return try StoredTextIndex(transaction: self, databases: databases, entity: context.name, descriptor: target.descriptor)
    }

    /// The records `target`'s query matches in `index`: their stored primary keys and BM25
    /// scores, ascending by key.
    package func textMatches(_ target: TextSearchTarget, in index: StoredTextIndex?, _ context: EntityContext) throws -> [(key: [UInt8], score: Double)] {
        guard let index else { return [] }
        let results = try searching(target, context) {
            try TextSearch(reader: index, ranking: target.ranking).scored(target.query, source: target.source)
        }
        var found: [(key: [UInt8], score: Double)] = []
        found.reserveCapacity(results.count)
        for result in results {
            guard let key = try index.primaryKey(of: result.document) else { continue }
            found.append((key, result.score))
        }
        return found.sorted { OrderedKey.precedes($0.key, $1.key) }
    }

    /// The `count` best matches of `target`'s query (highest score first, then oldest document),
    /// found by the block-max top-k, which scores only what could enter them.
    package func topTextMatches(_ target: TextSearchTarget, _ count: Int, in index: StoredTextIndex?, _ context: EntityContext) throws -> [(key: [UInt8], score: Double)] {
        guard let index else { return [] }
        let results = try searching(target, context) {
            try TextSearch(reader: index, ranking: target.ranking).top(count, target.query, source: target.source)
        }
        return try results.compactMap { result in try index.primaryKey(of: result.document).map { ($0, result.score) } }
    }

    /// Runs `body`, turning a query's errors into `.invalidQuery` naming the field and damaged
    /// postings into `.incompatibleStore` naming the index.
    package func searching<R>(_ target: TextSearchTarget, _ context: EntityContext, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as TextQueryError {
            throw error.strataError(entity: context.name, field: target.descriptor.fields[target.field])
        } catch let error as PostingsFormatError {
            throw error.strataError(index: target.descriptor.name, entity: context.name, of: "its postings")
        }
    }
}

extension WriteTransaction {
    /// Writes the held changes of the full-text index `name` now, so that a query in this
    /// transaction reads them. Inside an import's per-record savepoint, where held changes cannot
    /// be written, it throws `.invalidQuery`.
    package func writeHeldTextChanges(_ name: String, _ context: EntityContext) throws {
        guard let batch = context.textBatches[name], !batch.changes.isEmpty else { return }
        guard textFlushHolds == 0 else {
            throw StrataError(.invalidQuery, "\(context.name): a full-text query cannot run inside an import's per-record savepoint",
                              entity: context.name)
        }
        try flushTextBatch(name, context)
    }
}

extension ReadTransaction {
    /// The relevance of each record that a `SEARCH` of `predicate` matches: the sum of its BM25
    /// scores over the predicate's `SEARCH` comparisons (in their order), by stored primary key.
    /// The indexes read are noted in `read`.
    package func relevanceScores(of predicate: QueryPredicate, texts: [FieldComparison: TextSearchTarget], _ context: EntityContext,
                         read: inout [String: StoredTextIndex]) throws -> [[UInt8]: Double] {
        var scores: [[UInt8]: Double] = [:]
        var seen = Set<FieldComparison>()
        for comparison in predicate.textSearches where seen.insert(comparison).inserted {
            let target = try texts[comparison] ?? TextSearchTarget(comparison, schema: context.schema)
            let index = try storedTextIndex(target, context)
            if let index { read[target.descriptor.name] = index }
            for match in try textMatches(target, in: index, context) { scores[match.key, default: 0] += match.score }
        }
        return scores
    }
}
