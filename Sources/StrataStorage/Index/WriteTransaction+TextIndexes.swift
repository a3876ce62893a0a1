import StrataText

extension FullTextIndexDescriptor {
    /// The descriptor of `declaration` for terms made now: by this process's tokenizer rules
    /// (``TextTokenizer/rulesVersion``) and folding (``Collation/rulesVersion``).
    package static func current(_ declaration: FullTextIndexDescription) -> FullTextIndexDescriptor {
        FullTextIndexDescriptor(declaration, tokenizerVersion: TextTokenizer.rulesVersion)
    }
}

extension WriteTransaction {
    /// Makes `descriptors` the full-text indexes of `context`'s entity: empties the databases of
    /// those recorded and not among them (a changed declaration or other rules' versions count as
    /// a new index), checks the fields of the new ones (`known` is asked only then), creates their
    /// databases empty and fills them from the stored records through the one
    /// ``IndexMaintainer`` (reporting to ``Store/Configuration/indexBuildProgress``), and records
    /// the result in the catalog. Nothing happens when they are
    /// recorded already.
    package func migrateTextIndexes(_ descriptors: [FullTextIndexDescriptor], _ context: EntityContext, known: () -> KnownFields) throws {
        guard descriptors != context.schema.fullTextIndexes else { return }
        let added = descriptors.filter { !context.schema.fullTextIndexes.contains($0) }
        if !added.isEmpty {
            let fields = known()
            for descriptor in added { try fields.check(index: descriptor.fieldPaths) }
        }
        // Held changes of the indexes that stay are written under the schema they were made for.
        try flushTextBatches()
        context.indexMaintainer = nil
        for dropped in context.schema.fullTextIndexes where !descriptors.contains(dropped) {
            if let databases = context.textIndexes[dropped.name] {
                for database in databases.all { try empty(database, entity: context.name) }
            }
            context.textIndexes[dropped.name] = nil
            store.configuration.logger.info("dropped full-text index", metadata: ["entity": "\(context.name)", "index": "\(dropped.name)"])
        }
        for descriptor in added {
            let databases = try openTextIndexDatabases(descriptor.name, of: context.schema)
            for database in databases.all { try empty(database, entity: context.name) }   // a leftover of an emptied index
            context.textIndexes[descriptor.name] = databases
        }
        context.schema.fullTextIndexes = descriptors
        context.needsSaving = true
        if !added.isEmpty {
            let maintainer = try IndexMaintainer(self, context, only: [], text: added)
            try reportingBuild(added.map(\.name), context) { step in
                try forEachStoredRecord(context) { key, bytes in
                    try maintainer.update(old: nil, new: bytes, primaryKey: key)
                    step()
                    return true
                }
            }
        }
        context.indexMaintainer = nil
    }
}
