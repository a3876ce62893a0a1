import Foundation

/// Reads of the forms Strata itself writes, for the decoders' fast paths: each returns the value
/// and the offset just past it, or nil for anything else (another form, a wrong type, bytes that
/// end early), which the caller then reads through the general, error-reporting path. Nothing
/// here throws or allocates before a length has been checked against the bytes.
extension CBORReader {
    /// Eight bytes at `index` as a big-endian integer; the caller has checked that they are there.
    @inline(__always)
    func be64(at index: Int) -> UInt64 {
        // SAFETY: the caller checked `index + 8 <= bytes.count`; the pointer does not leave the closure.
        bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: index, as: UInt64.self)) }
    }

    /// An unsigned or negative integer with its argument inline or in 1, 2, 4 or 8 bytes, as a
    /// signed 64-bit value; nil for other items and for magnitudes beyond `Int64`.
    @inline(__always)
    func fastInt64(at offset: Int) -> (value: Int64, end: Int)? {
        guard offset >= 0, offset < bytes.count else { return nil }
        let initial = bytes[offset]
        let info = initial & 0x1F
        let major = initial >> 5
        guard major <= 1 else { return nil }
        var argument: UInt64
        var end: Int
        if info < 24 {
            argument = UInt64(info)
            end = offset + 1
        } else if info == 24 {
            guard bytes.count - offset >= 2 else { return nil }
            argument = UInt64(bytes[offset + 1])
            end = offset + 2
        } else if info <= 27 {
            let size = 1 << Int(info - 24)
            guard bytes.count - offset > size else { return nil }
            // SAFETY: `offset + 1 + size <= bytes.count` was checked; the pointer does not leave the closure.
            argument = bytes.withUnsafeBytes { raw in
                switch size {
                case 2: UInt64(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt16.self)))
                case 4: UInt64(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self)))
                default: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self))
                }
            }
            end = offset + 1 + size
        } else {
            return nil
        }
        guard argument <= UInt64(Int64.max) else { return nil }
        let value = Int64(argument)
        return (major == 0 ? value : -1 - value, end)
    }

    /// ``fastInt64(at:)`` as an `Int`.
    @inline(__always)
    func fastInt(at offset: Int) -> (value: Int, end: Int)? {
        guard let (value, end) = fastInt64(at: offset), let int = Int(exactly: value) else { return nil }
        return (int, end)
    }

    /// A float64 (how Doubles are written), or an integer a Double holds exactly.
    @inline(__always)
    func fastDouble(at offset: Int) -> (value: Double, end: Int)? {
        guard offset >= 0, offset < bytes.count else { return nil }
        if bytes[offset] == CBOR.float64Byte {
            guard bytes.count - offset >= 9 else { return nil }
            return (Double(bitPattern: be64(at: offset + 1)), offset + 9)
        }
        guard let (integer, end) = fastInt64(at: offset) else { return nil }
        // Integers up to 2^53 in magnitude are exact Doubles (whole-second dates are such integers);
        // beyond, `Double(exactly:)` decides.
        if integer.magnitude <= 1 << 53 { return (Double(integer), end) }
        guard let double = Double(exactly: integer) else { return nil }
        return (double, end)
    }

    /// A date: tag 1 and epoch seconds, as an integer (whole seconds) or a float64.
    @inline(__always)
    func fastDate(at offset: Int) -> (value: Date, end: Int)? {
        guard offset >= 0, offset < bytes.count, bytes[offset] == 0xC0 | UInt8(CBOR.epochDateTag) else { return nil }
        guard let (seconds, end) = fastDouble(at: offset + 1) else { return nil }
        return (Date(timeIntervalSince1970: seconds), end)
    }

    /// True or false.
    @inline(__always)
    func fastBool(at offset: Int) -> (value: Bool, end: Int)? {
        guard offset >= 0, offset < bytes.count else { return nil }
        switch bytes[offset] {
        case CBOR.trueByte: return (true, offset + 1)
        case CBOR.falseByte: return (false, offset + 1)
        default: return nil
        }
    }

    /// A text string shorter than 256 bytes (a head of one or two bytes) holding ASCII, which
    /// cannot be malformed UTF-8; other texts take the validating path.
    @inline(__always)
    func fastString(at offset: Int) -> (value: String, end: Int)? {
        guard offset >= 0, offset < bytes.count else { return nil }
        let initial = bytes[offset]
        let start: Int
        let length: Int
        if initial >= 0x60 && initial < 0x78 {
            start = offset + 1
            length = Int(initial & 0x1F)
        } else if initial == 0x78, offset + 1 < bytes.count {
            start = offset + 2
            length = Int(bytes[offset + 1])
        } else {
            return nil
        }
        guard length <= bytes.count - start else { return nil }
        // SAFETY: `start..<start + length` was checked to lie within the bytes; the pointers do not
        // leave the closure, and the string owns a copy.
        let string: String? = bytes.withUnsafeBufferPointer { buffer in
            let source = UnsafeBufferPointer(rebasing: buffer[start..<(start + length)])
            if length <= FieldSmallString.capacity && FieldSmallString.layoutHolds {
                return FieldSmallString.make(source)   // nil when not ASCII
            }
            guard Self.isASCII(source) else { return nil }
            return Self.asciiString(source)
        }
        guard let string else { return nil }
        return (string, start + length)
    }

    /// Whether every byte of `bytes` is below 0x80, eight bytes at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var bits: UInt64 = 0
        var index = 0
        while raw.count - index >= 8 {
            bits |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < raw.count {
            bits |= UInt64(raw[index])
            index += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    /// A string of ASCII bytes (checked by the caller) longer than a small string, made in its
    /// storage directly (the standard library validates it once more; short ones are made by
    /// ``FieldSmallString``).
    @inline(__always)
    static func asciiString(_ source: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: source.count) { target in
            guard let from = source.baseAddress, let to = target.baseAddress else { return 0 }
            to.initialize(from: from, count: source.count)
            return source.count
        }
    }

    /// An array of fewer than 24 such texts.
    @inline(__always)
    func fastStrings(at offset: Int) -> (value: [String], end: Int)? {
        guard offset >= 0, offset < bytes.count else { return nil }
        let initial = bytes[offset]
        guard initial >= 0x80 && initial < 0x98 else { return nil }
        let count = Int(initial & 0x1F)
        guard count <= bytes.count - offset - 1 else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(count)
        var position = offset + 1
        for _ in 0..<count {
            guard let (string, end) = fastString(at: position) else { return nil }
            strings.append(string)
            position = end
        }
        return (strings, position)
    }
}
