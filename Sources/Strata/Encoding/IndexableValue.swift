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
/// | `0x20` | every integer type, value in Int64 range | 8 bytes big-endian, sign bit flipped                    |
/// | `0x21` | unsigned integer above `Int64.max`     | 8 bytes big-endian (sorts after every `0x20` integer)      |
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
enum OrderedKey {
    static let nilTag: UInt8 = 0x00
    static let boolTag: UInt8 = 0x10
    static let integerTag: UInt8 = 0x20
    static let largeUnsignedTag: UInt8 = 0x21
    static let doubleTag: UInt8 = 0x30
    static let dateTag: UInt8 = 0x40
    static let stringTag: UInt8 = 0x50
    static let uuidTag: UInt8 = 0x60

    /// Whether key `a` sorts before key `b` bytewise (LMDB's default order), by `memcmp`: the
    /// generic `lexicographicallyPrecedes` walks element by element.
    @inline(__always)
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let common = min(a.count, b.count)
        let order = a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common) }
        }
        return order != 0 ? order < 0 : a.count < b.count
    }

    static func corrupt(_ reason: String, at position: Int) -> StrataError {
        StrataError(.corruptRecord, "corrupt key at byte \(position): \(reason)")
    }

    @inline(__always)
    static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        var shift = 56
        while shift >= 0 {
            key.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    @inline(__always)
    static func readBigEndian(from key: [UInt8], at position: inout Int) throws(StrataError) -> UInt64 {
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

    @inline(__always)
    static func appendInteger<I: FixedWidthInteger>(_ value: I, to key: inout [UInt8]) {
        if let signed = Int64(exactly: value) {
            key.append(integerTag)
            appendBigEndian(UInt64(bitPattern: signed) ^ (1 << 63), to: &key)
        } else {
            key.append(largeUnsignedTag)
            appendBigEndian(UInt64(truncatingIfNeeded: value), to: &key)
        }
    }

    static func readInteger<I: FixedWidthInteger>(_: I.Type, from key: [UInt8], at position: inout Int) throws(StrataError) -> I {
        let start = position
        guard position < key.count else { throw corrupt("missing integer value", at: position) }
        let tag = key[position]
        position += 1
        let value: I?
        switch tag {
        case integerTag:
            value = I(exactly: Int64(bitPattern: try readBigEndian(from: key, at: &position) ^ (1 << 63)))
        case largeUnsignedTag:
            let raw = try readBigEndian(from: key, at: &position)
            value = raw > UInt64(Int64.max) ? I(exactly: raw) : nil
        default:
            throw corrupt("tag 0x\(String(tag, radix: 16)) where an integer was expected", at: start)
        }
        guard let value else { throw corrupt("integer out of range for \(I.self)", at: start) }
        return value
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
