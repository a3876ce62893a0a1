/// Unsigned LEB128 integers, the variable-length integers of every full-text layout: seven bits a
/// byte, least significant group first, the high bit set on every byte but the last.
///
/// Reading is strict: at most ten bytes, no bits beyond 64, and no needless trailing zero group
/// (each value has exactly one encoding, so re-encoding decoded bytes gives the same bytes).
package enum PostingVarint {
    /// Appends `value` to `bytes`.
    @inline(__always)
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// The number of bytes `value` takes.
    package static func size(of value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 { size += 1; rest >>= 7 }
        return size
    }
}

/// A reader of one stored structure's bytes, with the offset of what it reads next and the name
/// that its errors give.
package struct PostingBytesReader {
    /// The bytes.
    package let bytes: [UInt8]
    /// What the bytes are, for errors.
    package let structure: String
    /// The offset of the next byte to read.
    package var offset: Int
    /// The offset the structure ends at (the bytes' count, or a section's end).
    package var end: Int

    /// A reader of `bytes` from `offset` to `end` (the whole array by default).
    package init(_ bytes: [UInt8], structure: String, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.structure = structure
        self.offset = offset
        self.end = end ?? bytes.count
    }

    /// An error at `offset` (by default the reader's).
    package func failure(_ reason: String, at offset: Int? = nil) -> PostingsFormatError {
        PostingsFormatError(structure, offset: offset ?? self.offset, reason)
    }

    /// True when every byte up to `end` was read.
    package var isAtEnd: Bool { offset >= end }

    /// One byte.
    package mutating func byte() throws(PostingsFormatError) -> UInt8 {
        guard offset < end else { throw failure("unexpected end of data") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// One variable-length integer.
    @inline(__always)
    package mutating func varint() throws(PostingsFormatError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw failure("truncated integer", at: start) }
            let byte = bytes[offset]
            offset += 1
            if shift == 63 && byte > 1 { throw failure("integer larger than 64 bits", at: start) }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                if byte == 0 && shift > 0 { throw failure("integer with a needless zero group", at: start) }
                return value
            }
            shift += 7
        }
    }

    /// One variable-length integer in `range`, named `what` in the error.
    package mutating func varint(in range: ClosedRange<UInt64>, _ what: String) throws(PostingsFormatError) -> UInt64 {
        let start = offset
        let value = try varint()
        guard range.contains(value) else {
            throw failure("\(what) \(value) outside \(range.lowerBound)...\(range.upperBound)", at: start)
        }
        return value
    }

    /// A length of at most the bytes that remain, named `what` in the error.
    package mutating func length(_ what: String) throws(PostingsFormatError) -> Int {
        let start = offset
        let value = try varint()
        guard value <= UInt64(end - offset) else {
            throw failure("\(what) \(value) longer than the \(end - offset) bytes that remain", at: start)
        }
        return Int(value)
    }
}
