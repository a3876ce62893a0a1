import Foundation

/// A coding key rebuilt from stored data for `codingPath` and error messages.
struct RecordPathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    /// An array position rather than a key.
    var isIndex = false

    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    init(index: Int) {
        self.init(intValue: index)
        isIndex = true
    }
}

extension RecordDecodingState {
    /// Decodes one value at `offset` and moves `offset` past it: directly for the types CBOR has its own
    /// form for, through `T.init(from:)` otherwise.
    func decodeValue<T: Decodable>(
        _: T.Type, at offset: inout Int, parent: Int, component: PathComponent
    ) throws -> T {
        let start = offset
        do throws(CBORReadFailure) {
            if T.self == String.self { return try reader.readString(at: &offset) as! T }
            if T.self == Int.self { return try reader.readInteger(Int.self, at: &offset) as! T }
            if T.self == Double.self { return try reader.readDouble(at: &offset) as! T }
            if T.self == Date.self { return try readDate(at: &offset) as! T }
            if T.self == UUID.self { return try readUUID(at: &offset) as! T }
            if T.self == Data.self { return Data(reader.bytes[try reader.readStringRange(.bytes, at: &offset)]) as! T }
            if T.self == URL.self { return try readURL(at: &offset) as! T }
            if T.self == Decimal.self { return try readDecimal(at: &offset) as! T }
            if ObjectIdentifier(T.self) == CBOR.stringArrayType { return try readStrings(at: &offset) as! T }
            if T.self == Bool.self { return try reader.readBool(at: &offset) as! T }
            if T.self == Int64.self { return try reader.readInteger(Int64.self, at: &offset) as! T }
            if T.self == Float.self { return try readFloat(at: &offset) as! T }
            try reader.skipItem(at: &offset)
        } catch {
            throw failure(error, parent: parent, component: component, expected: "\(T.self)")
        }
        return try decodeNested(T.self, at: start, parent: parent, component: component)
    }

    /// Runs `T.init(from:)` with this decoder pointed at the value at `offset`.
    private func decodeNested<T: Decodable>(
        _: T.Type, at offset: Int, parent: Int, component: PathComponent
    ) throws -> T {
        guard depth < CBOR.maximumDepth else {
            throw failure(.corrupt(offset: offset, reason: "values nested deeper than \(CBOR.maximumDepth) levels"),
                          parent: parent, component: component, expected: "")
        }
        let saved = (slotOffset, slotParent, slotComponent)
        slotOffset = offset
        slotParent = parent
        slotComponent = component
        depth += 1
        defer {
            depth -= 1
            (slotOffset, slotParent, slotComponent) = saved
        }
        return try T(from: self)
    }

    func readDate(at offset: inout Int) throws(CBORReadFailure) -> Date {
        _ = try reader.skipTag(CBOR.epochDateTag, at: &offset)
        return Date(timeIntervalSince1970: try reader.readDouble(at: &offset))
    }

