/// The stored key of a record: the one encoder of primary keys, for typed keys (`Record.PrimaryKey`)
/// and for keys given as query values (the importer, the tool, a replica's checks).
///
/// A primary key is stored as its value's order-preserving key (``IndexableValue``, tags and payloads in
/// the storage-format article); a compound key (several fields) is its parts' keys one after another, as
/// a compound index keys its entries. The key of a query value is the index key of the value in a
/// binary-collated field of its kind (``IndexKey/encode(_:kind:collation:)``), which is the key its
/// Swift type writes.
///
/// Inside, a fast path writes `Int64` and `Int` keys (the common primary keys) on the stack, nine
/// bytes in one store, without the integer walk of the general path; `PrimaryKeyEncoderTests` hold
/// it to the general path's bytes. LMDB's key size limit is checked by the callers, who name the
/// entity and the input in their messages.
@_spi(Format) public enum PrimaryKeyEncoder {
    /// The key bytes of `key`.
    @inlinable @inline(__always)
    public static func encode<K: IndexableValue>(_ key: K) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        append(key, to: &bytes)
        return bytes
    }

    /// Appends the key bytes of `key` to `bytes`.
    @inlinable @inline(__always)
    public static func append<K: IndexableValue>(_ key: K, to bytes: inout [UInt8]) {
        if let value = integerValue(key) {
            withIntegerKey(value) { bytes.append(contentsOf: $0) }
        } else {
            key.appendOrderedKey(to: &bytes)
        }
    }

    /// Calls `body` with the key bytes of `key`, valid only during the call: an integer key on the
    /// stack, any other written into `buffer` (emptied first, its storage kept).
    @inlinable @inline(__always)
    public static func withBytes<K: IndexableValue, R>(of key: K, buffer: inout [UInt8],
                                                       _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let value = integerValue(key) { return try withIntegerKey(value, body) }
        buffer.removeAll(keepingCapacity: true)
        key.appendOrderedKey(to: &buffer)
        return try buffer.withUnsafeBytes(body)
    }

    /// The key bytes of a query value in a primary key field of `kind`, or nil when the value
    /// has no key (lists, data).
    package static func encode(_ value: QueryValue, kind: ValueKind) -> [UInt8]? {
        if case .int(let integer) = value, kind != .double {
            // What the general path writes for an integer (a double field keys it as a double).
            var bytes: [UInt8] = []
            bytes.reserveCapacity(9)
            append(integer, to: &bytes)
            return bytes
        }
        return IndexKey.encode(value, kind: kind, collation: .binary)
    }

    /// Appends the key bytes of a query value in a primary key field of `kind` (one part of a
    /// compound key) to `bytes`; false, `bytes` unchanged, when the value has no key.
    package static func append(_ value: QueryValue, kind: ValueKind, to bytes: inout [UInt8]) -> Bool {
        guard let part = encode(value, kind: kind) else { return false }
        bytes.append(contentsOf: part)
        return true
    }

    /// The key bytes of `key` by the general path alone (`appendOrderedKey`), which the fast path
    /// is tested against.
    static func generalBytes<K: IndexableValue>(_ key: K) -> [UInt8] {
        var bytes: [UInt8] = []
        key.appendOrderedKey(to: &bytes)
        return bytes
    }

    /// `key` as an `Int64` when `K` is `Int64` or `Int` (the fast path's types), else nil.
    @inlinable @inline(__always)
    static func integerValue<K: IndexableValue>(_ key: K) -> Int64? {
        // Metatype comparisons, folded away where `K` is known; the casts are then of a type to itself.
        if K.self == Int64.self { return unsafeBitCast(key, to: Int64.self) }
        if K.self == Int.self { return Int64(unsafeBitCast(key, to: Int.self)) }
        return nil
    }

    /// Calls `body` with the nine key bytes of the integer `value` (`0x20`, then the value with its
    /// sign bit flipped, big-endian), written on the stack.
    @inlinable @inline(__always)
    static func withIntegerKey<R>(_ value: Int64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var storage: (UInt64, UInt64) = (0, 0)
        return try withUnsafeMutableBytes(of: &storage) { raw in
            raw[0] = OrderedKey.integerTag
            raw.storeBytes(of: (UInt64(bitPattern: value) ^ (1 << 63)).bigEndian, toByteOffset: 1, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: raw[0..<9]))
        }
    }
}
