/// Reads CBOR items from untrusted bytes, checking every length against the buffer.
///
/// Offsets are plain indices into `bytes`; every read advances `offset` past what it consumed and
/// nothing is allocated from a length before that length has been checked against the bytes that remain.
@_spi(Format) public struct CBORReader: Sendable {
    @usableFromInline package let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// One item's initial byte split up, with its argument (length, value, tag number or float bits).
    public struct Head {
        public var major: CBOR.Major
        public var info: UInt8
        public var argument: UInt64

        @inlinable public init(major: CBOR.Major, info: UInt8, argument: UInt64) {
            self.major = major
            self.info = info
            self.argument = argument
        }
    }

    // Inlinable: the upper target reads a head per stored field (the record cursor's callers, the
    // index keys of a stored record), so its body must be there to inline.
    @inlinable @inline(__always)
    package func readHead(at offset: inout Int) throws(CBORReadFailure) -> Head {
        guard offset < bytes.count else { throw .corrupt(offset: offset, reason: "unexpected end of data") }
        let initial = bytes[offset]
        let major: CBOR.Major
        switch initial >> 5 {
        case 0: major = .unsigned
        case 1: major = .negative
        case 2: major = .bytes
        case 3: major = .text
        case 4: major = .array
        case 5: major = .map
        case 6: major = .tag
        default: major = .simple
        }
        let info = initial & 0x1F
        if info < 24 {
            offset += 1
            return Head(major: major, info: info, argument: UInt64(info))
        }
        let size: Int
        switch info {
        case 24: size = 1
        case 25: size = 2
        case 26: size = 4
        case 27: size = 8
        case 31: throw .corrupt(offset: offset, reason: "indefinite-length item (not used by Strata)")
        default: throw .corrupt(offset: offset, reason: "reserved additional information \(info)")
        }
        guard bytes.count - offset - 1 >= size else {
            throw .corrupt(offset: offset, reason: "truncated head (needs \(size) more bytes)")
        }
        // Unrolled big-endian reads: the bounds were checked above.
        let o = offset
        let argument: UInt64
        switch size {
        case 1: argument = UInt64(bytes[o + 1])
        case 2: argument = UInt64(bytes[o + 1]) << 8 | UInt64(bytes[o + 2])
        case 4: argument = be32(at: o + 1)
        default: argument = be32(at: o + 1) << 32 | be32(at: o + 5)
        }
        offset += 1 + size
        return Head(major: major, info: info, argument: argument)
    }

    @inlinable @inline(__always)
    package func be32(at index: Int) -> UInt64 {
        UInt64(bytes[index]) << 24 | UInt64(bytes[index + 1]) << 16 | UInt64(bytes[index + 2]) << 8 | UInt64(bytes[index + 3])
    }

    /// The number of payload bytes or child items a string, array or map head announces, checked
    /// against the bytes that remain (`perItem` is the least size of one announced unit).
    @inline(__always)
    @usableFromInline package func checkedLength(_ head: Head, at offset: Int, start: Int, perItem: Int) throws(CBORReadFailure) -> Int {
        let remaining = bytes.count - offset
        guard head.argument <= UInt64(remaining / perItem) else {
            throw .corrupt(offset: start, reason: "length \(head.argument) exceeds the \(remaining) bytes that remain")
        }
        return Int(head.argument)
    }

    /// `skipItem` with the common items handled inline: small integers, strings (up to 65,535 bytes), floats, simple
    /// values, each optionally behind small tags (dates, URLs), and short arrays of such items.
    @inlinable @inline(__always)
    package func skipItemQuickly(at offset: inout Int) throws(CBORReadFailure) {
        var position = offset
        var items = 1
        while items > 0, position < bytes.count {
            let initial = bytes[position]
            let info = Int(initial & 0x1F)
            let size: Int
            switch initial >> 5 {
            case 0, 1: size = info < 24 ? 1 : info <= 27 ? 1 + (1 << (info - 24)) : 0
            case 2, 3:
                // Strings of up to 65,535 bytes (a one- or two-byte length): an e-mail address or a
                // sentence is past the 23 bytes the head holds itself.
                if info < 24 {
                    size = 1 + info
                } else if info == 24, position + 1 < bytes.count {
                    size = 2 + Int(bytes[position + 1])
                } else if info == 25, position + 2 < bytes.count {
                    size = 3 + (Int(bytes[position + 1]) << 8 | Int(bytes[position + 2]))
                } else {
                    size = 0
                }
            case 4:
                // A short array at the top only: its items follow and are counted like the array itself.
                guard info < 24, items == 1, position == offset else { size = 0; break }
                items += info
                size = 1
            case 6:
                guard info < 24 else { size = 0; break }
                items += 1
                size = 1
            case 7: size = info < 24 ? 1 : info == 27 ? 9 : info == 26 ? 5 : info == 25 ? 3 : 0
            default: size = 0
            }
            guard size > 0, size <= bytes.count - position else { break }
            position += size
            items -= 1
        }
        if items == 0 {
            offset = position
            return
        }
        try skipItem(at: &offset)
    }

    /// Moves `offset` past one complete item, whatever it is, without recursion.
    @usableFromInline package func skipItem(at offset: inout Int) throws(CBORReadFailure) {
        var pending = 1
        while pending > 0 {
            pending -= 1
            let start = offset
            let head = try readHead(at: &offset)
            switch head.major {
            case .unsigned, .negative:
                break
            case .bytes, .text:
                offset += try checkedLength(head, at: offset, start: start, perItem: 1)
            case .array:
                pending += try checkedLength(head, at: offset, start: start, perItem: 1)
            case .map:
                pending += 2 * (try checkedLength(head, at: offset, start: start, perItem: 2))
            case .tag:
                pending += 1
            case .simple:
                break
            }
            // Children announced but not yet read each need at least one byte.
            guard pending <= bytes.count - offset else {
                throw .corrupt(offset: start, reason: "container announces more items than bytes remain")
            }
        }
    }

