import Foundation

/// Reads one stored record's fields for ``FieldCodable/init(fields:)``, in any order.
///
/// Fields are expected in the order they were written, which is the order a type reads them in:
/// each `decode` then finds its field at the cursor and moves the cursor past it, so every value is
/// read once and nothing is indexed. A field elsewhere (read out of order, or after fields the type
/// no longer has) is found by scanning; a field the record does not hold is nil or `.missingField`.
/// Every length is checked against the bytes; failures are ``StrataError``s as with `Codable`:
/// `.typeMismatch` naming the field, what is stored and what was expected, `.missingField`, or
/// `.corruptRecord` with the byte offset.
public struct FieldReader {
    let reader: CBORReader
    let fields: FieldTable
    let entity: String
    let recordKey: String
    /// At the entry expected next: the record's fields are read in stored order, one entry each.
    private var cursor: RecordCursor
    /// Bit `n` is set when an entry before the cursor has field id `n` (< 64); `largeIDBefore`
    /// stands for the larger ids. A field not among them and not at or after the cursor is not stored.
    private var idsBefore: UInt64 = 0
    private var largeIDBefore = false
    /// The previous field's id: the next one is usually just after it (see `FieldTable.id(for:after:)`).
    private var lastFieldID = 0

    /// Reads the head of the record map in `bytes`.
    init(bytes: [UInt8], fields: FieldTable, entity: String, key: String) throws(StrataError) {
        // The cursor first, so that a failure throws before anything is stored: a struct partly
        // initialized when it throws is built in a temporary and copied.
        let reader = CBORReader(bytes: bytes)
        let cursor: RecordCursor
        do throws(CBORReadFailure) {
            cursor = try RecordCursor(reader)
        } catch {
            throw RecordDecodingState(bytes: bytes, fields: fields, entity: entity, key: key)
                .failure(error, field: "", expected: "a record (map)")
        }
        self.cursor = cursor
        self.reader = reader
        self.fields = fields
        self.entity = entity
        recordKey = key
    }

    /// Checks the entries the type did not read, and that no bytes follow the record.
    mutating func finish() throws(StrataError) {
        do throws(CBORReadFailure) {
            try cursor.finish(in: reader)
        } catch {
            throw mapFailure(error)
        }
    }

    /// Builds the messages of failures (rarely needed, so made only then).
    private var errors: RecordDecodingState {
        RecordDecodingState(bytes: reader.bytes, fields: fields, entity: entity, key: recordKey)
    }

    private func mapFailure(_ error: CBORReadFailure) -> StrataError {
        errors.failure(error, field: "", expected: "a record (map)")
    }

    /// A stored field: where its key and value start, its entry number, and the ids of the entries
    /// between the cursor and it.
    private struct Found {
        var id: Int
        var key: Int
        var value: Int
        var index: Int
        var skippedIDs: UInt64 = 0
        var skippedLargeID = false
    }

    /// The id of field `name`, or nil when the entity has never stored such a field.
    @inline(__always)
    private mutating func fieldID(_ name: String) -> Int? {
        guard let id = fields.id(for: name, after: lastFieldID) else { return nil }
        lastFieldID = id
        return id
    }

    /// The fast path: where the value of field `id` starts when its entry is the one at the cursor
    /// under a one-byte key (ids below 24), as it is when fields are read in the order they were
    /// written; nil otherwise (``find(_:)`` then looks further).
    @inline(__always)
    private func valueAtCursor(_ id: Int) -> Int? {
        let next = cursor.position
        guard id < 24, cursor.remaining > 0, next < reader.bytes.count, reader.bytes[next] == UInt8(truncatingIfNeeded: id) else {
            return nil
        }
        return next + 1
    }

    /// Moves the cursor past the entry of field `id` (found by ``valueAtCursor(_:)``), whose value ends at `end`.
    @inline(__always)
    private mutating func advance(past id: Int, to end: Int) {
        cursor.pass(entryEndingAt: end)
        idsBefore |= 1 << id
    }

