import Foundation

/// A value with an order-preserving byte encoding: for values a, b of the same type,
/// a < b ⇔ key(a) < key(b) bytewise.
///
/// LMDB orders keys by their bytes, so primary keys and index keys are stored in this encoding and range
/// scans follow value order. Encodings are self-delimiting, so a compound key is the plain concatenation
/// of its components' encodings and still compares component by component.
///
/// Each encoding is one type tag byte, then a payload whose bytewise order is the value order:
///
/// | tag    | type                                   | payload                                                   |
/// |--------|----------------------------------------|-----------------------------------------------------------|
/// | `0x00` | `nil` (Optional)                       | none: nil sorts before every value                        |
/// | `0x10` | `Bool`                                 | `0x00` false, `0x01` true                                 |
/// | `0x1F` | integer below `Int64.min` (`Int128`)   | 16 bytes big-endian, sign bit flipped (before every `0x20`) |
/// | `0x20` | every integer type, value in Int64 range | 8 bytes big-endian, sign bit flipped                    |
/// | `0x21` | unsigned integer above `Int64.max`     | 8 bytes big-endian (sorts after every `0x20` integer)      |
/// | `0x22` | integer above `UInt64.max` (`Int128`, `UInt128`) | 16 bytes big-endian (after every `0x21`)       |
/// | `0x30` | `Double`, `Float`                      | 8 bytes: IEEE bits, sign-flipped (-0.0 = +0.0, NaN last)  |
/// | `0x40` | `Date`                                 | as `Double`, of `timeIntervalSinceReferenceDate`          |
/// | `0x50` | `String`                               | UTF-8, `0x00` written as `0x00 0xFF`, then `0x00 0x00`    |
/// | `0x60` | `UUID`                                 | its 16 bytes                                              |
///
/// All integer widths share one encoding, so `Int32(5)` and `Int64(5)` give the same key.
public protocol IndexableValue: Sendable {
    /// Appends one type tag byte, then a payload whose bytewise order is the value order.
    func appendOrderedKey(to key: inout [UInt8])
    /// Reads one value that `appendOrderedKey` wrote, starting at `position`, and advances `position` past it.
    static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> Self
}

extension IndexableValue {
    /// This value's order-preserving key on its own.
    public var orderedKey: [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(16)
        appendOrderedKey(to: &key)
        return key
    }
}

/// The tag bytes and shared payload helpers of ``IndexableValue`` encodings.
@_spi(Format) public enum OrderedKey {
    package static let nilTag: UInt8 = 0x00
    static let boolTag: UInt8 = 0x10
    @usableFromInline package static let wideNegativeTag: UInt8 = 0x1F
    @usableFromInline package static let integerTag: UInt8 = 0x20
    @usableFromInline package static let largeUnsignedTag: UInt8 = 0x21
    @usableFromInline package static let wideUnsignedTag: UInt8 = 0x22
    static let doubleTag: UInt8 = 0x30
    static let dateTag: UInt8 = 0x40
    package static let stringTag: UInt8 = 0x50
    static let uuidTag: UInt8 = 0x60

