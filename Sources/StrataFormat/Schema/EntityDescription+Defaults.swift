extension EntityDescription {
    /// The stored bytes of the fields' defaults (``FieldDescription/defaultValue``) by field name,
    /// each converted to its field's type as the importer converts a value. Throws `.invalidValue`
    /// for a default of an optional field (a nil is not stored, so it could not be told from a
    /// missing value), one that does not fit its field, or one larger than ``maximumDefaultSize``.
    package func storedDefaults() throws(StrataError) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        guard fields.contains(where: { $0.defaultValue != nil }) else { return result }
        let mapping = KeyMapping(fields: fields)
        for (index, field) in fields.enumerated() {
            guard let value = field.defaultValue else { continue }
            guard !field.isOptional else {
                throw StrataError(.invalidValue,
                    "entity description '\(name)': the optional field '\(field.name)' has a default; a nil is not stored, so only a non-optional field can have one",
                    entity: name, field: field.name)
            }
            let bytes = try Self.storedValue(value, of: field, in: name, owner: (mapping, index))
            try Self.checkDefaultSize(bytes, entity: name, field: field.name)
            result[field.name] = bytes
        }
        return result
    }

    /// `value` converted to `field`'s type and written as stored value bytes; `.invalidValue`
    /// naming the entity and the field when it does not fit.
    package static func storedValue(_ value: JSONValue, of field: FieldDescription, in entity: String,
                            owner: (mapping: KeyMapping, index: Int)? = nil) throws(StrataError) -> [UInt8] {
        var writer = CBORWriter(capacity: 16)
        do {
            // The owner's mapping serves only nested objects: a field without any needs none built.
            let owner = owner ?? (KeyMapping(fields: field.type.holdsObjects ? [field] : []), 0)
            try ValueConverter().write(value, as: field.type, dateFormat: field.dateFormat, path: field.name, into: &writer,
                                       owner: owner)
        } catch let failure as ConversionFailure {
            throw StrataError(.invalidValue, "\(entity): the value for the field '\(field.name)' \(failure.message)",
                              entity: entity, field: field.name)
        } catch {
            throw StrataError(.invalidValue, "\(entity): the value for the field '\(field.name)': \(error)",
                              entity: entity, field: field.name, cause: error)
        }
        return writer.bytes
    }
}

private extension FieldType {
    /// Whether values of this type hold objects, directly or in arrays at any depth.
    var holdsObjects: Bool {
        switch self {
        case .object: true
        case .array(let element): element.holdsObjects
        default: false
        }
    }
}
