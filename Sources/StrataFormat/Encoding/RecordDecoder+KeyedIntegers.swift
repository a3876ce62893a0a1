/// The integer reads of the keyed decoding container: every width shares `CBORReader.readInteger`.
extension RecordKeyedDecodingContainer {
    func decode(_: Int.Type, forKey key: Key) throws -> Int {
        let found = try required(key)
        if let (value, end) = state.reader.fastInt(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int") }
    }
    func decodeIfPresent(_: Int.Type, forKey key: Key) throws -> Int? {
        guard let found = try present(key) else { return nil }
        if let (value, end) = state.reader.fastInt(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int") }
    }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int8.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int8") }
    }
    func decodeIfPresent(_: Int8.Type, forKey key: Key) throws -> Int8? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int8.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int8") }
    }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int16.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int16") }
    }
    func decodeIfPresent(_: Int16.Type, forKey key: Key) throws -> Int16? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int16.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int16") }
    }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int32.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int32") }
    }
    func decodeIfPresent(_: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int32.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int32") }
    }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 {
        let found = try required(key)
        if let (value, end) = state.reader.fastInt64(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int64.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int64") }
    }
    func decodeIfPresent(_: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let found = try present(key) else { return nil }
        if let (value, end) = state.reader.fastInt64(at: found.value) {
            state.consume(frame, found, end: end)
            return value
        }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int64.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "Int64") }
    }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt") }
    }
    func decodeIfPresent(_: UInt.Type, forKey key: Key) throws -> UInt? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt") }
    }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt8.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt8") }
    }
    func decodeIfPresent(_: UInt8.Type, forKey key: Key) throws -> UInt8? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt8.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt8") }
    }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt16.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt16") }
    }
    func decodeIfPresent(_: UInt16.Type, forKey key: Key) throws -> UInt16? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt16.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt16") }
    }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt32.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt32") }
    }
    func decodeIfPresent(_: UInt32.Type, forKey key: Key) throws -> UInt32? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt32.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt32") }
    }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let found = try required(key)
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt64.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt64") }
    }
    func decodeIfPresent(_: UInt64.Type, forKey key: Key) throws -> UInt64? {
        guard let found = try present(key) else { return nil }
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt64.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "UInt64") }
    }
    func decode(_: Int128.Type, forKey key: Key) throws -> Int128 { try decodeWide(Int128.self, try required(key)) }
    func decodeIfPresent(_: Int128.Type, forKey key: Key) throws -> Int128? { try present(key).map { try decodeWide(Int128.self, $0) } }
    func decode(_: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeWide(UInt128.self, try required(key)) }
    func decodeIfPresent(_: UInt128.Type, forKey key: Key) throws -> UInt128? { try present(key).map { try decodeWide(UInt128.self, $0) } }

    /// A 128-bit integer: any CBOR integer, or a bignum beyond 64 bits.
    private func decodeWide<I: FixedWidthInteger>(_: I.Type, _ found: RecordDecodingState.Found) throws -> I {
        var offset = found.value
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger128(I.self, at: &offset)
            state.consume(frame, found, end: offset)
            return value
        } catch { throw state.failure(error, parent: frame, component: found.component, expected: "\(I.self)") }
    }
}
