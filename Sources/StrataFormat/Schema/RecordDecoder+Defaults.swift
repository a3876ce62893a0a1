extension RecordDecoder {
    /// Decodes `type` from `bytes`; `key` is the record's primary key as text, used only in error messages.
    ///
    /// A record that lacks a field `type` requires is read with the type's default for it
    /// (``Record/defaults``), when it declares one: only after the first reading failed, so
    /// records that hold every field cost nothing more.
    package func decode<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], fields: FieldTable, entity: String, key: String
    ) throws(StrataError) -> T {
        do {
            return try decodeOnce(type, from: bytes, fields: fields, entity: entity, key: key)
        } catch where error.code == .missingField {
            guard let record = T.self as? any Record.Type,
                  let (filled, table) = Self.fillingDefaults(of: record, in: bytes, fields: fields) else { throw error }
            return try decodeOnce(type, from: filled, fields: table, entity: entity, key: key)
        }
    }

    /// `bytes` with the defaults of `type` added for the fields it lacks, and `fields` with ids for
    /// defaulted names it has never stored; nil when there is nothing to add (or the bytes are not
    /// a record's map, which the first reading reported).
    static func fillingDefaults<R: Record>(of type: R.Type, in bytes: [UInt8], fields: FieldTable) -> ([UInt8], FieldTable)? {
        guard let defaults = try? R.storedDefaults(), !defaults.isEmpty else { return nil }
        return fillingDefaults(defaults, in: bytes, fields: fields)
    }
}
