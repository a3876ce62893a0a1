import Foundation

extension Bool: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) {
        key.append(OrderedKey.boolTag)
        key.append(self ? 1 : 0)
    }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Bool {
        try OrderedKey.expectTag(OrderedKey.boolTag, "Bool", in: key, at: &position)
        guard position < key.count, key[position] <= 1 else { throw OrderedKey.corrupt("invalid Bool payload", at: position) }
        position += 1
        return key[position - 1] == 1
    }
}

extension Double: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) {
        key.append(OrderedKey.doubleTag)
        OrderedKey.appendBigEndian(OrderedKey.orderedBits(self), to: &key)
    }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Double {
        try OrderedKey.expectTag(OrderedKey.doubleTag, "Double", in: key, at: &position)
        return OrderedKey.double(fromOrderedBits: try OrderedKey.readBigEndian(from: key, at: &position))
    }
}

/// Encoded as the equal `Double`, so `Float` and `Double` keys of the same number are equal.
extension Float: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) { Double(self).appendOrderedKey(to: &key) }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Float {
        let start = position
        let double = try Double.readOrderedKey(from: key, at: &position)
        if let float = Float(exactly: double) { return float }
        if double.isNaN { return .nan }
        throw OrderedKey.corrupt("\(double) is not a Float", at: start)
    }
}

/// Encoded by `timeIntervalSinceReferenceDate`, Date's own storage, so the encoding loses nothing.
extension Date: IndexableValue {
    /// The key of the date as stored: records keep dates as seconds since 1970 in a float64 (CBOR
    /// tag 1), which holds about a quarter of a microsecond less precision than `Date` itself in
    /// this era, so the key is made from that value. A record's in-memory date and the same date
    /// read back from its stored bytes then give one key, and index entries can be found again.
    public func appendOrderedKey(to key: inout [UInt8]) {
        key.append(OrderedKey.dateTag)
        OrderedKey.appendBigEndian(OrderedKey.orderedBits(storedTimeIntervalSinceReferenceDate), to: &key)
    }

    /// `timeIntervalSinceReferenceDate` as it reads back from the stored seconds since 1970:
    /// the value that keys and comparisons use. Idempotent.
    package var storedTimeIntervalSinceReferenceDate: Double {
        Date(timeIntervalSince1970: timeIntervalSince1970).timeIntervalSinceReferenceDate
    }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Date {
        try OrderedKey.expectTag(OrderedKey.dateTag, "Date", in: key, at: &position)
        let bits = try OrderedKey.readBigEndian(from: key, at: &position)
        return Date(timeIntervalSinceReferenceDate: OrderedKey.double(fromOrderedBits: bits))
    }
}

/// UTF-8 with `0x00` escaped as `0x00 0xFF` and a `0x00 0x00` terminator: a prefix sorts before its
/// extensions and a string followed by more key components still compares on the string first.
extension String: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) {
        _ = OrderedKey.appendString(utf8, to: &key) { _ in true }
    }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> String {
        let start = position
        try OrderedKey.expectTag(OrderedKey.stringTag, "String", in: key, at: &position)
        var bytes: [UInt8] = []
        while true {
            guard position < key.count else { throw OrderedKey.corrupt("unterminated string", at: start) }
            let byte = key[position]
            position += 1
            if byte != 0 {
                bytes.append(byte)
                continue
            }
            guard position < key.count else { throw OrderedKey.corrupt("unterminated string", at: start) }
            let next = key[position]
            position += 1
            if next == 0 { break }
            guard next == 0xFF else { throw OrderedKey.corrupt("invalid escape in string", at: position - 2) }
            bytes.append(0)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw OrderedKey.corrupt("string is not valid UTF-8", at: start)
        }
        return text
    }
}

extension UUID: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) {
        let u = uuid
        key.append(OrderedKey.uuidTag)
        key.append(contentsOf: [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
    }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> UUID {
        try OrderedKey.expectTag(OrderedKey.uuidTag, "UUID", in: key, at: &position)
        guard key.count - position >= 16 else { throw OrderedKey.corrupt("truncated UUID", at: position) }
        let b = key
        let i = position
        position += 16
        return UUID(uuid: (b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4], b[i + 5], b[i + 6], b[i + 7],
                           b[i + 8], b[i + 9], b[i + 10], b[i + 11], b[i + 12], b[i + 13], b[i + 14], b[i + 15]))
    }
}

/// `nil` is the single tag byte `0x00`, below every value's tag. (`Optional<Optional<T>>.some(nil)`
/// encodes like `nil`.)
extension Optional: IndexableValue where Wrapped: IndexableValue {
    public func appendOrderedKey(to key: inout [UInt8]) {
        switch self {
        case .none: key.append(OrderedKey.nilTag)
        case .some(let value): value.appendOrderedKey(to: &key)
        }
    }

    public static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Wrapped? {
        guard position < key.count else { throw OrderedKey.corrupt("missing value", at: position) }
        if key[position] == OrderedKey.nilTag {
            position += 1
            return nil
        }
        return try Wrapped.readOrderedKey(from: key, at: &position)
    }
}
