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
    package var hasStaleFolding: Bool {
        fields.contains { $0.collation != .binary } && foldingVersion != Collation.rulesVersion
    }

    /// The same index with keys made by the current folding rules.
    package var withCurrentFolding: IndexDescriptor {
        var copy = self
        copy.foldingVersion = Collation.rulesVersion
        return copy
    }
}
