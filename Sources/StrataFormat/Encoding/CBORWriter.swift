/// Appends CBOR (RFC 8949) data items to a growing byte buffer.
///
/// Every head uses the shortest length form (preferred serialization), so equal values always give equal
/// bytes. Lengths are never indefinite: `cbor2` and any other decoder read the output without extensions.
package struct CBORWriter: Sendable {
    /// The bytes written so far.
    package var bytes: [UInt8]
    /// The first date written outside ``DateParsing/storableRange``: where its tag starts, and its
    /// seconds. The record encoder refuses the record, naming the field (see DateRangeCheck.swift).
    var outOfRangeDate: (offset: Int, seconds: Double)?

    package init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { bytes.count }

    /// Appends a head: the major type in the top three bits, then `value` in the shortest form.
    @inline(__always)
    package mutating func writeHead(_ major: CBOR.Major, _ value: UInt64) {
        let m = major.rawValue << 5
        if value < 24 {
            bytes.append(m | UInt8(truncatingIfNeeded: value))
        } else if value <= 0xFF {
            bytes.append(m | 24)
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value <= 0xFFFF {
            bytes.append(m | 25)
            appendBigEndian(UInt16(truncatingIfNeeded: value))
        } else if value <= 0xFFFF_FFFF {
            bytes.append(m | 26)
            appendBigEndian(UInt32(truncatingIfNeeded: value))
        } else {
            bytes.append(m | 27)
            appendBigEndian(value)
        }
    }

    @inline(__always)
    mutating func appendBigEndian<I: FixedWidthInteger>(_ value: I) {
        var shift = I.bitWidth - 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }

    /// Writes `value` in its shortest form, whatever its width: a type wider than 64 bits
    /// (`Int128`, `UInt128`) goes through the wide form, which writes a bignum where the value
    /// needs one, so no caller can truncate it by calling this from generic code.
    @inline(__always)
    package mutating func writeInteger<I: FixedWidthInteger>(_ value: I) {
        if I.bitWidth > 64 {
            writeInteger(WideInteger(value))
            return
        }
        if value >= 0 {
            writeHead(.unsigned, UInt64(truncatingIfNeeded: value))
        } else {
            // -1 - n without overflow: the bitwise complement of a negative two's-complement number.
            writeHead(.negative, UInt64(truncatingIfNeeded: ~Int64(truncatingIfNeeded: value)))
        }
    }

    @inline(__always)
    package mutating func writeBool(_ value: Bool) {
        bytes.append(value ? CBOR.trueByte : CBOR.falseByte)
    }

    @inline(__always)
    package mutating func writeNull() {
        bytes.append(CBOR.nullByte)
    }

    @inline(__always)
    package mutating func writeDouble(_ value: Double) {
        bytes.append(CBOR.float64Byte)
        appendBigEndian(value.bitPattern)
    }

    @inline(__always)
    package mutating func writeFloat(_ value: Float) {
        bytes.append(CBOR.float32Byte)
        appendBigEndian(value.bitPattern)
    }

    @inline(__always)
    package mutating func writeText(_ value: String) {
        let utf8 = value.utf8
        writeHead(.text, UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    package mutating func writeByteString<C: Collection<UInt8>>(_ value: C) {
        writeHead(.bytes, UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    @inline(__always)
    mutating func writeTag(_ tag: UInt64) {
        writeHead(.tag, tag)
    }

    /// Replaces the one-byte placeholder head at `position` with the real head of a container
    /// of `count` items, inserting bytes when the count needs a longer head.
    package mutating func patchHead(at position: Int, _ major: CBOR.Major, count: Int) {
        let m = major.rawValue << 5
        if count < 24 {
            bytes[position] = m | UInt8(count)
            return
        }
        var head = CBORWriter(capacity: 9)
        head.writeHead(major, UInt64(count))
        bytes[position] = head.bytes[0]
        bytes.insert(contentsOf: head.bytes[1...], at: position + 1)
    }
}
