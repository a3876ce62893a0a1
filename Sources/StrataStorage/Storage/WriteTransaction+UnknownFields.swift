@_spi(Format) import StrataFormat

/// Typed writes keep what their type does not know: a stored record's values of fields that a
/// newer type, an import or a migration (``WriteTransaction/addField(_:to:default:)``) gave the
/// entity survive an upsert or update by a type without them, as an import keeps the stored
/// fields its description lacks. Removed fields (``WriteTransaction/removeField(_:from:)``) are
/// not kept: typed writes drop their bytes.
extension WriteTransaction {
    /// The ids of the live stored fields of `context`'s entity that `type` does not have, by its
    /// `Decodable` conformance (probed once per type); empty when it has them all or cannot be
    /// probed (it then writes its fields alone, as before). Worked out once per field table.
    package func fieldsUnknown<T: Record>(to type: T.Type, _ context: EntityContext) -> [Int] {
        let fields = context.decoding.fields
        let id = ObjectIdentifier(type)
        if let cached = context.unknownFields, cached.type == id, cached.fields == fields { return cached.ids }
        var ids: [Int] = []
        if let description = EntityDescription.probed(type) {
            let names = Set(description.fields.map(\.name))
            ids = fields.ids.compactMap { name, id in FieldTable.isRemoved(name) || names.contains(name) ? nil : id }.sorted()
        }
        context.unknownFields = (id, fields, ids)
        return ids
    }

    /// `bytes` (a record as its type encoded it) with the values that the stored record `stored`
    /// holds for the fields `ids`, after its own.
    package func keeping(_ ids: [Int], of stored: [UInt8], in bytes: [UInt8], _ context: EntityContext,
                 describeKey: () -> String) throws -> [UInt8] {
        let reader = CBORReader(bytes: stored)
        let kept: [(id: Int, value: Range<Int>)]
        do {
            var cursor = try RecordCursor(reader)
            kept = try cursor.entries(in: reader).filter { ids.contains($0.id) }
        } catch {
            let key = describeKey()
            throw StrataError(.corruptRecord, "\(context.name): the stored record with key \(key) is not a valid CBOR map",
                              entity: context.name, key: key, cause: error)
        }
        guard !kept.isEmpty else { return bytes }
        return try RecordCursor.rebuild(bytes) { entries, append in
            for entry in entries { append(entry.id, bytes[entry.value]) }
            for entry in kept where !entries.contains(where: { $0.id == entry.id }) { append(entry.id, stored[entry.value]) }
        }
    }
}
