import Foundation

/// Reads one stored record's fields for ``FieldCodable/init(fields:)``, in any order.
///
/// Opening the reader checks the whole record map once (every length against the bytes, no bytes
/// after it) and notes where each field is, so each `decode` finds its field in constant time.
/// Failures are ``StrataError``s as with `Codable`: `.typeMismatch` naming the field, what is stored
/// and what was expected, `.missingField`, or `.corruptRecord` with the byte offset.
public struct FieldReader {
    /// The most field ids the table of field positions holds; fields with larger ids are searched.
    static let directIDs = 64

    let reader: CBORReader
    let fields: FieldTable
    let entity: String
    let recordKey: String
    /// Per field id below `directIDs`: the offset of its key item shifted left by four, plus the size
    /// of that key item; 0 when the record has no such field.
    private var entries = InlineArray<64, Int>(repeating: 0)
    /// Whether some stored field id is `directIDs` or above (then looked up by a scan).
    private var hasLargeIDs = false
    private var mapStart = 0
    private var count = 0
    /// The previous field's id: the next one is usually just after it (see `FieldTable.id(for:after:)`).
    private var lastFieldID = 0

    /// Indexes the record map in `bytes`; throws `.corruptRecord` or `.typeMismatch` when it is not one.
    init(bytes: [UInt8], fields: FieldTable, entity: String, key: String) throws(StrataError) {
        reader = CBORReader(bytes: bytes)
        self.fields = fields
        self.entity = entity
        recordKey = key
        do throws(CBORReadFailure) {
            var position = 0
            let head = try reader.readHead(at: &position)
            guard head.major == .map else { throw .mismatch(offset: 0, expected: "") }
            count = try reader.checkedLength(head, at: position, start: 0, perItem: 2)
            mapStart = position
            for _ in 0..<count {
                let keyStart = position
                let id = try readFieldID(at: &position)
                if id < Self.directIDs {
                    if entries[id] == 0 { entries[id] = keyStart << 4 | (position - keyStart) }
                } else {
                    hasLargeIDs = true
                }
                try reader.skipItemQuickly(at: &position)
            }
            if position != bytes.count {
                throw .corrupt(offset: position, reason: "\(bytes.count - position) bytes follow the record")
            }
        } catch {
            throw errors.failure(error, field: "", expected: "a record (map)")
        }
    }

    private func readFieldID(at position: inout Int) throws(CBORReadFailure) -> Int {
        let start = position
        let head = try reader.readHead(at: &position)
        guard head.major == .unsigned, head.argument <= UInt64(Int.max) else {
            throw .corrupt(offset: start, reason: "record map key is not a field id")
        }
        return Int(head.argument)
    }

    /// Builds the messages of failures (rarely needed, so made only then).
    private var errors: RecordDecodingState {
        RecordDecodingState(bytes: reader.bytes, fields: fields, entity: entity, key: recordKey)
    }

    /// Where the field named `name` is stored: its key item and its value, or nil when absent.
    @inline(__always)
    private mutating func locate(_ name: String) -> (key: Int, value: Int)? {
        guard let id = fields.id(for: name, after: lastFieldID) else { return nil }
        lastFieldID = id
        if id < Self.directIDs {
            let entry = entries[id]
            return entry == 0 ? nil : (entry >> 4, entry >> 4 + entry & 0xF)
        }
        guard hasLargeIDs else { return nil }
        var position = mapStart
        for _ in 0..<count {
            let keyStart = position
            // The map was checked when the reader was made, so these reads succeed.
            guard let stored = try? readFieldID(at: &position) else { return nil }
            if stored == id { return (keyStart, position) }
            guard (try? reader.skipItemQuickly(at: &position)) != nil else { return nil }
        }
        return nil
    }

    /// Reads the value of `key`, which must be stored, with `read`.
    @inline(__always)
    private mutating func required<V>(
        _ key: some CodingKey, _ expected: String, _ read: (CBORReader, inout Int) throws(CBORReadFailure) -> V
    ) throws(StrataError) -> V {
        let name = key.stringValue
        guard let (_, value) = locate(name) else { throw errors.missing(field: name) }
        var offset = value
        do throws(CBORReadFailure) { return try read(reader, &offset) } catch {
            throw errors.failure(error, field: name, expected: expected)
        }
    }

