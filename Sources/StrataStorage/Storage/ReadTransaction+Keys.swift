@_spi(Format) import StrataFormat

/// Primary keys as stored: their kind, their value, their text in messages, and the stored key of
/// a value given loosely (as a command line gives it).
///
/// A single-field key is the order-preserving key of its value. A compound key (an entity
/// described with ``EntityDescription/primaryKeyFields`` of several fields) is the keys of its
/// fields' values one after the other, as a compound index keys its entries; its value is the
/// `.list` of the fields' values, and messages write it `(DE, 2021)`.
extension ReadTransaction {
    /// The kind of `context`'s primary key values: as the catalog records it, or, for entities
    /// saved before it was recorded, as the first stored key's tag shows (`.other` when empty).
    /// `.other` for a compound key: each field has its own kind (``primaryKeyFieldKinds(of:)``).
    package func primaryKeyKind(of context: EntityContext) throws -> ValueKind {
        if let kind = context.schema.primaryKeyKind ?? context.observedKeyKind { return kind }
        let first = try firstRecordKey(context)
        let kind = first.flatMap(OrderedKey.kind(of:)) ?? .other
        context.observedKeyKind = kind
        return kind
    }

    /// The fields of a compound primary key with the kind of each, in key order; nil for a key of
    /// one field.
    package func primaryKeyFieldKinds(of context: EntityContext) -> [(name: String, kind: ValueKind)]? {
        let names = context.schema.primaryKeyFields
        guard names.count > 1 else { return nil }
        return names.map { name in (name, context.schema.description?.field(name).map { ValueKind($0.type) } ?? .other) }
    }

    /// A stored primary key as text for messages: its value (a compound key's values in
    /// parentheses), or its bytes in hex when they do not decode.
    package func describeStoredKey(_ bytes: [UInt8]) -> String {
        guard let value = try? OrderedKey.primaryKeyValue(from: bytes) else { return bytes.hex }
        return value.keyDescription
    }

    /// The stored key of a primary key value given loosely (as a command line gives it): text
    /// converted to the key's kind (`"42"` for an integer key); for a compound key, a `.list` of
    /// one value per field, each converted to its field's kind.
    ///
    /// Throws `.invalidValue` naming the entity and the field when a value does not fit.
    package func storedPrimaryKey(_ value: QueryValue, _ context: EntityContext) throws -> [UInt8] {
        guard let fields = primaryKeyFieldKinds(of: context) else {
            if case .list = value {
                throw StrataError(.invalidValue, "\(context.name): the primary key '\(context.schema.primaryKey)' is one field; "
                    + "give one value, not \(value.keyDescription)", entity: context.name, field: context.schema.primaryKey, key: value.keyDescription)
            }
            return try storedKeyPart(value, kind: try primaryKeyKind(of: context), field: context.schema.primaryKey, context)
        }
        let names = "(" + fields.map(\.name).joined(separator: ", ") + ")"
        guard case .list(let parts) = value, parts.count == fields.count else {
            throw StrataError(.invalidValue, "\(context.name): the primary key \(names) takes \(fields.count) values, not '\(value.keyDescription)'",
                              entity: context.name, field: context.schema.primaryKey, key: value.keyDescription)
        }
        var key: [UInt8] = []
        for (part, field) in zip(parts, fields) { try appendStoredKeyPart(part, kind: field.kind, field: field.name, context, to: &key) }
        return key
    }

    /// The stored key of one value of a field of kind `kind`.
    private func storedKeyPart(_ value: QueryValue, kind: ValueKind, field: String, _ context: EntityContext) throws -> [UInt8] {
        var key: [UInt8] = []
        try appendStoredKeyPart(value, kind: kind, field: field, context, to: &key)
        return key
    }

    /// Appends the stored key of one value of a field of kind `kind` (``PrimaryKeyEncoder``) to `key`.
    private func appendStoredKeyPart(_ value: QueryValue, kind: ValueKind, field: String, _ context: EntityContext,
                                     to key: inout [UInt8]) throws {
        let converted = value.converted(toKind: kind) ?? value
        guard kind == .other || kind.accepts(converted), PrimaryKeyEncoder.append(converted, kind: kind, to: &key) else {
            let what = context.schema.primaryKeyFields.count > 1 ? "value of the primary key field '\(field)'" : "primary key"
            throw StrataError(.invalidValue, "\(context.name): '\(value.plainDescription)' is not a valid \(kind.rawValue) \(what)",
                              entity: context.name, field: field, key: value.plainDescription)
        }
    }
}

extension QueryValue {
    /// A primary key value as text for messages: text without quotes, dates in ISO 8601, a
    /// compound key's values in parentheses (`(DE, 2021)`).
    public var keyDescription: String {
        if case .list(let parts) = self { return "(" + parts.map(\.keyDescription).joined(separator: ", ") + ")" }
        return plainDescription
    }
}
