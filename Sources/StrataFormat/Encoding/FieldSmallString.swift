/// Short ASCII strings made directly in the standard library's small-string form.
///
/// A string of at most 15 UTF-8 bytes is stored inline in the `String` value itself: on 64-bit
/// little-endian platforms the bytes in order, then a discriminator byte in the top byte of the
/// second word, `0xE0 | count` for ASCII. `String(decoding:as:)` reaches that form after a
/// validation pass and several calls, a large part of decoding a record; built here it is a copy
/// and an or.
///
/// The layout is the standard library's, not a promise: it is checked once per process against
/// strings the standard library made (``layoutHolds``), bit for bit, and when it differs the fast
/// path is never taken. A string made here is immortal (no reference count, no storage), so the
/// check's success means the values are exactly what the standard library itself would produce.
enum FieldSmallString {
    /// The longest string stored inline.
    static let capacity = 15

    /// Whether strings made by ``make(_:)`` are bit for bit those the standard library makes.
    static let layoutHolds: Bool = {
        guard MemoryLayout<String>.size == 16, MemoryLayout<(UInt64, UInt64)>.size == 16 else { return false }
        let sample: [UInt8] = Array("Strata ASCII 15".utf8)
        for length in 0...capacity {
            let bytes = Array(sample.prefix(length))
            let expected = String(decoding: bytes, as: UTF8.self)
            let made: (UInt64, UInt64)? = bytes.withUnsafeBufferPointer { bits(of: $0) }
            guard let made, made == unsafeBitCast(expected, to: (UInt64, UInt64).self) else { return false }
        }
        return true
    }()

    /// The raw representation of `bytes` as a small ASCII string, or nil when a byte is not ASCII.
    /// `bytes.count` must be at most ``capacity``.
    @inline(__always)
    static func bits(of bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            // SAFETY: at most 15 bytes into 16.
            if let base = bytes.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
        }
        guard (words.0 | words.1) & 0x8080_8080_8080_8080 == 0 else { return nil }
        words.1 |= UInt64(0xE0 | bytes.count) << 56
        return words
    }

    /// `bytes` (at most ``capacity`` of them) as a string, or nil when a byte is not ASCII or the
    /// layout check failed.
    @inline(__always)
    static func make(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count <= capacity, layoutHolds, let words = bits(of: bytes) else { return nil }
        // The words are those of a small ASCII string the standard library makes (`layoutHolds`).
        return unsafeBitCast(words, to: String.self)
    }
}
