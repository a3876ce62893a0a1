/// Integers of every width in CBOR: major types 0 and 1 for values that fit 64 bits, the bignum
/// tags of RFC 8949 §3.4.3 beyond (tag 2 over the magnitude, tag 3 over -1 minus the value, each a
/// byte string, big-endian, without leading zero bytes). A value is always written in the shortest
/// form, so an `Int128` field holding 5 is stored as an `Int` field holding 5 is, and the bytes of
/// equal values are equal whatever their Swift type.
extension CBOR {
    package static let positiveBignumTag: UInt64 = 2
    package static let negativeBignumTag: UInt64 = 3
}

extension CBORWriter {
    /// Writes `value` in its shortest form.
    mutating func writeInteger(_ value: WideInteger) {
        // The CBOR argument: the value itself, or -1 minus it for a negative value.
        let argument = value.isNegative ? value.magnitude - 1 : value.magnitude
        if let small = UInt64(exactly: argument) {
            writeHead(value.isNegative ? .negative : .unsigned, small)
            return
        }
        writeTag(value.isNegative ? CBOR.negativeBignumTag : CBOR.positiveBignumTag)
        let length = (UInt128.bitWidth - argument.leadingZeroBitCount + 7) / 8
        writeHead(.bytes, UInt64(length))
        for index in stride(from: length - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: argument >> (8 * index)))
        }
    }
}

extension CBORReader {
    /// Reads an integer of any width: major type 0 or 1, a bignum, or a float with an integral
    /// value (as ``readInteger(_:at:)`` takes one).
    package func readWideInteger(at offset: inout Int) throws(CBORReadFailure) -> WideInteger {
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .unsigned:
            return WideInteger(head.argument)
        case .negative:
            return WideInteger(isNegative: true, magnitude: UInt128(head.argument) + 1)!
        case .tag where head.argument == CBOR.positiveBignumTag || head.argument == CBOR.negativeBignumTag:
            let length = try readHead(at: &offset)
            guard length.major == .bytes else { throw .mismatch(offset: start, expected: "") }
            guard length.argument <= UInt64(bytes.count - offset) else {
                throw .corrupt(offset: offset, reason: "truncated bignum (needs \(length.argument) bytes)")
            }
            var argument: UInt128 = 0
            for byte in bytes[offset..<offset + Int(length.argument)] {
                guard argument.leadingZeroBitCount >= 8 else {
                    throw .corrupt(offset: start, reason: "a bignum beyond 128 bits")
                }
                argument = argument << 8 | UInt128(byte)
            }
            offset += Int(length.argument)
            if head.argument == CBOR.positiveBignumTag { return WideInteger(argument) }
            guard argument < UInt128.max, let value = WideInteger(isNegative: true, magnitude: argument + 1) else {
                throw .corrupt(offset: start, reason: "a negative bignum below Int128.min")
            }
            return value
        case .simple where head.info >= 25 && head.info <= 27:
            let double = floatValue(head)
            if double.rounded(.towardZero) == double, let value = Int128(exactly: double) { return WideInteger(value) }
        default:
            break
        }
        throw .mismatch(offset: start, expected: "")
    }

    /// Reads an integer of any width as `I`, failing when `I` cannot hold it.
    func readInteger128<I: FixedWidthInteger>(_: I.Type, at offset: inout Int) throws(CBORReadFailure) -> I {
        let start = offset
        guard let value = try readWideInteger(at: &offset).exactly(I.self) else { throw .mismatch(offset: start, expected: "") }
        return value
    }
}
