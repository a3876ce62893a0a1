/// One field's value as the record codec stores it inside a record: the CBOR item that follows
/// the field's id in the record's map. Defaults (``FieldDefault``), backfills and type changes
/// encode and decode single values through it, so a value written here is byte for byte what the
/// value would be in a record the type encodes.
///
/// It wraps the value in a one-field record (`{1: value}`) and runs the one record codec over it;
/// no second value encoder exists.
package enum SingleFieldCoding {
    private struct Key: CodingKey {
        var stringValue: String { "value" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) {}
        init?(intValue: Int) { nil }
    }

    private struct Wrapper<Value: Encodable>: Encodable {
        let value: Value
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: Key())
        }
    }

    private struct Unwrapper<Value: Decodable>: Decodable {
        let value: Value
        init(from decoder: any Decoder) throws {
            value = try decoder.container(keyedBy: Key.self).decode(Value.self, forKey: Key())
        }
    }

    /// The field table of the one-field record.
    private static let table = FieldTable(names: [1: "value"])

    /// The stored bytes of `value` as the field `field` of `entity` (for messages).
    package static func bytes<Value: Encodable>(of value: Value, entity: String, field: String) throws(StrataError) -> [UInt8] {
        // The types CBOR has its own form for are written as the record codec writes them
        // (`writePrimitive`, which it shares); a date it would refuse takes the general path.
        var direct = CBORWriter(capacity: 16)
        if direct.writePrimitive(value), direct.outOfRangeDate == nil { return direct.bytes }
        var encoder = RecordEncoder()
        encoder.refusesUnstorableDates = true
        var fields = table
        let record = try encoder.encode(Wrapper(value: value), fields: &fields, entity: entity)
        do {
            let reader = CBORReader(bytes: record)
            var cursor = try RecordCursor(reader)
            for entry in try cursor.entries(in: reader) where entry.id == 1 { return Array(record[entry.value]) }
        } catch {}
        throw StrataError(.invalidValue, "\(entity): the value for the field '\(field)' encodes to nothing (a nil optional?)",
                          entity: entity, field: field)
    }

    /// A one-field record holding `value` (stored value bytes) under id 1.
    private static func record(holding value: some Collection<UInt8>) -> [UInt8] {
        var writer = CBORWriter(capacity: value.count + 4)
        writer.writeHead(.map, 1)
        writer.writeHead(.unsigned, 1)
        writer.bytes.append(contentsOf: value)
        return writer.bytes
    }

    /// Decodes stored value bytes as `type`; `entity`, `field` and `key` name the value in errors.
    package static func value<Value: Decodable>(_ type: Value.Type, from bytes: some Collection<UInt8>, entity: String, field: String,
                                        key: String) throws(StrataError) -> Value {
        if let kind = CBOR.PrimitiveKind(of: Value.self) {
            // As the record codec reads such a type (`readPrimitive`); a failure is read again
            // through the codec below, for its message.
            let reader = CBORReader(bytes: Array(bytes))
            var offset = 0
            if let value = try? reader.readPrimitive(Value.self, kind: kind, at: &offset), offset == reader.bytes.count { return value }
        }
        do {
            return try RecordDecoder().decode(Unwrapper<Value>.self, from: record(holding: bytes), fields: table,
                                              entity: entity, key: key).value
        } catch {
            var error = error
            error.field = field
            error.message = error.message.replacingOccurrences(of: "'value'", with: "'\(field)'")
            throw error
        }
    }
}
