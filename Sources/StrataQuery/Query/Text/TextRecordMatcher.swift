import StrataText

/// Whether one record meets a `SEARCH` comparison, for a filter (the comparison is not the plan's
/// access path): the record's texts of the index's fields indexed alone, by the index's
/// tokenizer, in an ``InMemoryTextIndex``, and the same query run over it by the same
/// ``TextSearch``. Whether a document matches depends on it alone, so this agrees with the
/// stored index.
package struct TextRecordMatcher: Sendable {
    package let target: TextSearchTarget

    /// True when the record of `values` matches the query.
    package func matches(_ values: some FieldValues) -> Bool {
        let descriptor = target.descriptor
        let index = InMemoryTextIndex(fieldCount: descriptor.fields.count, tokenizer: descriptor.tokenizer)
        index.add(descriptor.fieldPaths.map { path in
            if case .string(let text)? = values.queryValue(at: path) { return text }
            return ""
        })
        // The one document cannot hold more terms than a query may expand to; an error matches nothing.
        return (try? TextSearch(reader: index, ranking: target.ranking).matches(target.query, source: target.source).isEmpty == false) ?? false
    }
}
