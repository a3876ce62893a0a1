import Foundation

/// Writes one record's fields for ``FieldCodable/encodeFields(to:)``: each call appends the field's
/// id and its value to the record's CBOR map, exactly as the `Codable` encoder would.
///
/// Keys are the type's coding keys; their names are mapped to the entity's field ids (new names get
/// new ids, as with `Codable`).
public struct FieldWriter {
    var writer: CBORWriter
    var fields: FieldTable
    /// Whether `fields` was given new names.
    private(set) var fieldsChanged = false
    /// The previous field's id: the next one is usually just after it (see `FieldTable.id(for:after:)`).
    private var lastFieldID = 0
    private var count = 0

    init(fields: FieldTable, capacity: Int = 256) {
        writer = CBORWriter(capacity: capacity)
        self.fields = fields
        writer.bytes.append(CBOR.emptyMapByte)
    }

    /// The record's bytes, with the map head counting the fields written.
    consuming func finish() -> [UInt8] {
        writer.patchHead(at: 0, .map, count: count)
        return writer.bytes
    }

    @inline(__always)
    private mutating func writeKey(_ name: String) {
        let (id, isNew) = fields.assign(name, after: lastFieldID)
        if isNew { fieldsChanged = true }
        lastFieldID = id
        count += 1
        writer.writeHead(.unsigned, UInt64(id))
    }

    // The public writes are inlined into the caller's `encodeFields(to:)`, where `key.stringValue` of
    // a synthesized `CodingKeys` case folds to a constant; the work is in the writes by name below.

    /// Writes the `String` field `key`.
    @inlinable public mutating func encode(_ value: String, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `Int` field `key`.
    @inlinable public mutating func encode(_ value: Int, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `Int64` field `key`.
    @inlinable public mutating func encode(_ value: Int64, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `Double` field `key`.
    @inlinable public mutating func encode(_ value: Double, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `Float` field `key`.
    @inlinable public mutating func encode(_ value: Float, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `Bool` field `key`.
    @inlinable public mutating func encode(_ value: Bool, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `Date` field `key`.
    @inlinable public mutating func encode(_ value: Date, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `UUID` field `key`.
    @inlinable public mutating func encode(_ value: UUID, forKey key: some CodingKey) { encode(value, named: key.stringValue) }
    /// Writes the `[String]` field `key`.
    @inlinable public mutating func encode(_ value: [String], forKey key: some CodingKey) { encode(value, named: key.stringValue) }

    /// Any other integer width.
    public mutating func encode<I: FixedWidthInteger & Encodable>(_ value: I, forKey key: some CodingKey) {
        writeKey(key.stringValue)
        writer.writeInteger(value)
    }

    /// Any other value, through its `Encodable` conformance (nested structs as maps with text keys).
    public mutating func encode<T: Encodable>(_ value: T, forKey key: some CodingKey) throws {
        writeKey(key.stringValue)
        if writer.writePrimitive(value) { return }
        let state = RecordEncodingState(fields: fields)
        swap(&state.writer, &writer)
        defer { swap(&state.writer, &writer) }
        try state.encodeValue(value)
    }

    /// Writes `value` unless it is nil, as synthesized `Codable` does for optionals.
    public mutating func encodeIfPresent(_ value: String?, forKey key: some CodingKey) {
        if let value { encode(value, forKey: key) }
    }
    /// Writes the `Int` field `key` unless `value` is nil.
    public mutating func encodeIfPresent(_ value: Int?, forKey key: some CodingKey) {
        if let value { encode(value, forKey: key) }
    }
    /// Writes the `Int64` field `key` unless `value` is nil.
    public mutating func encodeIfPresent(_ value: Int64?, forKey key: some CodingKey) {
        if let value { encode(value, forKey: key) }
    }
    /// Writes the `Double` field `key` unless `value` is nil.
    public mutating func encodeIfPresent(_ value: Double?, forKey key: some CodingKey) {
        if let value { encode(value, forKey: key) }
    }
    /// Writes the `Bool` field `key` unless `value` is nil.
    public mutating func encodeIfPresent(_ value: Bool?, forKey key: some CodingKey) {
        if let value { encode(value, forKey: key) }
    }
    /// Writes the `Date` field `key` unless `value` is nil.
    public mutating func encodeIfPresent(_ value: Date?, forKey key: some CodingKey) {
        if let value { encode(value, forKey: key) }
    }
    /// Writes the `Encodable` field `key` unless `value` is nil.
    public mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: some CodingKey) throws {
        if let value { try encode(value, forKey: key) }
    }

    /// Writes null explicitly; synthesized `Codable` omits nil fields instead (`encodeIfPresent`).
    public mutating func encodeNil(forKey key: some CodingKey) { writeKey(key.stringValue); writer.writeNull() }
}

// Writes by field name, behind the inlined public writes.
extension FieldWriter {
    @usableFromInline mutating func encode(_ value: String, named name: String) { writeKey(name); writer.writeText(value) }
    @usableFromInline mutating func encode(_ value: Int, named name: String) { writeKey(name); writer.writeInteger(value) }
    @usableFromInline mutating func encode(_ value: Int64, named name: String) { writeKey(name); writer.writeInteger(value) }
    @usableFromInline mutating func encode(_ value: Double, named name: String) { writeKey(name); writer.writeDouble(value) }
    @usableFromInline mutating func encode(_ value: Float, named name: String) { writeKey(name); writer.writeFloat(value) }
    @usableFromInline mutating func encode(_ value: Bool, named name: String) { writeKey(name); writer.writeBool(value) }
    @usableFromInline mutating func encode(_ value: Date, named name: String) { writeKey(name); writer.writeDate(value) }
    @usableFromInline mutating func encode(_ value: UUID, named name: String) { writeKey(name); writer.writeUUID(value) }
    @usableFromInline mutating func encode(_ value: [String], named name: String) { writeKey(name); writer.writeStrings(value) }
}