    /// Finds the field named `name`: at the cursor, after it, or (only if it may be there) before it.
    @inline(__always)
    private mutating func find(_ name: String) throws(StrataError) -> Found? {
        guard let id = fieldID(name) else { return nil }
        return try find(id: id)
    }

    /// Finds the entry of field `id`: at the cursor, after it, or (only if it may be there) before it.
    private func find(id: Int) throws(StrataError) -> Found? {
        do throws(CBORReadFailure) {
            // The usual case: the field at the cursor (a one-byte key for ids below 24).
            if let value = valueAtCursor(id) { return Found(id: id, key: cursor.position, value: value, index: cursor.entryIndex) }
            var probe = cursor
            var found = Found(id: id, key: 0, value: 0, index: 0)
            var keyStart = probe.position
            while let stored = try probe.nextField(in: reader) {
                if stored == id {
                    (found.key, found.value, found.index) = (keyStart, probe.position, probe.entryIndex - 1)
                    return found
                }
                if stored < 64 { found.skippedIDs |= 1 << stored } else { found.skippedLargeID = true }
                try probe.skipValue(in: reader)
                keyStart = probe.position
            }
            guard id < 64 ? idsBefore & (1 << id) != 0 : largeIDBefore else { return nil }
            var earlier = cursor.entriesBefore
            keyStart = earlier.position
            while let stored = try earlier.nextField(in: reader) {
                if stored == id { return Found(id: id, key: keyStart, value: earlier.position, index: earlier.entryIndex - 1) }
                try earlier.skipValue(in: reader)
                keyStart = earlier.position
            }
            return nil
        } catch {
            throw mapFailure(error)
        }
    }

    /// Notes that the value of `found` was read up to `end`: a field at or after the cursor moves it.
    @inline(__always)
    private mutating func consume(_ found: Found, end: Int) {
        guard found.index >= cursor.entryIndex else { return }
        cursor.move(pastEntry: found.index, valueEnd: end)
        idsBefore |= found.skippedIDs | (found.id < 64 ? 1 << found.id : 0)
        largeIDBefore = largeIDBefore || found.skippedLargeID || found.id >= 64
    }

