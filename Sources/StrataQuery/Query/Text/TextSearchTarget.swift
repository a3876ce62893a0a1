import StrataText

/// A `SEARCH` comparison (`body SEARCH "lmdb swift"`) resolved against its entity's full-text
/// indexes: the first index that holds the field, the field's place in it, and the query parsed
/// by the index's tokenizer, its unscoped words searching that field (`title:` scopes inside the
/// query name other fields of the same index).
package struct TextSearchTarget: Sendable, Hashable {
    package let descriptor: FullTextIndexDescriptor
    /// The field's place among the index's fields.
    package let field: Int
    package let query: TextQuery
    /// The query's text.
    package let source: String

    /// The target of `comparison` on `schema`'s entity; a typed `.invalidQuery` error names the
    /// entity and field when the field is in no full-text index, the value is not a string, the
    /// comparison has options other than `[t]` (typo tolerance) or a quantifier, or the query text does not parse (with its column).
    package init(_ comparison: FieldComparison, schema: EntitySchema) throws(StrataError) {
        let entity = schema.name, name = comparison.fieldName
        guard let descriptor = schema.fullTextIndexes.first(where: { $0.fields.contains(name) }),
              let field = descriptor.fields.firstIndex(of: name) else {
            let indexed = schema.fullTextIndexes.flatMap(\.fields)
            throw StrataError(.invalidQuery, "\(entity).\(name) is in no full-text index, which SEARCH needs"
                              + (indexed.isEmpty ? "; declare one with .fullText(…)" : "; full-text fields: \(indexed.joined(separator: ", "))"),
                              entity: entity, field: name)
        }
        guard comparison.options.subtracting(.typoTolerant).isEmpty, comparison.quantifier == nil else {
            throw StrataError(.invalidQuery, "\(entity).\(name) SEARCH takes no [c]/[d] options (only [t]) or ANY/ALL/NONE: "
                              + "the full-text index folds case and diacritics itself", entity: entity, field: name)
        }
        guard case .string(let text) = comparison.value else {
            throw StrataError(.invalidQuery, "\(entity).\(name) SEARCH needs a query string, not \(comparison.value.explained)",
                              entity: entity, field: name)
        }
        let parser = TextQueryParser(fields: descriptor.fields, tokenizer: descriptor.tokenizer,
                                     typoTolerance: comparison.options.contains(.typoTolerant))
        do {
            query = try parser.parse(text).scoped(to: 1 << UInt64(field))
        } catch {
            throw error.strataError(entity: entity, field: name)
        }
        self.descriptor = descriptor
        self.field = field
        source = text
    }

    /// The relevance of this index's documents.
    package var ranking: BM25 { BM25(fieldWeights: descriptor.weights) }
}

extension TextSearchTarget {
    /// The target of each `SEARCH` comparison of `predicate` on `schema`'s entity: what a
    /// predicate checked on stored records needs (``FieldSelection``, ``PreparedPredicate``).
    package static func targets(of predicate: QueryPredicate, schema: EntitySchema) throws(StrataError) -> [FieldComparison: TextSearchTarget] {
        var texts: [FieldComparison: TextSearchTarget] = [:]
        for comparison in predicate.textSearches where texts[comparison] == nil {
            texts[comparison] = try TextSearchTarget(comparison, schema: schema)
        }
        return texts
    }
}

extension QueryPredicate {
    /// The `SEARCH` comparisons of the predicate, in order.
    package var textSearches: [FieldComparison] {
        var found: [FieldComparison] = []
        forEachComparison { if $0.op == .search { found.append($0) } }
        return found
    }
}
