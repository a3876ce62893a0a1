/// The keyed container of a record (field-id keys) or of a nested struct, enum or dictionary (text keys).
struct RecordKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: RecordEncodingState
    let frame: Int
    let id: Int

    var codingPath: [any CodingKey] { [] }

    @inline(__always)
    private func entry(_ key: Key) throws {
        try state.beginEntry(frame: frame, id: id)
        state.writeKey(key, frame: frame)
    }

    mutating func encodeNil(forKey key: Key) throws { try entry(key); state.writer.writeNull() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try entry(key); state.writer.writeBool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try entry(key); state.writer.writeText(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try entry(key); state.writer.writeDouble(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try entry(key); state.writer.writeFloat(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try entry(key); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { try entry(key); state.writer.writeInteger(WideInteger(value)) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try entry(key); state.writer.writeInteger(WideInteger(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try entry(key); try state.encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        // Protocol requirement cannot throw: a stale container yields a nested container that fails on use.
        guard (try? entry(key)) != nil else {
            return KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(state: state, frame: frame, id: -1))
        }
        state.pushFrame(kind: .pending, isSlot: false)
        return state.keyedContainer(keyedBy: keyType, slot: state.frames.count - 1)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        guard (try? entry(key)) != nil else { return RecordUnkeyedEncodingContainer(state: state, frame: frame, id: -1) }
        state.pushFrame(kind: .pending, isSlot: false)
        return state.unkeyedContainer(slot: state.frames.count - 1)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(key: "super") }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: key.stringValue) }

    private func superEncoder(key: String) -> any Encoder {
        if (try? state.beginEntry(frame: frame, id: id)) != nil {
            if state.frames[frame].isTopLevel {
                state.writer.writeHead(.unsigned, UInt64(state.fieldID(key)))
            } else {
                state.writer.writeText(key)
            }
        }
        state.pushFrame(kind: .pending, isSlot: false)
        return RecordSlotEncoder(state: state, slot: state.frames.count - 1)
    }
}

/// The unkeyed container of an array, set or other sequence.
struct RecordUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let state: RecordEncodingState
    let frame: Int
    let id: Int

    var codingPath: [any CodingKey] { [] }
    var count: Int { frame < state.frames.count && state.frames[frame].id == id ? state.frames[frame].count : 0 }

    @inline(__always)
    private func entry() throws { try state.beginEntry(frame: frame, id: id) }

    mutating func encodeNil() throws { try entry(); state.writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try entry(); state.writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try entry(); state.writer.writeText(value) }
    mutating func encode(_ value: Double) throws { try entry(); state.writer.writeDouble(value) }
    mutating func encode(_ value: Float) throws { try entry(); state.writer.writeFloat(value) }
    mutating func encode(_ value: Int) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try entry(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int128) throws { try entry(); state.writer.writeInteger(WideInteger(value)) }
    mutating func encode(_ value: UInt128) throws { try entry(); state.writer.writeInteger(WideInteger(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try entry(); try state.encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard (try? entry()) != nil else {
            return KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(state: state, frame: frame, id: -1))
        }
        state.pushFrame(kind: .pending, isSlot: false)
        return state.keyedContainer(keyedBy: keyType, slot: state.frames.count - 1)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard (try? entry()) != nil else { return RecordUnkeyedEncodingContainer(state: state, frame: frame, id: -1) }
        state.pushFrame(kind: .pending, isSlot: false)
        return state.unkeyedContainer(slot: state.frames.count - 1)
    }

    mutating func superEncoder() -> any Encoder {
        _ = try? entry()
        state.pushFrame(kind: .pending, isSlot: false)
        return RecordSlotEncoder(state: state, slot: state.frames.count - 1)
    }
}

/// The single-value container of a value that encodes as one item (raw-value enums, wrappers, Optional).
struct RecordSingleValueEncodingContainer: SingleValueEncodingContainer {
    let state: RecordEncodingState
    let frame: Int
    let id: Int

    var codingPath: [any CodingKey] { [] }

    /// Marks the slot as holding its one value; a second value, or a slot that opened a container, fails.
    @inline(__always)
    private func begin() throws {
        guard frame < state.frames.count, state.frames[frame].id == id, state.frames[frame].kind == .pending else {
            throw StrataError(.invalidValue, "a single-value container was asked to encode a second value, or a record encoded as a single value")
        }
        if state.frames.count > frame + 1 { try state.closeFrames(downTo: frame + 1) }
        state.frames[frame].kind = .single
    }

    mutating func encodeNil() throws { try begin(); state.writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); state.writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try begin(); state.writer.writeText(value) }
    mutating func encode(_ value: Double) throws { try begin(); state.writer.writeDouble(value) }
    mutating func encode(_ value: Float) throws { try begin(); state.writer.writeFloat(value) }
    mutating func encode(_ value: Int) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); state.writer.writeInteger(value) }
    mutating func encode(_ value: Int128) throws { try begin(); state.writer.writeInteger(WideInteger(value)) }
    mutating func encode(_ value: UInt128) throws { try begin(); state.writer.writeInteger(WideInteger(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try begin(); try state.encodeValue(value) }
}