    /// Reads the value of `key` with `read`; nil when it is not stored or null.
    @inline(__always)
    private mutating func optional<V>(
        _ key: some CodingKey, _ expected: String, _ read: (CBORReader, inout Int) throws(CBORReadFailure) -> V
    ) throws(StrataError) -> V? {
        let name = key.stringValue
        guard let (_, value) = locate(name), !reader.isNull(at: value) else { return nil }
        var offset = value
        do throws(CBORReadFailure) { return try read(reader, &offset) } catch {
            throw errors.failure(error, field: name, expected: expected)
        }
    }

    public mutating func decode(_: String.Type, forKey key: some CodingKey) throws -> String {
        try required(key, "String") { reader, offset throws(CBORReadFailure) in try reader.readString(at: &offset) }
    }
    public mutating func decode(_: Int.Type, forKey key: some CodingKey) throws -> Int {
        try required(key, "Int") { reader, offset throws(CBORReadFailure) in try reader.readInteger(Int.self, at: &offset) }
    }
    public mutating func decode(_: Int64.Type, forKey key: some CodingKey) throws -> Int64 {
        try required(key, "Int64") { reader, offset throws(CBORReadFailure) in try reader.readInteger(Int64.self, at: &offset) }
    }
    public mutating func decode(_: Double.Type, forKey key: some CodingKey) throws -> Double {
        try required(key, "Double") { reader, offset throws(CBORReadFailure) in try reader.readDouble(at: &offset) }
    }
    public mutating func decode(_: Bool.Type, forKey key: some CodingKey) throws -> Bool {
        try required(key, "Bool") { reader, offset throws(CBORReadFailure) in try reader.readBool(at: &offset) }
    }
    public mutating func decode(_: Date.Type, forKey key: some CodingKey) throws -> Date {
        try required(key, "Date") { reader, offset throws(CBORReadFailure) in try reader.readDate(at: &offset) }
    }
    public mutating func decode(_: [String].Type, forKey key: some CodingKey) throws -> [String] {
        try required(key, "Array<String>") { reader, offset throws(CBORReadFailure) in try reader.readStrings(at: &offset) }
    }

    public mutating func decodeIfPresent(_: String.Type, forKey key: some CodingKey) throws -> String? {
        try optional(key, "String") { reader, offset throws(CBORReadFailure) in try reader.readString(at: &offset) }
    }
    public mutating func decodeIfPresent(_: Int.Type, forKey key: some CodingKey) throws -> Int? {
        try optional(key, "Int") { reader, offset throws(CBORReadFailure) in try reader.readInteger(Int.self, at: &offset) }
    }
    public mutating func decodeIfPresent(_: Int64.Type, forKey key: some CodingKey) throws -> Int64? {
        try optional(key, "Int64") { reader, offset throws(CBORReadFailure) in try reader.readInteger(Int64.self, at: &offset) }
    }
    public mutating func decodeIfPresent(_: Double.Type, forKey key: some CodingKey) throws -> Double? {
        try optional(key, "Double") { reader, offset throws(CBORReadFailure) in try reader.readDouble(at: &offset) }
    }
    public mutating func decodeIfPresent(_: Bool.Type, forKey key: some CodingKey) throws -> Bool? {
        try optional(key, "Bool") { reader, offset throws(CBORReadFailure) in try reader.readBool(at: &offset) }
    }
    public mutating func decodeIfPresent(_: Date.Type, forKey key: some CodingKey) throws -> Date? {
        try optional(key, "Date") { reader, offset throws(CBORReadFailure) in try reader.readDate(at: &offset) }
    }

    /// Any other value: other integer widths, floats, UUID, Data, URL, Decimal directly, anything
    /// else through its `Decodable` conformance.
    public mutating func decode<T: Decodable>(_ type: T.Type, forKey key: some CodingKey) throws -> T {
        let name = key.stringValue
        guard let (keyOffset, value) = locate(name) else { throw errors.missing(field: name) }
        return try decodeValue(type, name: name, key: keyOffset, value: value)
    }

    public mutating func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: some CodingKey) throws -> T? {
        let name = key.stringValue
        guard let (keyOffset, value) = locate(name), !reader.isNull(at: value) else { return nil }
        return try decodeValue(type, name: name, key: keyOffset, value: value)
    }

    private func decodeValue<T: Decodable>(_: T.Type, name: String, key: Int, value: Int) throws -> T {
        var offset = value
        do throws(CBORReadFailure) {
            if let primitive = try reader.readPrimitive(T.self, at: &offset) { return primitive }
        } catch {
            throw errors.failure(error, field: name, expected: "\(T.self)")
        }
        // Nested structs, enums, collections: the Codable decoder, pointed at this field's value.
        return try errors.decodeValue(T.self, at: &offset, parent: -1, component: .key(key))
    }
}
