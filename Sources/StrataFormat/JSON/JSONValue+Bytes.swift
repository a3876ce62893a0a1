/// JSON text written straight into a byte buffer: what ``JSONValue/jsonText`` gives, as UTF-8,
/// without building intermediate strings (the command-line tool prints hundreds of thousands of
/// records this way).
extension JSONValue {
    /// Appends the value as compact JSON, the bytes of ``jsonText``.
    public func appendJSON(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): Self.appendInteger(value, to: &bytes)
        case .wideInt(let value): bytes.append(contentsOf: value.description.utf8)
        case .double(let value): bytes.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): Self.appendQuoted(value, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                element.appendJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            JSONMember.appendObject(members, to: &bytes)
        }
    }

    /// Appends an integer's decimal digits.
    package static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value >= 0, value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // The digits from the last one back, on the stack (a sign and 19 digits at most), then
        // appended in one piece.
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends `string` quoted and escaped as `quoted(_:)` does: `"` and `\`, `\n`, `\r`, `\t`,
    /// and every other C0, DEL and C1 control character as `\u00XX`.
    public static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &bytes) }) == nil {
            Array(string.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &bytes) }   // a bridged string
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 text escaped for a JSON string: runs of plain bytes copied whole.
    package static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            // One test for the common case: printable ASCII other than `"` and `\`, or a byte of
            // a multi-byte character other than the lead byte of U+0080 ... U+00BF.
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xC2 else {
                index += 1
                continue
            }
            var value = byte, length = 1
            if byte == 0xC2 {
                guard index + 1 < count, (0x80...0x9F).contains(utf8[index + 1]) else {
                    index += 1
                    continue
                }
                (value, length) = (utf8[index + 1], 2)   // U+0080 ... U+009F
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            switch value {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            default:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(value >> 4)])
                bytes.append(hex[Int(value & 0xF)])
            }
            index += length
            runStart = index
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
    }
}

extension JSONMember {
    /// Appends `members` as a compact JSON object.
    public static func appendObject(_ members: [JSONMember], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (position, member) in members.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.appendQuoted(member.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            member.value.appendJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