    /// Whether key `a` sorts before key `b` bytewise (LMDB's default order), by `memcmp`: the
    /// generic `lexicographicallyPrecedes` walks element by element.
    @inline(__always)
    package static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let common = min(a.count, b.count)
        let order = a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common) }
        }
        return order != 0 ? order < 0 : a.count < b.count
    }

    /// Whether `a` and `b` hold the same bytes, by `memcmp` (the generic `==` of two arrays
    /// compares element by element).
    @inline(__always)
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    static func corrupt(_ reason: String, at position: Int) -> StrataError {
        StrataError(.corruptRecord, "corrupt key at byte \(position): \(reason)")
    }

    @inlinable @inline(__always)
    package static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        var shift = 56
        while shift >= 0 {
            key.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    @inline(__always)
    package static func readBigEndian(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt64 {
        guard key.count - position >= 8 else { throw corrupt("truncated 8-byte payload", at: position) }
        var value: UInt64 = 0
        for index in position..<(position + 8) { value = value << 8 | UInt64(key[index]) }
        position += 8
        return value
    }

    /// Reads the tag byte, which must be `tag`.
    @inline(__always)
    static func expectTag(_ tag: UInt8, _ type: String, in key: [UInt8], at position: inout Int) throws(StrataError) {
        guard position < key.count else { throw corrupt("missing \(type) value", at: position) }
        guard key[position] == tag else {
            throw corrupt("tag 0x\(String(key[position], radix: 16)) where a \(type) was expected", at: position)
        }
        position += 1
    }

    // Inlinable: generic, and called per index key from the upper target, which specializes it.
    @inlinable @inline(__always)
    package static func appendInteger<I: FixedWidthInteger>(_ value: I, to key: inout [UInt8]) {
        if let signed = Int64(exactly: value) {
            key.append(integerTag)
            appendBigEndian(UInt64(bitPattern: signed) ^ (1 << 63), to: &key)
        } else if let unsigned = UInt64(exactly: value) {
            key.append(largeUnsignedTag)
            appendBigEndian(unsigned, to: &key)
        } else {
            appendWideInteger(WideInteger(value), to: &key)
        }
    }

    /// An integer beyond 64 bits: `0x1F` and its `Int128` bits sign-flipped below `Int64.min`,
    /// `0x22` and its `UInt128` bits above `UInt64.max`.
    @usableFromInline package static func appendWideInteger(_ value: WideInteger, to key: inout [UInt8]) {
        if let signed = value.exactly(Int64.self) { return appendInteger(signed, to: &key) }
        if let unsigned = value.exactly(UInt64.self) { return appendInteger(unsigned, to: &key) }
        let bits: UInt128
        if value.isNegative {
            key.append(wideNegativeTag)
            bits = UInt128(bitPattern: value.exactly(Int128.self)!) ^ (1 << 127)
        } else {
            key.append(wideUnsignedTag)
            bits = value.magnitude
        }
        appendBigEndian(UInt64(truncatingIfNeeded: bits >> 64), to: &key)
        appendBigEndian(UInt64(truncatingIfNeeded: bits), to: &key)
    }

    static func readInteger<I: FixedWidthInteger>(_: I.Type, from key: [UInt8], at position: inout Int) throws(StrataError) -> I {
        let start = position
        if position < key.count, key[position] == integerTag {   // the common case, without the wide value
            position += 1
            let value = Int64(bitPattern: try readBigEndian(from: key, at: &position) ^ (1 << 63))
            guard let exact = I(exactly: value) else { throw corrupt("integer out of range for \(I.self)", at: start) }
            return exact
        }
        guard let value = try readWideInteger(from: key, at: &position).exactly(I.self) else {
            throw corrupt("integer out of range for \(I.self)", at: start)
        }
        return value
    }

    /// Reads an integer key of any width (tags `0x1F` through `0x22`).
    static func readWideInteger(from key: [UInt8], at position: inout Int) throws(StrataError) -> WideInteger {
        let start = position
        guard position < key.count else { throw corrupt("missing integer value", at: position) }
        let tag = key[position]
        position += 1
        switch tag {
        case integerTag:
            return WideInteger(Int64(bitPattern: try readBigEndian(from: key, at: &position) ^ (1 << 63)))
        case largeUnsignedTag:
            let raw = try readBigEndian(from: key, at: &position)
            guard raw > UInt64(Int64.max) else { throw corrupt("a large unsigned integer within Int64's range", at: start) }
            return WideInteger(raw)
        case wideNegativeTag, wideUnsignedTag:
            let high = try readBigEndian(from: key, at: &position), low = try readBigEndian(from: key, at: &position)
            let bits = UInt128(high) << 64 | UInt128(low)
            let value = tag == wideUnsignedTag ? WideInteger(bits) : WideInteger(Int128(bitPattern: bits ^ (1 << 127)))
            guard value.exactly(Int64.self) == nil, value.exactly(UInt64.self) == nil, tag == wideUnsignedTag || value.isNegative else {
                throw corrupt("a wide integer within 64 bits", at: start)
            }
            return value
        default:
            throw corrupt("tag 0x\(String(tag, radix: 16)) where an integer was expected", at: start)
        }
    }

    /// Appends a string's key: the tag, its UTF-8 bytes with `0x00` written as `0x00 0xFF`, then the
    /// `0x00 0x00` terminator. False as soon as `accepts` refuses a byte (`key` is then undefined):
    /// the index-key fast path over stored bytes takes ASCII alone (``IndexKey/appendText(utf8:collation:to:)``).
    @inline(__always)
    static func appendString<Bytes: Sequence<UInt8>>(_ utf8: Bytes, to key: inout [UInt8],
                                                     accepting accepts: (UInt8) -> Bool) -> Bool {
        key.append(stringTag)
        for byte in utf8 {
            guard accepts(byte) else { return false }
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        key.append(0)
        key.append(0)
        return true
    }

    /// The sign-flip transform: IEEE bits ordered like the numbers, -0.0 as +0.0, every NaN as one, last.
    @inline(__always)
    static func orderedBits(_ value: Double) -> UInt64 {
        if value.isNaN { return Double.nan.bitPattern ^ (1 << 63) }
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits ^ (1 << 63)
    }

    @inline(__always)
    static func double(fromOrderedBits ordered: UInt64) -> Double {
        Double(bitPattern: ordered & (1 << 63) != 0 ? ordered ^ (1 << 63) : ~ordered)
    }
}
