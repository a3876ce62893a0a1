/// The stored key of an `Int64` or `Int` primary key, built on the stack: the bytes
/// `appendOrderedKey` writes (the integer tag, then the value with its sign bit flipped, big-endian),
/// without an array. Point reads use it for the common integer keys.
package struct IntegerRecordKey {
    /// Nine bytes used of sixteen.
    private var storage: (UInt64, UInt64) = (0, 0)

    /// The key of `key`, or nil when `K` is neither `Int64` nor `Int`.
    @inline(__always)
    package init?<K: IndexableValue>(_ key: K) {
        let value: Int64
        // Metatype comparisons, folded away where `K` is known; the casts are then of a type to itself.
        if K.self == Int64.self {
            value = unsafeBitCast(key, to: Int64.self)
        } else if K.self == Int.self {
            value = Int64(unsafeBitCast(key, to: Int.self))
        } else {
            return nil
        }
        withUnsafeMutableBytes(of: &storage) { raw in
            raw[0] = OrderedKey.integerTag
            raw.storeBytes(of: (UInt64(bitPattern: value) ^ (1 << 63)).bigEndian, toByteOffset: 1, as: UInt64.self)
        }
    }

    /// Calls `body` with the key's bytes, valid only during the call.
    @inline(__always)
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var copy = storage
        return try withUnsafeBytes(of: &copy) { raw in try body(UnsafeRawBufferPointer(rebasing: raw[0..<9])) }
    }

    /// The bytes as an array (for tests).
    var bytes: [UInt8] { withBytes { Array($0) } }
}