    /// The range of a text or byte string's payload, advancing past it.
    @inline(__always)
    package func readStringRange(_ major: CBOR.Major, at offset: inout Int) throws(CBORReadFailure) -> Range<Int> {
        let start = offset
        let head = try readHead(at: &offset)
        guard head.major == major else { throw .mismatch(offset: start, expected: "") }
        let length = try checkedLength(head, at: offset, start: start, perItem: 1)
        defer { offset += length }
        return offset..<(offset + length)
    }

    /// The range of the text string at `offset`, checked to be UTF-8 (ASCII cannot be malformed;
    /// anything else is validated, as ``readString(at:)`` does), for readers that copy the bytes
    /// rather than make a `String`.
    package func readValidTextRange(at offset: inout Int) throws(CBORReadFailure) -> Range<Int> {
        let start = offset
        let range = try readStringRange(.text, at: &offset)
        var bits: UInt8 = 0
        for index in range { bits |= bytes[index] }
        if bits >= 0x80, String(validating: bytes[range], as: UTF8.self) == nil {
            throw .corrupt(offset: start, reason: "text string is not valid UTF-8")
        }
        return range
    }

    @inline(__always)
    package func readString(at offset: inout Int) throws(CBORReadFailure) -> String {
        let start = offset
        let range = try readStringRange(.text, at: &offset)
        // ASCII cannot be malformed, and `String(decoding:)` is the fast path; anything else is
        // validated so that corrupt bytes fail rather than turn into replacement characters.
        var bits: UInt8 = 0
        for index in range { bits |= bytes[index] }
        if bits < 0x80 { return String(decoding: bytes[range], as: UTF8.self) }
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw .corrupt(offset: start, reason: "text string is not valid UTF-8")
        }
        return text
    }

    /// Reads an unsigned or negative integer, or a float holding a whole number, that `I` can hold exactly.
    @inline(__always)
    package func readInteger<I: FixedWidthInteger>(_: I.Type, at offset: inout Int) throws(CBORReadFailure) -> I {
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .unsigned:
            if let value = I(exactly: head.argument) { return value }
        case .negative:
            if head.argument <= UInt64(Int64.max), let value = I(exactly: -1 - Int64(head.argument)) { return value }
        case .simple where head.info >= 25 && head.info <= 27:
            let double = floatValue(head)
            if double.rounded(.towardZero) == double, let value = I(exactly: double) { return value }
        default:
            break
        }
        throw .mismatch(offset: start, expected: "")
    }

    /// Reads any float width, or an integer that a Double holds exactly.
    @inline(__always)
    package func readDouble(at offset: inout Int) throws(CBORReadFailure) -> Double {
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .simple where head.info >= 25 && head.info <= 27:
            return floatValue(head)
        case .unsigned:
            if let value = Double(exactly: head.argument) { return value }
        case .negative:
            if head.argument == .max { return -0x1p64 }
            if let magnitude = Double(exactly: head.argument + 1) { return -magnitude }
        default:
            break
        }
        throw .mismatch(offset: start, expected: "")
    }

    @inline(__always)
    package func floatValue(_ head: Head) -> Double {
        switch head.info {
        case 25: return CBOR.halfToDouble(UInt16(truncatingIfNeeded: head.argument))
        case 26: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: head.argument)))
        default: return Double(bitPattern: head.argument)
        }
    }

    @inline(__always)
    func readBool(at offset: inout Int) throws(CBORReadFailure) -> Bool {
        guard offset < bytes.count else { throw .corrupt(offset: offset, reason: "unexpected end of data") }
        switch bytes[offset] {
        case CBOR.trueByte: offset += 1; return true
        case CBOR.falseByte: offset += 1; return false
        default: throw .mismatch(offset: offset, expected: "")
        }
    }

    /// Whether the item at `offset` is null (or undefined), without moving.
    @inline(__always)
    func isNull(at offset: Int) -> Bool {
        offset < bytes.count && (bytes[offset] == CBOR.nullByte || bytes[offset] == CBOR.undefinedByte)
    }

    /// Reads a tag head with number `tag` if there is one; returns whether it was there.
    @inline(__always)
    func skipTag(_ tag: UInt64, at offset: inout Int) throws(CBORReadFailure) -> Bool {
        var probe = offset
        let head = try readHead(at: &probe)
        guard head.major == .tag else { return false }
        guard head.argument == tag else { throw .mismatch(offset: offset, expected: "") }
        offset = probe
        return true
    }

    /// A short phrase for error messages naming the item stored at `offset`.
    @usableFromInline func describeItem(at offset: Int) -> String {
        var position = offset
        guard let head = try? readHead(at: &position) else { return "corrupt data" }
        switch head.major {
        case .unsigned: return "the integer \(head.argument)"
        case .negative: return head.argument < UInt64(Int64.max) ? "the integer \(-1 - Int64(head.argument))" : "a negative integer"
        case .bytes: return "a byte string of \(head.argument) bytes"
        case .text:
            var probe = offset
            if let text = try? readString(at: &probe) {
                return "the text \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
            }
            return "a text string"
        case .array: return "an array of \(head.argument) items"
        case .map: return "a map of \(head.argument) entries"
        case .tag: return "a value with CBOR tag \(head.argument)"
        case .simple:
            switch head.info {
            case 20: return "false"
            case 21: return "true"
            case 22: return "null"
            case 23: return "undefined"
            case 25, 26, 27: return "the number \(floatValue(head))"
            default: return "the simple value \(head.argument)"
            }
        }
    }
}