    func readUUID(at offset: inout Int) throws(CBORReadFailure) -> UUID {
        _ = try reader.skipTag(CBOR.uuidTag, at: &offset)
        let start = offset
        let range = try reader.readStringRange(.bytes, at: &offset)
        guard range.count == 16 else { throw .mismatch(offset: start, expected: "") }
        let b = reader.bytes
        let i = range.lowerBound
        return UUID(uuid: (b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4], b[i + 5], b[i + 6], b[i + 7],
                           b[i + 8], b[i + 9], b[i + 10], b[i + 11], b[i + 12], b[i + 13], b[i + 14], b[i + 15]))
    }

    func readURL(at offset: inout Int) throws(CBORReadFailure) -> URL {
        _ = try reader.skipTag(CBOR.uriTag, at: &offset)
        let start = offset
        guard let url = URL(string: try reader.readString(at: &offset)) else { throw .mismatch(offset: start, expected: "") }
        return url
    }

    func readDecimal(at offset: inout Int) throws(CBORReadFailure) -> Decimal {
        let start = offset
        guard let decimal = Decimal(string: try reader.readString(at: &offset)) else {
            throw .mismatch(offset: start, expected: "")
        }
        return decimal
    }

    func readFloat(at offset: inout Int) throws(CBORReadFailure) -> Float {
        let start = offset
        let double = try reader.readDouble(at: &offset)
        if let float = Float(exactly: double) { return float }
        if double.isNaN { return .nan }
        throw .mismatch(offset: start, expected: "")
    }

    func readStrings(at offset: inout Int) throws(CBORReadFailure) -> [String] {
        let start = offset
        let head = try reader.readHead(at: &offset)
        guard head.major == .array else { throw .mismatch(offset: start, expected: "") }
        let count = try reader.checkedLength(head, at: offset, start: start, perItem: 1)
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try reader.readString(at: &offset)) }
        return strings
    }

    // MARK: Errors

    /// A `StrataError` for a read failure of the value at `component` of frame `parent`.
    func failure(_ failure: CBORReadFailure, parent: Int, component: PathComponent, expected: String) -> StrataError {
        let field = pathString(path(parent: parent, component: component))
        switch failure {
        case .corrupt(let offset, let reason):
            let place = field.isEmpty ? "" : " (field '\(field)')"
            return StrataError(
                .corruptRecord, "\(entity) \(recordKey): corrupt record at byte \(offset)\(place): \(reason)",
                entity: entity, field: field.isEmpty ? nil : field, key: recordKey)
        case .mismatch(let offset, _):
            let subject = field.isEmpty ? "the record" : "field '\(field)'"
            return StrataError(
                .typeMismatch,
                "\(entity) \(recordKey): \(subject) holds \(reader.describeItem(at: offset)), expected \(expected)",
                entity: entity, field: field.isEmpty ? nil : field, key: recordKey)
        }
    }

    /// A `.missingField` error for `key` of keyed container `frame`.
    func missing(_ key: some CodingKey, frame: Int) -> StrataError {
        let field = pathString(path(parent: self.frame(frame).parent, component: self.frame(frame).component) + [key])
        return StrataError(
            .missingField,
            "\(entity) \(recordKey): the stored record has no field '\(field)' (it was stored before the field existed; make the field optional to read such records)",
            entity: entity, field: field, key: recordKey)
    }

    /// Wraps an error thrown by a type's own `init(from:)`, keeping it as the cause.
    func wrap(_ error: DecodingError) -> StrataError {
        let code: StrataError.Code
        let context: DecodingError.Context
        var path: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let c): code = .missingField; context = c; path = c.codingPath + [key]
        case .valueNotFound(_, let c): code = .typeMismatch; context = c; path = c.codingPath
        case .typeMismatch(_, let c): code = .typeMismatch; context = c; path = c.codingPath
        case .dataCorrupted(let c): code = .typeMismatch; context = c; path = c.codingPath
        @unknown default: return StrataError(.typeMismatch, "\(entity) \(recordKey): \(error)", entity: entity, key: recordKey, cause: error)
        }
        let field = pathString(path)
        let subject = field.isEmpty ? "" : "field '\(field)': "
        return StrataError(
            code, "\(entity) \(recordKey): \(subject)\(context.debugDescription)",
            entity: entity, field: field.isEmpty ? nil : field, key: recordKey, cause: error)
    }

    /// The coding path of the value at `component` of frame `parent`, outermost key first.
    func path(parent: Int, component: PathComponent) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var frame = parent
        var current = component
        while true {
            switch current {
            case .none: break
            case .entry(let entry): keys.append(RecordPathKey(stringValue: keyName(ofEntry: entry, topLevel: self.frame(frame).isTopLevel)))
            case .index(let index): keys.append(RecordPathKey(index: index))
            case .key(let offset): keys.append(RecordPathKey(stringValue: keyName(at: offset)))
            }
            guard frame >= 0 else { break }
            current = self.frame(frame).component
            frame = self.frame(frame).parent
        }
        return keys.reversed()
    }

    /// `address.city`, `tags[2]`.
    func pathString(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let key = key as? RecordPathKey, key.isIndex {
                text += "[\(key.intValue ?? 0)]"
            } else if key.stringValue.hasPrefix("Index "), let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}
