/// A keyed container over a CBOR map: the record's own (field ids) or a nested one (text keys).
struct RecordKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: RecordDecodingState
    let frame: Int

    var codingPath: [any CodingKey] {
        state.path(parent: state.frame(frame).parent, component: state.frame(frame).component)
    }

    var allKeys: [Key] {
        if state.storage[frame + RecordDecodingState.Frame.entriesBase] < 0 {
            // Corrupt maps list no keys here; reading a value or ending the record reports the damage.
            guard (try? state.indexMap(frame: frame)) != nil else { return [] }
        }
        let info = state.frame(frame)
        return (0..<info.count).compactMap { position in
            Key(stringValue: state.keyName(ofEntry: info.entriesBase + 3 * position, topLevel: info.isTopLevel))
        }
    }

    func contains(_ key: Key) -> Bool { (try? state.find(key, frame: frame)) != nil }

    /// The value of `key`, which must be there; the caller consumes it.
    @inline(__always)
    func required(_ key: some CodingKey) throws -> RecordDecodingState.Found {
        guard let found = try state.find(key, frame: frame) else { throw state.missing(key, frame: frame) }
        return found
    }

    /// The value of `key` unless it is absent or null; the caller consumes it.
    @inline(__always)
    func present(_ key: Key) throws -> RecordDecodingState.Found? {
        guard let found = try state.find(key, frame: frame) else { return nil }
        if state.reader.isNull(at: found.value) {
            state.consume(frame, found, end: found.value + 1)
            return nil
        }
        return found
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        // Not consumed unless null: the caller usually decodes the value of the same key next.
        let found = try required(key)
        guard state.reader.isNull(at: found.value) else { return false }
        state.consume(frame, found, end: found.value + 1)
        return true
    }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool {
        let found = try required(key)
        if let (value, end) = state.reader.fastBool(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readBool(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Bool") }
    }
    func decodeIfPresent(_: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let found = try present(key) else { return nil }
        if let (value, end) = state.reader.fastBool(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readBool(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Bool") }
    }
    func decode(_: String.Type, forKey key: Key) throws -> String {
        let found = try required(key)
        if let (value, end) = state.reader.fastString(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readString(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "String") }
    }
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        guard let found = try present(key) else { return nil }
        if let (value, end) = state.reader.fastString(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readString(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "String") }
    }
    func decode(_: Double.Type, forKey key: Key) throws -> Double {
        let found = try required(key)
        if let (value, end) = state.reader.fastDouble(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readDouble(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Double") }
    }
    func decodeIfPresent(_: Double.Type, forKey key: Key) throws -> Double? {
        guard let found = try present(key) else { return nil }
        if let (value, end) = state.reader.fastDouble(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readDouble(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Double") }
    }
    func decode(_: Float.Type, forKey key: Key) throws -> Float {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readFloat(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Float") }
    }
    func decodeIfPresent(_: Float.Type, forKey key: Key) throws -> Float? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readFloat(at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Float") }
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let found = try required(key)
        var offset = found.value
        let value = try state.decodeValue(type, at: &offset, parent: frame, component: found.component)
        state.consume(frame, found, end: offset)
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        let value = try state.decodeValue(type, at: &offset, parent: frame, component: found.component)
        state.consume(frame, found, end: offset)
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let found = try required(key)
        state.consume(frame, found, end: -1)
        return try state.keyedContainer(keyedBy: type, at: found.value, parent: frame, component: found.component)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let found = try required(key)
        state.consume(frame, found, end: -1)
        return try state.unkeyedContainer(at: found.value, parent: frame, component: found.component)
    }

    func superDecoder() throws -> any Decoder { try superDecoder(key: RecordPathKey(stringValue: "super")) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(key: key) }

    private func superDecoder(key: some CodingKey) throws -> any Decoder {
        let found = try required(key)
        state.consume(frame, found, end: -1)
        return RecordSlotDecoder(state: state, offset: found.value, parent: frame, component: found.component)
    }
}
