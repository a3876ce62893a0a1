/// Folded indexes and the folding rules their keys were made with (``Collation/rulesVersion``).
///
/// A folded index whose recorded version is not the current one holds keys that queries would
/// look up under other folded forms, so no transaction uses it: a read transaction leaves it
/// out of the entity's indexes (queries scan instead, `verifyIndexes` reports it), and the first
/// write transaction that uses the entity rebuilds it from the stored records, through the
/// migration that rebuilds changed index declarations (with its progress reports), and records
/// the current version in the catalog.
extension IndexDescriptor {
    /// True when a field of the index is folded and its keys were made by other folding rules.
    var hasStaleFolding: Bool {
        fields.contains { $0.collation != .binary } && foldingVersion != Collation.rulesVersion
    }

    /// The same index with keys made by the current folding rules.
    var withCurrentFolding: IndexDescriptor {
        var copy = self
        copy.foldingVersion = Collation.rulesVersion
        return copy
    }
}

extension ReadTransaction {
    /// Sets aside the folded indexes of a newly loaded entity whose keys were made by other folding
    /// rules; in a write transaction, rebuilds those that can be rebuilt from stored records (a
    /// record type's own migration rebuilds the others, as changed declarations, at its first write).
    func reconcileFolding(_ context: EntityContext) throws {
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
