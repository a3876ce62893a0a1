import Foundation

extension JSONParser {
    /// A string just read: its bytes (escapes decoded) in the current chunk or in the scratch
    /// buffer. Valid only until the parser reads on: use it (``withBytes(of:_:)``) first.
    package struct StringToken {
        var range: Range<Int>
        var inScratch: Bool
        /// The string, made when its raw bytes were not all ASCII (that is when its UTF-8 was
        /// checked). Either way the bytes are valid UTF-8.
        var text: String?
    }

    /// Parses a string at its opening quote.
    mutating func parseString() throws(StrataError) -> String {
        // Two statements: `string(of: try parseStringToken())` would read `self` before the
        // argument changes it.
        let token = try parseStringToken()
        return string(of: token)
    }

    /// The `String` of a token.
    package func string(of token: StringToken) -> String {
        if let text = token.text { return text }
        return withBytes(of: token) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of `token`, which must be the string read last.
    @inline(__always)
    package func withBytes<R>(of token: StringToken, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        (token.inScratch ? scratch : buffer).withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[token.range]))
        }
    }

    /// Whether `bytes` and `other` hold the same bytes.
    @inline(__always)
    package static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        guard let base = bytes.baseAddress else { return true }
        return other.withUnsafeBufferPointer { memcmp(base, $0.baseAddress!, bytes.count) == 0 }
    }

    /// Parses a string at its opening quote without making a `String` of ASCII text. A string
    /// that ends in the current chunk without escapes stays in the chunk; others are gathered in
    /// the scratch buffer. Either way the bytes are checked to be UTF-8.
    package mutating func parseStringToken() throws(StrataError) -> StringToken {
        let start = position
        advance()   // the opening quote
        var runStart = index
        var ascii = true
        // Fast path: the whole string in this chunk, no escapes, within the length limit.
        let (stop, allASCII) = scanPlainRun(from: index)
        ascii = allASCII
        index = stop
        // (The run stops one byte past the limit: a quote there ends a string that is too long.)
        if index < buffer.count, buffer[index] == UInt8(ascii: "\""), index - runStart <= limits.maximumStringLength {
            let range = runStart..<index
            advance()
            return StringToken(range: range, inScratch: false, text: ascii ? nil : try validated(buffer[range], start))
        }
        try checkLength(index - runStart, start)
        clearScratch()
        appendScratch(buffer[runStart..<index])
        while true {
            guard let byte = try peek() else { throw StrataError.malformed("unterminated string", at: start) }
            runStart = index
            if byte == UInt8(ascii: "\"") {
                advance()
                try checkLength(scratch.count, start)
                return StringToken(range: 0..<scratch.count, inScratch: true, text: ascii ? nil : try validated(scratch[...], start))
            }
            if byte == UInt8(ascii: "\\") {
                advance()
                try parseEscape(stringStart: start)
            } else if byte < 0x20 {
                if byte == UInt8(ascii: "\n"), lineRecordIsOpen { throw lineEndsInsideRecord() }
                throw failure("unescaped control character 0x\(String(byte, radix: 16)) in a string; write it as an escape")
            } else {
                let (stop, allASCII) = scanPlainRun(from: index)
                if !allASCII { ascii = false }
                index = stop
                appendScratch(buffer[runStart..<index])
            }
            try checkLength(scratch.count, start)
        }
    }

    /// The end of the run of plain string bytes (no quote, backslash or control character) that
    /// starts at `start` in this chunk, at most one byte past the length limit; and whether the
    /// run is all ASCII.
    private func scanPlainRun(from start: Int) -> (end: Int, ascii: Bool) {
        buffer.withUnsafeBufferPointer { bytes in
            let limit = min(bytes.count, start + limits.maximumStringLength + 1)
            var position = start
            var high: UInt8 = 0
            // Eight bytes at a time while none is a quote, a backslash, a control character or
            // beyond ASCII; the loop below finds which one is.
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                while position + 8 <= limit {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                    let found = Self.hasByteLess(than: 0x20, word) | Self.hasZeroByte(word ^ 0x2222_2222_2222_2222)
                        | Self.hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C) | (word & 0x8080_8080_8080_8080)
                    if found == 0 {
                        position += 8
                        continue
                    }
                    // The lowest flag marks the first such byte (the tests only err above a true one).
                    position += found.trailingZeroBitCount >> 3
                    guard bytes[position] >= 0x80 else { return (position, high < 0x80) }
                    high = 0x80
                    position += 1
                }
            }
            while position < limit {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                high |= byte
                position += 1
            }
            return (position, high < 0x80)
        }
    }

    /// Nonzero when a byte of `word` is zero (exact as to whether one is, not which).
    @inline(__always)
    private static func hasZeroByte(_ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
    }

    /// Nonzero when a byte of `word` is below `bound` (at most 128).
    @inline(__always)
    private static func hasByteLess(than bound: UInt8, _ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101 &* UInt64(bound)) & ~word & 0x8080_8080_8080_8080
    }

    private func checkLength(_ count: Int, _ start: InputPosition) throws(StrataError) {
        if count > limits.maximumStringLength {
            throw StrataError.malformed("a string is longer than the limit of \(limits.maximumStringLength) bytes", at: start)
        }
    }

    /// The string of bytes that are not all ASCII, checked to be UTF-8.
    private func validated(_ bytes: ArraySlice<UInt8>, _ start: InputPosition) throws(StrataError) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw StrataError.malformed("a string is not valid UTF-8", at: start)
        }
        return string
    }

    /// Parses the escape after a backslash into the scratch buffer.
    private mutating func parseEscape(stringStart: InputPosition) throws(StrataError) {
        guard let byte = try peek() else { throw StrataError.malformed("unterminated string", at: stringStart) }
        advance()
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): appendScratch(byte)
        case UInt8(ascii: "b"): appendScratch(0x08)
        case UInt8(ascii: "f"): appendScratch(0x0C)
        case UInt8(ascii: "n"): appendScratch(0x0A)
        case UInt8(ascii: "r"): appendScratch(0x0D)
        case UInt8(ascii: "t"): appendScratch(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                guard try peek() == UInt8(ascii: "\\") else { throw failure("a \\u escape holds a lone high surrogate") }
                advance()
                guard try peek() == UInt8(ascii: "u") else { throw failure("a \\u escape holds a lone high surrogate") }
                advance()
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("a \\u escape holds a lone high surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("a \\u escape holds a lone low surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
            for unit in UTF8.encode(unicode)! { appendScratch(unit) }
        default:
            index -= 1
            throw failure("invalid escape '\\\(Character(Unicode.Scalar(byte)))' in a string")
        }
    }

    private mutating func hexQuad() throws(StrataError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peek() else { throw failure("unexpected end of input in a \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    /// Parses a number by the JSON grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    package mutating func parseNumber() throws(StrataError) -> JSONValue {
        if let (value, end) = numberInChunk() {
            index = end
            return value
        }
        return try parseNumberCarefully()
    }

    /// The number at the current byte and the index after it, when it is valid, ends inside this
    /// chunk and is in range; nil otherwise, for ``parseNumberCarefully()`` to parse or report.
    /// Integers of up to 18 digits are read without making text.
    private func numberInChunk() -> (JSONValue, Int)? {
        buffer.withUnsafeBufferPointer { bytes -> (JSONValue, Int)? in
            let count = bytes.count
            var position = index
            let negative = position < count && bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let digitsStart = position
            guard position < count, isDigit(bytes[position]) else { return nil }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if position < count, isDigit(bytes[position]) { return nil }
            } else {
                while position < count, isDigit(bytes[position]) { position += 1 }
            }
            let digitsEnd = position
            var isInteger = true
            if position < count, bytes[position] == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                guard position < count, isDigit(bytes[position]) else { return nil }
                while position < count, isDigit(bytes[position]) { position += 1 }
            }
            if position < count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if position < count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard position < count, isDigit(bytes[position]) else { return nil }
                while position < count, isDigit(bytes[position]) { position += 1 }
            }
            // A number that reaches the end of the chunk may go on in the next one.
            guard position < count, position - index <= 400 else { return nil }
            if isInteger, digitsEnd - digitsStart <= 18 {
                var value: Int64 = 0
                for digit in bytes[digitsStart..<digitsEnd] { value = value &* 10 &+ Int64(digit &- UInt8(ascii: "0")) }
                return (.int(negative ? -value : value), position)
            }
            if !isInteger, let value = Self.exactDouble(UnsafeBufferPointer(rebasing: bytes[digitsStart..<position])) {
                return (.double(negative ? -value : value), position)
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<position]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return (.int(integer), position) }
            if isInteger, let integer = WideInteger(text) { return (.wideInt(integer), position) }
            guard let double = Double(text), double.isFinite else { return nil }
            return (.double(double), position)
        }
    }

    /// The value of a valid unsigned JSON number with a fraction or an exponent when it is exact
    /// by Clinger's fast path: at most 15 significant digits times or over a power of ten up to
    /// 10^22, both exact doubles, so that one correctly rounded operation gives what `strtod`
    /// gives. Nil otherwise.
    private static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var position = 0
        var seenPoint = false
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if seenPoint { scale -= 1 }
            } else {
                break   // the exponent
            }
            position += 1
        }
        if position < text.count {
            position += 1   // e or E
            var negative = false
            if text[position] == UInt8(ascii: "-") || text[position] == UInt8(ascii: "+") {
                negative = text[position] == UInt8(ascii: "-")
                position += 1
            }
            guard text.count - position <= 3 else { return nil }
            var exponent = 0
            while position < text.count {
                exponent = exponent * 10 + Int(text[position] - UInt8(ascii: "0"))
                position += 1
            }
            scale += negative ? -exponent : exponent
        }
        guard scale >= -22, scale <= 22 else { return nil }
        let value = Double(mantissa)
        return scale < 0 ? value / powersOfTen[-scale] : value * powersOfTen[scale]
    }

    /// 10^0 through 10^22, every one an exact double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// ``parseNumber()`` a byte at a time, across chunks, with its errors.
    private mutating func parseNumberCarefully() throws(StrataError) -> JSONValue {
        let start = position
        clearScratch()
        var isInteger = true
        if try peek() == UInt8(ascii: "-") { try take() }
        guard let first = try peek(), isDigit(first) else { throw failure("expected a digit after '-'") }
        try take()
        if first != UInt8(ascii: "0") {
            while let byte = try peek(), isDigit(byte) { try take() }
        } else if let byte = try peek(), isDigit(byte) {
            throw StrataError.malformed("a number has a leading zero", at: start)
        }
        if try peek() == UInt8(ascii: ".") {
            isInteger = false
            try take()
            guard let byte = try peek(), isDigit(byte) else { throw failure("expected a digit after the decimal point") }
            while let byte = try peek(), isDigit(byte) { try take() }
        }
        if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            try take()
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { try take() }
            guard let digit = try peek(), isDigit(digit) else { throw failure("expected a digit in the exponent") }
            while let byte = try peek(), isDigit(byte) { try take() }
        }
        if scratch.count > 400 { throw StrataError.malformed("a number has more than 400 characters", at: start) }
        let text = String(decoding: scratch, as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        if isInteger, let integer = WideInteger(text) { return .wideInt(integer) }
        guard let double = Double(text), double.isFinite else {
            throw StrataError.malformed("the number \(text.prefix(40)) is out of range", at: start)
        }
        return .double(double)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Moves the next byte into the scratch buffer.
    @inline(__always)
    private mutating func take() throws(StrataError) {
        guard let byte = try peek() else { return }
        appendScratch(byte)
        advance()
    }
}