    /// Reads the value of the field `name`, which must be stored: with `fast` when the field is at
    /// the cursor in the form Strata writes, otherwise (or when `fast` declines) with `read`.
    @inline(__always)
    private mutating func required<V>(
        _ name: String, _ expected: String,
        fast: (CBORReader, Int) -> (value: V, end: Int)?,
        _ read: (CBORReader, inout Int) throws(CBORReadFailure) -> V
    ) throws(StrataError) -> V {
        guard let id = fieldID(name) else { throw errors.missing(field: name) }
        if let start = valueAtCursor(id), let (value, end) = fast(reader, start) {
            advance(past: id, to: end)
            return value
        }
        guard let found = try find(id: id) else { throw errors.missing(field: name) }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try read(reader, &offset)
            consume(found, end: offset)
            return value
        } catch {
            throw errors.failure(error, field: name, expected: expected)
        }
    }

    /// Reads the value of the field `name` as ``required(_:_:fast:_:)`` does; nil when it is not
    /// stored or null.
    @inline(__always)
    private mutating func optional<V>(
        _ name: String, _ expected: String,
        fast: (CBORReader, Int) -> (value: V, end: Int)?,
        _ read: (CBORReader, inout Int) throws(CBORReadFailure) -> V
    ) throws(StrataError) -> V? {
        guard let id = fieldID(name) else { return nil }
        if let start = valueAtCursor(id) {
            if reader.isNull(at: start) {
                advance(past: id, to: start + 1)
                return nil
            }
            if let (value, end) = fast(reader, start) {
                advance(past: id, to: end)
                return value
            }
        }
        guard let found = try find(id: id) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            if reader.isNull(at: offset) {
                consume(found, end: offset + 1)
                return nil
            }
            let value = try read(reader, &offset)
            consume(found, end: offset)
            return value
        } catch {
            throw errors.failure(error, field: name, expected: expected)
        }
    }

    // The public reads are inlined into the caller's `init(fields:)`, where `key.stringValue` of a
    // synthesized `CodingKeys` case folds to a constant; the work is in the non-generic reads by name
    // below. (Generic over the key, each field costs measurably more.)

    /// Reads the `String` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch`
    /// when it holds another type.
    @inlinable public mutating func decode(_: String.Type, forKey key: some CodingKey) throws -> String {
        try string(key.stringValue)
    }
    /// Reads the `Int` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch` when
    /// it holds another type.
    @inlinable public mutating func decode(_: Int.Type, forKey key: some CodingKey) throws -> Int {
        try int(key.stringValue)
    }
    /// Reads the `Int64` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch`
    /// when it holds another type.
    @inlinable public mutating func decode(_: Int64.Type, forKey key: some CodingKey) throws -> Int64 {
        try int64(key.stringValue)
    }
    /// Reads the `Double` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch`
    /// when it holds another type.
    @inlinable public mutating func decode(_: Double.Type, forKey key: some CodingKey) throws -> Double {
        try double(key.stringValue)
    }
    /// Reads the `Bool` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch` when
    /// it holds another type.
    @inlinable public mutating func decode(_: Bool.Type, forKey key: some CodingKey) throws -> Bool {
        try bool(key.stringValue)
    }
    /// Reads the `Date` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch` when
    /// it holds another type.
    @inlinable public mutating func decode(_: Date.Type, forKey key: some CodingKey) throws -> Date {
        try date(key.stringValue)
    }
    /// Reads the `[String]` field `key`; throws `.missingField` when the record lacks it and `.typeMismatch`
    /// when it holds another type.
    @inlinable public mutating func decode(_: [String].Type, forKey key: some CodingKey) throws -> [String] {
        try strings(key.stringValue)
    }

    /// Reads the optional `String` field `key`: nil when the record lacks it or stores nil.
    @inlinable public mutating func decodeIfPresent(_: String.Type, forKey key: some CodingKey) throws -> String? {
        try string(ifPresent: key.stringValue)
    }
    /// Reads the optional `Int` field `key`: nil when the record lacks it or stores nil.
    @inlinable public mutating func decodeIfPresent(_: Int.Type, forKey key: some CodingKey) throws -> Int? {
        try int(ifPresent: key.stringValue)
    }
    /// Reads the optional `Int64` field `key`: nil when the record lacks it or stores nil.
    @inlinable public mutating func decodeIfPresent(_: Int64.Type, forKey key: some CodingKey) throws -> Int64? {
        try int64(ifPresent: key.stringValue)
    }
    /// Reads the optional `Double` field `key`: nil when the record lacks it or stores nil.
    @inlinable public mutating func decodeIfPresent(_: Double.Type, forKey key: some CodingKey) throws -> Double? {
        try double(ifPresent: key.stringValue)
    }
    /// Reads the optional `Bool` field `key`: nil when the record lacks it or stores nil.
    @inlinable public mutating func decodeIfPresent(_: Bool.Type, forKey key: some CodingKey) throws -> Bool? {
        try bool(ifPresent: key.stringValue)
    }
    /// Reads the optional `Date` field `key`: nil when the record lacks it or stores nil.
    @inlinable public mutating func decodeIfPresent(_: Date.Type, forKey key: some CodingKey) throws -> Date? {
        try date(ifPresent: key.stringValue)
    }

    /// Any other value: other integer widths, floats, UUID, Data, URL, Decimal directly, anything
    /// else through its `Decodable` conformance.
    @inlinable public mutating func decode<T: Decodable>(_ type: T.Type, forKey key: some CodingKey) throws -> T {
        try value(type, key.stringValue)
    }

    /// Any other optional value, read as the generic `decode(_:forKey:)` reads it: nil when the record lacks
    /// the field or stores nil.
    @inlinable public mutating func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: some CodingKey) throws -> T? {
        try value(ifPresent: type, key.stringValue)
    }
}

