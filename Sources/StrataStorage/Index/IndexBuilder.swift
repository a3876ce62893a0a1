import LMDB

/// How far the building of new indexes has come, reported to ``Store/Configuration/indexBuildProgress``.
public struct IndexBuildProgress: Sendable, Equatable {
    /// The entity whose indexes are being built.
    public var entity: String
    /// The indexes being built, by name.
    public var indexes: [String]
    /// Records indexed so far, and in all.
    public var completed: Int, total: Int

    /// Between 0 and 1.
    public var fractionCompleted: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}

extension WriteTransaction {
    /// Brings the built indexes of `type`'s entity in line with the declared ones: builds new ones
    /// from the stored records, empties removed ones, rebuilds changed ones, and records the result
    /// in the catalog. Runs once per entity and transaction.
    ///
    /// Removed indexes are emptied rather than deleted: other transactions of this process may still
    /// hold the database handle, and LMDB closes handles of deleted databases.
    package func migrateIndexes<T: Record>(_ type: T.Type, _ context: EntityContext) throws {
        guard !context.indexesChecked else { return }
        // Before anything of the type's schema is written, and before the flag: a refused write
        // caught inside the transaction is refused again.
        try checkKnownHistory(writing: context.name)
        context.indexesChecked = true
        // Closures, not key path literals: a key path on a generic type is instantiated at run time
        // on every call (`swift_getKeyPath`), a measurable part of a small write transaction.
        let keyIndexes = T.indexes.filter { $0.fullText == nil }, textIndexes = T.fullTextDeclarations
        precondition(Set(keyIndexes.map { $0.name }).count == keyIndexes.count,
                     "\(T.self).indexes declares two indexes with the same name")
        precondition(Set(textIndexes.map { $0.name }).count == textIndexes.count,
                     "\(T.self).indexes declares two full-text indexes with the same name")
        let declared = T.maintainedIndexes
        let descriptors = T.relationships.map { $0.descriptor }
        if context.schema.relationships != descriptors {
            context.schema.relationships = descriptors
            context.needsSaving = true
            relationshipsByTarget = [:]
        }
        store.registerCustomIndexKeys(type, entity: context.name, declared)
        // Defaults first: an index on a defaulted field is built from records that hold it.
        try applyDefaults(T.storedDefaults(), context)
        try migrate(context, to: declared.map { $0.descriptor }) { toBuild in
            // A declared key path must name a stored field (not a computed property, not a property renamed by CodingKeys).
            let known = knownFields(of: context, adding: EntityDescription.probed(type))
            for descriptor in toBuild { try known.check(index: descriptor.fields.map(\.path)) }
            try buildIndexes(toBuild, context)
        }
        try migrateTextIndexes(textIndexes.map(FullTextIndexDescriptor.current), context) { knownFields(of: context, adding: EntityDescription.probed(type)) }
    }

    /// Makes `descriptors` the built indexes of `context`'s entity: empties the built ones not
    /// among them, creates the missing ones empty and has `build` fill those, and records the
    /// result in the catalog. Nothing happens when they are built already.
    package func migrate(_ context: EntityContext, to descriptors: [IndexDescriptor], build: ([IndexDescriptor]) throws -> Void) throws {
        guard descriptors != context.schema.indexes else { return }
        context.indexMaintainer = nil
        for built in context.schema.indexes where !descriptors.contains(built) {
            if let database = context.indexes[built.name] {
                try empty(database, entity: context.name)
            }
            context.indexes[built.name] = nil
            context.schema.indexDatabases[built.name] = nil
            store.configuration.logger.info("dropped index", metadata: ["entity": "\(context.name)", "index": "\(built.name)"])
        }
        let kept = context.schema.indexes.filter(descriptors.contains)
        let toBuild = descriptors.filter { !kept.contains($0) }
        for descriptor in toBuild {
            let name = context.schema.indexDatabase(descriptor.name)
            let database = try openIndexDatabase(name, entity: context.name)
            try empty(database, entity: context.name)   // a leftover of an emptied index
            context.indexes[descriptor.name] = database
        }
        if !toBuild.isEmpty { try build(toBuild) }
        context.schema.indexes = descriptors
        context.indexMaintainer = nil
        context.needsSaving = true
    }

    /// Fills the (empty) indexes `descriptors` from the stored bytes of every record, in one pass,
    /// through the one ``IndexMaintainer``, whoever declared them (a record type, a description,
    /// the tool).
    package func buildIndexes(_ descriptors: [IndexDescriptor], _ context: EntityContext) throws {
        let maintainer = try IndexMaintainer(self, context, only: descriptors)
        try reportingBuild(descriptors.map(\.name), context) { step in
            try forEachStoredRecord(context) { key, bytes in
                try maintainer.checkUnique(bytes, primaryKey: key) { describeStoredKey(key) }
                try maintainer.update(old: nil, new: bytes, primaryKey: key)
                step()
                return true
            }
        }
    }

    /// Runs an index build, reporting progress every 10,000 records and logging the result.
    func reportingBuild(_ names: [String], _ context: EntityContext, _ body: (() -> Void) throws -> Void) throws {
        let total = try recordCount(context)
        let report = store.configuration.indexBuildProgress
        var progress = IndexBuildProgress(entity: context.name, indexes: names, completed: 0, total: total)
        report?(progress)
        try body {
            progress.completed += 1
            if progress.completed % 10_000 == 0 { report?(progress) }
        }
        if progress.completed % 10_000 != 0 { report?(progress) }
        store.configuration.logger.info("built indexes", metadata: [
            "entity": "\(context.name)", "indexes": "\(names.joined(separator: " "))", "records": "\(total)",
        ])
    }
}

extension ReadTransaction {
    /// The record stored under the encoded primary key `storedKey`, or nil.
    package func record<T: Record>(_ type: T.Type, storedKey: [UInt8], _ context: EntityContext) throws -> T? {
        guard let bytes = try storedBytes(forKey: storedKey, context) else { return nil }
        return try decode(type, bytes, context) { describeStoredKey(storedKey, of: type) }
    }
}
