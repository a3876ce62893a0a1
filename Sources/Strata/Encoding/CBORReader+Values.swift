import Foundation

/// Reads of the values CBOR has its own form for (see ``CBOR``), shared by the Codable decoder and
/// ``FieldReader``.
extension CBORReader {
    /// The value of type `T` at `offset` when `T` is one of the types CBOR has its own form for,
    /// moving `offset` past it; nil (and `offset` unchanged) for any other type.
    @inline(__always)
    func readPrimitive<T>(_: T.Type, at offset: inout Int) throws(CBORReadFailure) -> T? {
        // Most frequent types first: every test is a metadata comparison.
        if T.self == String.self { return try readString(at: &offset) as? T }
        if T.self == Int.self { return try readInteger(Int.self, at: &offset) as? T }
        if T.self == Double.self { return try readDouble(at: &offset) as? T }
        if T.self == Date.self {
            if let (date, end) = fastDate(at: offset) {
                offset = end
                return date as? T
            }
            return try readDate(at: &offset) as? T
        }
        if T.self == UUID.self { return try readUUID(at: &offset) as? T }
        if T.self == Data.self { return Data(bytes[try readStringRange(.bytes, at: &offset)]) as? T }
        if T.self == URL.self { return try readURL(at: &offset) as? T }
        if T.self == Decimal.self { return try readDecimal(at: &offset) as? T }
        if ObjectIdentifier(T.self) == CBOR.stringArrayType {
            if let (strings, end) = fastStrings(at: offset) {
                offset = end
                return strings as? T
            }
            return try readStrings(at: &offset) as? T
        }
        if T.self == Bool.self { return try readBool(at: &offset) as? T }
        if T.self == Int64.self { return try readInteger(Int64.self, at: &offset) as? T }
        if T.self == Float.self { return try readFloat(at: &offset) as? T }
        return nil
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
