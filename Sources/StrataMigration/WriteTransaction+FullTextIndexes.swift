extension WriteTransaction {
    /// Builds a new full-text index on entity `name` from its stored records, in this transaction,
    /// and maintains it from then on, as if the record type or schema had declared it
    /// (`.fullText(…)`, `"fullText"`): `SEARCH` and relevance order then use it. Building reports
    /// to ``Store/Configuration/indexBuildProgress``.
    ///
    /// Throws `.unknownField` for a field the entity does not have, `.invalidValue` for a field
    /// that is not text, a declaration ``FullTextIndexDescription/validate(entity:)`` refuses, or
    /// a full-text index of that name that exists, and `.notFound` for an unknown entity; nothing
    /// is built then. As with ``addIndex(_:toEntity:)``, a record type that does not declare the
    /// index drops it on its next write.
    public func addFullTextIndex(_ index: FullTextIndexDescription, toEntity name: String) throws {
        let context = try existingContext(named: name)
        var description = try entityDescription(named: name, sampleLimit: StoredFieldSample.lookupRecords)
        description.indexes = []
        description.relationships = []
        description.fullTextIndexes = [index]
        try description.validate()
        guard !context.schema.fullTextIndexes.contains(where: { $0.name == index.name }) else {
            throw StrataError(.invalidValue, "\(name) already has the full-text index '\(index.name)'", entity: name, field: index.name)
        }
        try migrateTextIndexes(context.schema.fullTextIndexes + [.current(index)], context) { knownFields(of: context) }
        if var stored = context.schema.description {
            stored.fullTextIndexes.append(index)
            context.schema.description = stored
        }
    }

    /// Drops the full-text index named `index` (its fields joined by commas unless it was given a
    /// name) from entity `name`: its databases are emptied in
    /// this transaction, and a `SEARCH` on its fields then throws `.invalidQuery`, as on fields in
    /// no full-text index. Throws `.notFound` when the entity has no such full-text index. A
    /// record type that declares the index builds it again on its next write.
    public func dropFullTextIndex(named index: String, fromEntity name: String) throws {
        let context = try existingContext(named: name)
        let indexes = context.schema.fullTextIndexes
        guard indexes.contains(where: { $0.name == index }) else {
            throw StrataError(.notFound, "\(name) has no full-text index '\(index)'; it has "
                + (indexes.isEmpty ? "none" : indexes.map { "'\($0.name)'" }.joined(separator: ", ")),
                entity: name, field: index)
        }
        try migrateTextIndexes(indexes.filter { $0.name != index }, context) { knownFields(of: context) }
        if var stored = context.schema.description {
            stored.fullTextIndexes.removeAll { $0.name == index }
            context.schema.description = stored
        }
    }
}
