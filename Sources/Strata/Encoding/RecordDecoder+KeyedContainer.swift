/// A keyed container over an indexed CBOR map: the record's own (field ids) or a nested one (text keys).
struct RecordKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: RecordDecodingState
    let frame: Int

    var codingPath: [any CodingKey] {
        state.path(parent: state.frame(frame).parent, component: state.frame(frame).component)
    }

    var allKeys: [Key] {
        let info = state.frame(frame)
        return (0..<info.count).compactMap { position in
            Key(stringValue: state.keyName(ofEntry: info.entriesBase + 3 * position, topLevel: info.isTopLevel))
        }
    }

    func contains(_ key: Key) -> Bool { state.entry(for: key, frame: frame, advance: false) != nil }

    @inline(__always)
    private func required(_ key: some CodingKey) throws -> Int {
        guard let entry = state.entry(for: key, frame: frame, advance: true) else { throw state.missing(key, frame: frame) }
        return entry
    }

    /// The entry of `key` unless it is absent or null.
    @inline(__always)
    private func present(_ key: Key) -> Int? {
        guard let entry = state.entry(for: key, frame: frame, advance: true),
              !state.reader.isNull(at: state.storage[entry + 2]) else { return nil }
        return entry
    }

    func decodeNil(forKey key: Key) throws -> Bool { state.reader.isNull(at: state.storage[try required(key) + 2]) }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readBool(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Bool") }
    }
    func decodeIfPresent(_: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readBool(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Bool") }
    }
    func decode(_: String.Type, forKey key: Key) throws -> String {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readString(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "String") }
    }
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readString(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "String") }
    }
    func decode(_: Double.Type, forKey key: Key) throws -> Double {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readDouble(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Double") }
    }
    func decodeIfPresent(_: Double.Type, forKey key: Key) throws -> Double? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readDouble(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Double") }
    }
    func decode(_: Float.Type, forKey key: Key) throws -> Float {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.readFloat(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Float") }
    }
    func decodeIfPresent(_: Float.Type, forKey key: Key) throws -> Float? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.readFloat(at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Float") }
    }
    func decode(_: Int.Type, forKey key: Key) throws -> Int {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int") }
    }
    func decodeIfPresent(_: Int.Type, forKey key: Key) throws -> Int? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int") }
    }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int8.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int8") }
    }
    func decodeIfPresent(_: Int8.Type, forKey key: Key) throws -> Int8? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int8.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int8") }
    }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int16.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int16") }
    }
    func decodeIfPresent(_: Int16.Type, forKey key: Key) throws -> Int16? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int16.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int16") }
    }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int32.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int32") }
    }
    func decodeIfPresent(_: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int32.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int32") }
    }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int64.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int64") }
    }
    func decodeIfPresent(_: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int64.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "Int64") }
    }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt") }
    }
    func decodeIfPresent(_: UInt.Type, forKey key: Key) throws -> UInt? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt") }
    }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt8.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt8") }
    }
    func decodeIfPresent(_: UInt8.Type, forKey key: Key) throws -> UInt8? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt8.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt8") }
    }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt16.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt16") }
    }
    func decodeIfPresent(_: UInt16.Type, forKey key: Key) throws -> UInt16? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt16.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt16") }
    }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt32.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt32") }
    }
    func decodeIfPresent(_: UInt32.Type, forKey key: Key) throws -> UInt32? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt32.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt32") }
    }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt64.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt64") }
    }
    func decodeIfPresent(_: UInt64.Type, forKey key: Key) throws -> UInt64? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt64.self, at: &offset) } catch { throw state.failure(error, parent: frame, component: .entry(entry), expected: "UInt64") }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let entry = try required(key)
        var offset = state.storage[entry + 2]
        return try state.decodeValue(type, at: &offset, parent: frame, component: .entry(entry))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let entry = present(key) else { return nil }
        var offset = state.storage[entry + 2]
        return try state.decodeValue(type, at: &offset, parent: frame, component: .entry(entry))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let entry = try required(key)
        return try state.keyedContainer(keyedBy: type, at: state.storage[entry + 2], parent: frame, component: .entry(entry))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let entry = try required(key)
        return try state.unkeyedContainer(at: state.storage[entry + 2], parent: frame, component: .entry(entry))
    }

    func superDecoder() throws -> any Decoder { try superDecoder(key: RecordPathKey(stringValue: "super")) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(key: key) }

    private func superDecoder(key: some CodingKey) throws -> any Decoder {
        let entry = try required(key)
        return RecordSlotDecoder(state: state, offset: state.storage[entry + 2], parent: frame, component: .entry(entry))
    }
}
