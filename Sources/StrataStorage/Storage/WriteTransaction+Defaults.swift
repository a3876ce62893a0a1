extension WriteTransaction {
    /// Records `defaults` (stored value bytes by field name) in the catalog of `context`'s entity
    /// and writes each new or changed one into the records that lack the field, through the
    /// record writer, so that indexes, queries and observers see it. Defaults already recorded
    /// with the same bytes cost nothing; a default no longer declared stays recorded (records
    /// already hold it). A default larger than ``EntityDescription/maximumDefaultSize`` is refused
    /// with `.invalidValue` before anything is written.
    ///
    /// The one way defaults reach a store: a record type's (``Record/defaults``) at its first
    /// write, a description's `"default"` at its import, and ``addField(_:to:default:)``. Once
    /// recorded, the record writer adds them to every later write that lacks their fields
    /// (``writeRecord(_:forKey:_:replacing:prior:describeKey:)``).
    package func applyDefaults(_ defaults: [String: [UInt8]], _ context: EntityContext) throws {
        let changed = defaults.filter { context.schema.defaults[$0.key] != $0.value }
        guard !changed.isEmpty else { return }
        for (name, bytes) in changed { try EntityDescription.checkDefaultSize(bytes, entity: context.name, field: name) }
        for name in changed.keys.sorted() { context.schema.fields.assign(name) }
        context.schema.defaults.merge(changed) { $1 }
        context.needsSaving = true
        context.indexMaintainer = nil
        let fields = context.schema.fields
        try rewriteRecords(context) { _, bytes in
            RecordDecoder.fillingDefaults(changed, in: bytes, fields: fields)?.0
        }
        store.configuration.logger.info("recorded defaults", metadata: [
            "entity": "\(context.name)", "fields": "\(changed.keys.sorted().joined(separator: " "))",
        ])
    }
}
