import Logging

extension ReadTransaction {
    /// Sets aside the folded indexes of a newly loaded entity whose keys were made by other folding
    /// rules; in a write transaction, rebuilds those that can be rebuilt from stored records (a
    /// record type's own migration rebuilds the others, as changed declarations, at its first write).
    package func reconcileFolding(_ context: EntityContext) throws {
        guard context.schema.indexes.contains(where: \.hasStaleFolding) else { return }
        for descriptor in context.schema.indexes where descriptor.hasStaleFolding {
            context.indexes[descriptor.name] = nil
        }
        guard let write = self as? WriteTransaction else { return }
        let current = context.schema.indexes.map { descriptor in
            descriptor.hasStaleFolding && descriptor.hasStandardKeys ? descriptor.withCurrentFolding : descriptor
        }
        guard current != context.schema.indexes else { return }
        store.configuration.logger.info("rebuilding indexes folded by older rules", metadata: [
            "entity": "\(context.name)", "rulesVersion": "\(Collation.rulesVersion)",
        ])
        try write.migrate(context, to: current) { toBuild in try write.buildIndexes(toBuild, context) }
    }
}
