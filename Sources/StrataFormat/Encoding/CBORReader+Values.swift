import Foundation

/// Reads of the values CBOR has its own form for (see ``CBOR``), shared by the Codable decoder and
/// ``FieldReader``.
extension CBORReader {
    /// The value of type `T` at `offset` when `T` is one of the types CBOR has its own form for,
    /// moving `offset` past it; nil (and `offset` unchanged) for any other type.
    @inline(__always)
    func readPrimitive<T>(_: T.Type, at offset: inout Int) throws(CBORReadFailure) -> T? {
        guard let kind = CBOR.PrimitiveKind(of: T.self) else { return nil }
        return try readPrimitive(T.self, kind: kind, at: &offset)
    }

    /// The value at `offset` of `T`, whose kind is `kind`, moving `offset` past it.
    ///
    /// Unspecialized generic code should test the kind first and call this, rather than call the
    /// optional-returning form: a local `T?` makes the runtime look up `Optional<T>`'s metadata in
    /// its cache, on every call.
    /// Values are handed back with `exactly(_:as:)`, not `as? T`, for the same reason.
    @inline(__always)
    func readPrimitive<T>(_: T.Type, kind: CBOR.PrimitiveKind, at offset: inout Int) throws(CBORReadFailure) -> T {
        switch kind {
        case .string: return exactly(try readString(at: &offset), as: T.self)
        case .int: return exactly(try readInteger(Int.self, at: &offset), as: T.self)
        case .double: return exactly(try readDouble(at: &offset), as: T.self)
        case .date:
            if let (date, end) = fastDate(at: offset) {
                offset = end
                return exactly(date, as: T.self)
            }
            return exactly(try readDate(at: &offset), as: T.self)
        case .uuid: return exactly(try readUUID(at: &offset), as: T.self)
        case .data: return exactly(Data(bytes[try readStringRange(.bytes, at: &offset)]), as: T.self)
        case .url: return exactly(try readURL(at: &offset), as: T.self)
        case .decimal: return exactly(try readDecimal(at: &offset), as: T.self)
        case .strings:
            if let (strings, end) = fastStrings(at: offset) {
                offset = end
                return exactly(strings, as: T.self)
            }
            return exactly(try readStrings(at: &offset), as: T.self)
        case .bool: return exactly(try readBool(at: &offset), as: T.self)
        case .int64: return exactly(try readInteger(Int64.self, at: &offset), as: T.self)
        case .float: return exactly(try readFloat(at: &offset), as: T.self)
        }
    }

    /// `value` as `T`, which the caller has checked to be `Value`'s own type: a reinterpretation of
    /// the same bytes rather than a dynamic cast.
    @inline(__always)
    private func exactly<Value, T>(_ value: Value, as _: T.Type) -> T {
        assert(Value.self == T.self, "exactly(_:as:) called with \(Value.self) for \(T.self)")
        // Checked by the caller, so the sizes match and the bytes are a valid `T`.
        return unsafeBitCast(value, to: T.self)
    }

    func readDate(at offset: inout Int) throws(CBORReadFailure) -> Date {
        _ = try skipTag(CBOR.epochDateTag, at: &offset)
        return Date(timeIntervalSince1970: try readDouble(at: &offset))
    }

    func readUUID(at offset: inout Int) throws(CBORReadFailure) -> UUID {
        _ = try skipTag(CBOR.uuidTag, at: &offset)
        let start = offset
        let range = try readStringRange(.bytes, at: &offset)
        guard range.count == 16 else { throw .mismatch(offset: start, expected: "") }
        let b = bytes
        let i = range.lowerBound
        return UUID(uuid: (b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4], b[i + 5], b[i + 6], b[i + 7],
                           b[i + 8], b[i + 9], b[i + 10], b[i + 11], b[i + 12], b[i + 13], b[i + 14], b[i + 15]))
    }

    func readURL(at offset: inout Int) throws(CBORReadFailure) -> URL {
        _ = try skipTag(CBOR.uriTag, at: &offset)
        let start = offset
        guard let url = URL(string: try readString(at: &offset)) else { throw .mismatch(offset: start, expected: "") }
        return url
    }

    func readDecimal(at offset: inout Int) throws(CBORReadFailure) -> Decimal {
        let start = offset
        guard let decimal = Decimal(string: try readString(at: &offset)) else {
            throw .mismatch(offset: start, expected: "")
        }
        return decimal
    }

    func readFloat(at offset: inout Int) throws(CBORReadFailure) -> Float {
        let start = offset
        let double = try readDouble(at: &offset)
        if let float = Float(exactly: double) { return float }
        if double.isNaN { return .nan }
        throw .mismatch(offset: start, expected: "")
    }

    func readStrings(at offset: inout Int) throws(CBORReadFailure) -> [String] {
        let start = offset
        let head = try readHead(at: &offset)
        guard head.major == .array else { throw .mismatch(offset: start, expected: "") }
        let count = try checkedLength(head, at: offset, start: start, perItem: 1)
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try readString(at: &offset)) }
        return strings
    }
}