// Reads by field name, behind the inlined public reads.
extension FieldReader {
    @usableFromInline mutating func string(_ name: String) throws(StrataError) -> String {
        try required(name, "String", fast: { $0.fastString(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readString(at: &offset)
        }
    }
    @usableFromInline mutating func int(_ name: String) throws(StrataError) -> Int {
        try required(name, "Int", fast: { $0.fastInt(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readInteger(Int.self, at: &offset)
        }
    }
    @usableFromInline mutating func int64(_ name: String) throws(StrataError) -> Int64 {
        try required(name, "Int64", fast: { $0.fastInt64(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readInteger(Int64.self, at: &offset)
        }
    }
    @usableFromInline mutating func double(_ name: String) throws(StrataError) -> Double {
        try required(name, "Double", fast: { $0.fastDouble(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readDouble(at: &offset)
        }
    }
    @usableFromInline mutating func bool(_ name: String) throws(StrataError) -> Bool {
        try required(name, "Bool", fast: { $0.fastBool(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readBool(at: &offset)
        }
    }
    @usableFromInline mutating func date(_ name: String) throws(StrataError) -> Date {
        try required(name, "Date", fast: { $0.fastDate(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readDate(at: &offset)
        }
    }
    @usableFromInline mutating func strings(_ name: String) throws(StrataError) -> [String] {
        try required(name, "Array<String>", fast: { $0.fastStrings(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readStrings(at: &offset)
        }
    }

    @usableFromInline mutating func string(ifPresent name: String) throws(StrataError) -> String? {
        try optional(name, "String", fast: { $0.fastString(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readString(at: &offset)
        }
    }
    @usableFromInline mutating func int(ifPresent name: String) throws(StrataError) -> Int? {
        try optional(name, "Int", fast: { $0.fastInt(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readInteger(Int.self, at: &offset)
        }
    }
    @usableFromInline mutating func int64(ifPresent name: String) throws(StrataError) -> Int64? {
        try optional(name, "Int64", fast: { $0.fastInt64(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readInteger(Int64.self, at: &offset)
        }
    }
    @usableFromInline mutating func double(ifPresent name: String) throws(StrataError) -> Double? {
        try optional(name, "Double", fast: { $0.fastDouble(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readDouble(at: &offset)
        }
    }
    @usableFromInline mutating func bool(ifPresent name: String) throws(StrataError) -> Bool? {
        try optional(name, "Bool", fast: { $0.fastBool(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readBool(at: &offset)
        }
    }
    @usableFromInline mutating func date(ifPresent name: String) throws(StrataError) -> Date? {
        try optional(name, "Date", fast: { $0.fastDate(at: $1) }) { reader, offset throws(CBORReadFailure) in
            try reader.readDate(at: &offset)
        }
    }

    @usableFromInline mutating func value<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        guard let found = try find(name) else { throw errors.missing(field: name) }
        return try decodeValue(type, name: name, found)
    }

    @usableFromInline mutating func value<T: Decodable>(ifPresent type: T.Type, _ name: String) throws -> T? {
        guard let found = try find(name) else { return nil }
        if reader.isNull(at: found.value) {
            consume(found, end: found.value + 1)
            return nil
        }
        return try decodeValue(type, name: name, found)
    }

    private mutating func decodeValue<T: Decodable>(_: T.Type, name: String, _ found: Found) throws -> T {
        var offset = found.value
        do throws(CBORReadFailure) {
            if let primitive = try reader.readPrimitive(T.self, at: &offset) {
                consume(found, end: offset)
                return primitive
            }
        } catch {
            throw errors.failure(error, field: name, expected: "\(T.self)")
        }
        // Nested structs, enums, collections: the Codable decoder, pointed at this field's value.
        let value = try errors.decodeValue(T.self, at: &offset, parent: -1, component: .key(found.key))
        consume(found, end: offset)
        return value
    }
}
