import StrataText

/// The order by relevance, for `sorted(by: .relevance)`.
public enum RelevanceOrdering: Sendable, Hashable {
    /// Best first (``QueryOrdering/relevance``).
    case relevance
}

extension QueryRequest {
    /// Orders by relevance to the query's `SEARCH` conditions, best first (after any earlier
    /// orderings; later ones break its ties, then the primary key): a record's BM25 score summed
    /// over them. With a limit and nothing else to check, the best are found by the block-max
    /// top-k, which skips documents that cannot enter them. A query without `SEARCH` throws
    /// `.invalidQuery` when it runs.
    ///
    /// ```swift
    /// let best = try tx.query(Post.self).where(.matches(\.body, "lmdb swift")).sorted(by: .relevance).limit(10).all()
    /// ```
    public func sorted(by relevance: RelevanceOrdering) -> Self {
        var copy = self
        copy.query.orderings.append(.relevance)
        return copy
    }

    /// The `SEARCH` conditions of the query on the full-text index holding `field`, and the
    /// field's place in that index; nil when it has none.
    private func highlighter(for field: String) throws -> (TextHighlighter, Int)? {
        guard let context = try resolvedContext() else { return nil }
        var queries: [TextQuery] = []
        var place: (descriptor: FullTextIndexDescriptor, field: Int)?
        for comparison in query.predicate.textSearches {
            let target = try TextSearchTarget(comparison, schema: context.schema)
            guard let index = target.descriptor.fields.firstIndex(of: field), place.map({ $0.descriptor == target.descriptor }) ?? true else { continue }
            place = (target.descriptor, index)
            queries.append(target.query)
        }
        guard let place, !queries.isEmpty else { return nil }
        return (TextHighlighter(query: queries.count == 1 ? queries[0] : .any(queries), tokenizer: place.descriptor.tokenizer), place.field)
    }

    /// `text`, a result's value of `field`, with each span the query's `SEARCH` conditions match
    /// in it between `open` and `close` (phrases only where the whole phrase occurs, nothing under
    /// a `NOT`); unchanged when no `SEARCH` reads that field's full-text index.
    ///
    /// ```swift
    /// request.highlight(post.body, field: "body", open: "<b>", close: "</b>")   // "<b>LMDB</b> pages"
    /// ```
    public func highlight(_ text: String, field: String, open: String, close: String) throws -> String {
        guard let (highlighter, place) = try highlighter(for: field) else { return text }
        return highlighter.highlight(text, field: place, open: open, close: close)
    }

    /// The window of `words` consecutive words of `text` (a result's value of `field`) holding
    /// the most different matched terms, highlighted as ``highlight(_:field:open:close:)`` does,
    /// with `ellipsis` where the text goes on; the first words when nothing matches.
    public func snippet(_ text: String, field: String, words: Int = 12, open: String, close: String, ellipsis: String = "…") throws -> String {
        if let (highlighter, place) = try highlighter(for: field) {
            return highlighter.snippet(text, field: place, words: Swift.max(1, words), open: open, close: close, ellipsis: ellipsis)
        }
        return TextHighlighter(query: .nothing, tokenizer: TextTokenizer())
            .snippet(text, field: 0, words: Swift.max(1, words), open: open, close: close, ellipsis: ellipsis)
    }
}

extension QueryRequest where Root: Record {
    /// Every matching record in order, each with its relevance: its BM25 score summed over the
    /// query's `SEARCH` conditions (0 for a record that matches none, and for every record of a
    /// query without them).
    public func scored() throws -> [(record: Root, score: Double)] {
        guard let context = try resolvedContext() else { return [] }
        let prepared = try preparedWithinLimit(context)
        var read: [String: StoredTextIndex] = [:]
        let scores = try transaction.relevanceScores(of: prepared.predicate, texts: [:], context, read: &read)
        var keysQuery = query
        keysQuery.keysOnly = true
        var keys: [[UInt8]] = []
        try executeKeys(keysQuery) { keys.append($0); return true }
        // The same transaction and query: the same results in the same order.
        return zip(try all(), keys).map { ($0, scores[$1] ?? 0) }
    }
}

extension QueryRequest where Root == StoredRecord {
    /// Every matching record in order, each with its relevance: its BM25 score summed over the
    /// query's `SEARCH` conditions (0 for a record that matches none).
    public func scored() throws -> [(record: StoredRecord, score: Double)] {
        guard let context = try resolvedContext() else { return [] }
        let prepared = try preparedWithinLimit(context)
        var read: [String: StoredTextIndex] = [:]
        let scores = try transaction.relevanceScores(of: prepared.predicate, texts: [:], context, read: &read)
        var found: [(record: StoredRecord, score: Double)] = []
        try execute(query) { match in
            found.append((try StoredRecord(key: match.key, bytes: match.bytes, fields: context.schema.fields, entity: entity), scores[match.key] ?? 0))
            return true
        }
        return found
    }
}

extension ReadTransaction {
    /// The full-text indexes of the entity `name` as its catalog records them (empty for an
    /// entity without any); throws `.notFound` when the store has no such entity.
    public func fullTextIndexes(of name: String) throws -> [FullTextIndexDescription] {
        guard let context = try context(named: name) else {
            throw StrataError(.notFound, "the store has no entity '\(name)'", entity: name)
        }
        return context.schema.fullTextIndexes.map(\.declaration)
    }
}
