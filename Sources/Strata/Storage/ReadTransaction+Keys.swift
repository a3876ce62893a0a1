/// Primary keys as stored: their kind and their text in messages.
extension ReadTransaction {
    /// The kind of `context`'s primary key values: as the catalog records it, or, for entities
    /// saved before it was recorded, as the first stored key's tag shows (`.other` when empty).
    func primaryKeyKind(of context: EntityContext) throws -> ValueKind {
        if let kind = context.schema.primaryKeyKind ?? context.observedKeyKind { return kind }
        let first = try firstRecordKey(context)
        let kind = first.flatMap(OrderedKey.kind(of:)) ?? .other
        context.observedKeyKind = kind
        return kind
    }

    /// A stored primary key as text for messages: its value, or its bytes in hex when they do not
    /// decode.
    func describeStoredKey(_ bytes: [UInt8]) -> String {
        var position = 0
        guard let value = try? OrderedKey.queryValue(from: bytes, at: &position), position == bytes.count else { return bytes.hex }
        return value.plainDescription
    }
}
