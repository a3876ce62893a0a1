/// An unkeyed container reading a CBOR array item by item.
struct RecordUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let state: RecordDecodingState
    let frame: Int
    /// Offset of the next item.
    var offset: Int
    let itemCount: Int
    var currentIndex = 0

    init(state: RecordDecodingState, frame: Int, offset: Int, itemCount: Int) {
        self.state = state
        self.frame = frame
        self.offset = offset
        self.itemCount = itemCount
    }

    var count: Int? { itemCount }
    var isAtEnd: Bool { currentIndex >= itemCount }
    var codingPath: [any CodingKey] {
        state.path(parent: state.frame(frame).parent, component: state.frame(frame).component)
    }

    private func checkNotAtEnd() throws {
        guard currentIndex < itemCount else {
            let field = state.pathString(codingPath)
            throw StrataError(
                .typeMismatch,
                "\(state.entity) \(state.recordKey): field '\(field)' holds an array of \(itemCount) items, more were expected",
                entity: state.entity, field: field, key: state.recordKey)
        }
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd()
        guard state.reader.isNull(at: offset) else { return false }
        offset += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readBool(at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Bool")
        }
    }
    mutating func decode(_: String.Type) throws -> String {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readString(at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "String")
        }
    }
    mutating func decode(_: Double.Type) throws -> Double {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readDouble(at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Double")
        }
    }
    mutating func decode(_: Float.Type) throws -> Float {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readFloat(at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Float")
        }
    }
    mutating func decode(_: Int.Type) throws -> Int {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Int")
        }
    }
    mutating func decode(_: Int8.Type) throws -> Int8 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int8.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Int8")
        }
    }
    mutating func decode(_: Int16.Type) throws -> Int16 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int16.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Int16")
        }
    }
    mutating func decode(_: Int32.Type) throws -> Int32 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int32.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Int32")
        }
    }
    mutating func decode(_: Int64.Type) throws -> Int64 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(Int64.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Int64")
        }
    }
    mutating func decode(_: UInt.Type) throws -> UInt {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "UInt")
        }
    }
    mutating func decode(_: UInt8.Type) throws -> UInt8 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt8.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "UInt8")
        }
    }
    mutating func decode(_: UInt16.Type) throws -> UInt16 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt16.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "UInt16")
        }
    }
    mutating func decode(_: UInt32.Type) throws -> UInt32 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt32.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "UInt32")
        }
    }
    mutating func decode(_: UInt64.Type) throws -> UInt64 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger(UInt64.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "UInt64")
        }
    }
    mutating func decode(_: Int128.Type) throws -> Int128 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger128(Int128.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "Int128")
        }
    }
    mutating func decode(_: UInt128.Type) throws -> UInt128 {
        try checkNotAtEnd()
        do throws(CBORReadFailure) {
            let value = try state.reader.readInteger128(UInt128.self, at: &offset)
            currentIndex += 1
            return value
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "UInt128")
        }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkNotAtEnd()
        let value = try state.decodeValue(type, at: &offset, parent: frame, component: .index(currentIndex))
        currentIndex += 1
        return value
    }

    /// Moves past the next item, returning where it starts.
    private mutating func nextItem() throws -> Int {
        try checkNotAtEnd()
        let start = offset
        do throws(CBORReadFailure) {
            try state.reader.skipItem(at: &offset)
        } catch {
            throw state.failure(error, parent: frame, component: .index(currentIndex), expected: "")
        }
        currentIndex += 1
        return start
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let start = try nextItem()
        return try state.keyedContainer(keyedBy: type, at: start, parent: frame, component: .index(currentIndex - 1))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let start = try nextItem()
        return try state.unkeyedContainer(at: start, parent: frame, component: .index(currentIndex - 1))
    }

    mutating func superDecoder() throws -> any Decoder {
        let start = try nextItem()
        return RecordSlotDecoder(state: state, offset: start, parent: frame, component: .index(currentIndex - 1))
    }
}

/// The container of a value stored as a single item (raw-value enums, wrappers, Optional).
struct RecordSingleValueDecodingContainer: SingleValueDecodingContainer {
    let state: RecordDecodingState
    let offset: Int
    let parent: Int
    let component: RecordDecodingState.PathComponent

    var codingPath: [any CodingKey] { state.path(parent: parent, component: component) }

    func decodeNil() -> Bool { state.reader.isNull(at: offset) }

    func decode(_: Bool.Type) throws -> Bool {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readBool(at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Bool") }
    }
    func decode(_: String.Type) throws -> String {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readString(at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "String") }
    }
    func decode(_: Double.Type) throws -> Double {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readDouble(at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Double") }
    }
    func decode(_: Float.Type) throws -> Float {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readFloat(at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Float") }
    }
    func decode(_: Int.Type) throws -> Int {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Int") }
    }
    func decode(_: Int8.Type) throws -> Int8 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int8.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Int8") }
    }
    func decode(_: Int16.Type) throws -> Int16 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int16.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Int16") }
    }
    func decode(_: Int32.Type) throws -> Int32 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int32.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Int32") }
    }
    func decode(_: Int64.Type) throws -> Int64 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(Int64.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Int64") }
    }
    func decode(_: UInt.Type) throws -> UInt {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "UInt") }
    }
    func decode(_: UInt8.Type) throws -> UInt8 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt8.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "UInt8") }
    }
    func decode(_: UInt16.Type) throws -> UInt16 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt16.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "UInt16") }
    }
    func decode(_: UInt32.Type) throws -> UInt32 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt32.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "UInt32") }
    }
    func decode(_: UInt64.Type) throws -> UInt64 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger(UInt64.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "UInt64") }
    }
    func decode(_: Int128.Type) throws -> Int128 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger128(Int128.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "Int128") }
    }
    func decode(_: UInt128.Type) throws -> UInt128 {
        var offset = offset
        do throws(CBORReadFailure) { return try state.reader.readInteger128(UInt128.self, at: &offset) } catch { throw state.failure(error, parent: parent, component: component, expected: "UInt128") }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        var offset = offset
        return try state.decodeValue(type, at: &offset, parent: parent, component: component)
    }
}
