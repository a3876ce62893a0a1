@_spi(Format) import StrataFormat

/// Mapping a record straight from the parser's bytes: the import pipeline's fast path.
///
/// ``RecordMapper/map(_:maximumKeySize:)`` takes a parsed ``JSONValue`` tree, with a `String` for
/// every key and string. Here the mapper reads a record member by member instead: keys are
/// compared as bytes with the previous record's keys at the same position, and JSON strings bound
/// for `String` and `Date` fields (alone or in arrays) go from the parser's bytes into the CBOR
/// output, as do numbers and booleans bound for fields of their own kind. Every other value
/// (null, objects, values of a field with a transform, the primary key, values a field must
/// coerce) is parsed into a ``JSONValue`` and converted by the general path's own code.
///
/// The result is the general path's, byte for byte and failure for failure: values are converted
/// as the record is read, but what can fail is kept and thrown only after the whole record has
/// been parsed (so a malformed record is still a JSON error), in field order, and only for the
/// last of duplicate keys.
extension RecordMapper {
    /// How the direct path reads the JSON value of a top-level field.
    enum DirectKind {
        /// Parsed into a ``JSONValue`` and converted as the general path does.
        case general
        /// A JSON string is copied as CBOR text.
        case text
        /// A JSON string in ISO 8601 is written as a date (the field's format tries ISO 8601 first).
        case iso8601Date
        /// A JSON integer is written as is.
        case integer
        /// A JSON number is written as a double, or as a float.
        case double, float
        /// `true` or `false` is written as is.
        case bool
        /// A JSON array is read element by element, each as `element` says.
        indirect case array(element: DirectKind, type: FieldType)

        init(_ field: FieldDescription, dateFormats: [String: DateFormat]) {
            self = Self.of(field.type, format: dateFormats[field.name] ?? field.dateFormat ?? .automatic, nested: false)
        }

        private static func of(_ type: FieldType, format: DateFormat, nested: Bool) -> DirectKind {
            switch type {
            case .scalar(.string): .text
            case .scalar(.date) where format == .automatic || format == .iso8601: .iso8601Date
            case .scalar(.integer): .integer
            case .scalar(.double): .double
            case .scalar(.float): .float
            case .scalar(.bool): .bool
            case .array(let element) where !nested: .array(element: of(element, format: format, nested: true), type: element)
            default: .general
            }
        }
    }

    /// Where a top-level field's value stands while its record is read.
    enum Pending {
        case absent
        /// In ``chosen``, to convert as the general path does.
        case general
        /// Converted: its CBOR is this range of the values.
        case converted(Range<Int>)
        /// Its conversion failed with the error in ``failures``, thrown if it stays the field's value.
        case failed
    }

    /// The pipeline item of the record that starts at the parser's next value, read straight from
    /// the parser when it is an object. Throws only malformed JSON; a record that does not map is
    /// a failed item.
    func item(reading parser: inout JSONParser, index: Int, position: InputPosition,
              maximumKeySize: Int) throws(StrataError) -> PipelineItem {
        recordIndex = index
        try parser.skipWhitespace()
        guard try parser.peek() == UInt8(ascii: "{") else {
            let record = try parser.parseValue(depth: 1)
            return item(record, index: index, position: position, endOffset: parser.offset, maximumKeySize: maximumKeySize)
        }
        var values = CBORWriter(capacity: 256)
        let members = try readMembers(&parser, into: &values)
        let content: PipelineItem.Content
        do {
            if members > options.limits.maximumRecordFields {
                throw ConversionFailure(message: options.limits.tooManyFields(members))
            }
            content = .mapped(try finishDirect(&values, maximumKeySize: maximumKeySize))
        } catch let failure as ConversionFailure {
            content = .failed(failure.message)
        } catch {
            content = .failed("cannot be mapped: \(error)")
        }
        return PipelineItem(content: content, index: index, position: position, endOffset: parser.offset)
    }

    /// Reads the object at the parser's `{` (a record: depth 1), converting what it can; the
    /// number of its members.
    private func readMembers(_ parser: inout JSONParser, into values: inout CBORWriter) throws(StrataError) -> Int {
        try parser.checkDepth(1)
        parser.advance()
        if isSparse {
            resetTouched()
        } else {
            for index in chosen.indices {
                chosen[index] = nil
                pending[index] = .absent
            }
            fieldVisits &+= chosen.count
        }
        if !chosenRelated.isEmpty { resetRelated() }
        var first = true
        var position = 0
        while try parser.nextMember(first: &first) {
            // Records of one payload list their keys in one order: the previous record's key at
            // this position usually matches, byte for byte, and answers without a String.
            let token = try parser.parseStringToken()
            let key: String
            let field: Int
            if position < directKeys.count, parser.withBytes(of: token, { JSONParser.equal($0, directKeys[position].bytes) }) {
                key = directKeys[position].key
                field = directKeyFields[position]
            } else {
                key = parser.string(of: token)
                field = memberCode(for: key)
                if position < directKeys.count {
                    directKeys[position] = (Array(key.utf8), key)
                    directKeyFields[position] = field
                } else if position == directKeys.count, position < 256 {
                    directKeys.append((Array(key.utf8), key))
                    directKeyFields.append(field)
                }
            }
            try parser.expectColon(after: key)
            position += 1
            if field < -1 {
                choose(relationshipMember: field, key: key, value: try parser.parseValue(depth: 2))
            } else if field < 0 {
                ignoredKeys[key, default: 0] += 1
                _ = try parser.parseValue(depth: 2)
            } else {
                if isSparse, case .absent = pending[field] { touched.append(field) }
                try readValue(&parser, kind: directKinds[field], key: key, field: field, into: &values)
            }
        }
        return position
    }

    /// Reads the value of the top-level field `field` (depth 2).
    private func readValue(_ parser: inout JSONParser, kind: DirectKind, key: String, field: Int,
                           into values: inout CBORWriter) throws(StrataError) {
        try parser.skipWhitespace()
        guard let byte = try parser.peek() else { throw parser.failure("unexpected end of input; expected a value") }
        let start = values.count
        switch (kind, byte) {
        case (.text, UInt8(ascii: "\"")):
            let token = try parser.parseStringToken()
            parser.withBytes(of: token) { Self.writeText($0, into: &values) }
        case (.iso8601Date, UInt8(ascii: "\"")):
            let token = try parser.parseStringToken()
            guard let seconds = parser.withBytes(of: token, DateParsing.iso8601InRange) else {
                chosen[field] = (key, .string(parser.string(of: token)))
                pending[field] = .general
                return
            }
            ValueConverter.writeDate(seconds, into: &values)
        case (.array(let element, let type), UInt8(ascii: "[")):
            if let failure = try readArray(&parser, element: element, type: type, key: key, field: field, into: &values) {
                failures[field] = failure
                pending[field] = .failed
                return
            }
        default:
            let value = try Self.readScalarOrValue(&parser, byte, depth: 2)
            guard Self.write(value, kind, into: &values) else {
                chosen[field] = (key, value)
                pending[field] = .general
                return
            }
        }
        pending[field] = .converted(start..<values.count)
    }

    /// The value at the parser's `byte` (whitespace skipped), at `depth`: numbers and literals
    /// without ``JSONParser/parseValue(depth:)``'s set-up.
    @inline(__always)
    private static func readScalarOrValue(_ parser: inout JSONParser, _ byte: UInt8, depth: Int) throws(StrataError) -> JSONValue {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parser.parseNumber()
        case UInt8(ascii: "t"):
            try parser.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parser.expectLiteral("false")
            return .bool(false)
        default:
            return try parser.parseValue(depth: depth)
        }
    }

    /// Writes a number or boolean the way ``ValueConverter`` writes it for a field of `kind`,
    /// when that kind takes it as it is; false (nothing written) otherwise.
    @inline(__always)
    private static func write(_ value: JSONValue, _ kind: DirectKind, into values: inout CBORWriter) -> Bool {
        switch (kind, value) {
        case (.integer, .int(let number)): values.writeInteger(number)
        case (.double, .int(let number)): values.writeDouble(Double(number))
        case (.double, .double(let number)): values.writeDouble(number)
        case (.float, .int(let number)): values.writeFloat(Float(Double(number)))
        case (.float, .double(let number)): values.writeFloat(Float(number))
        case (.bool, .bool(let flag)): values.writeBool(flag)
        default: return false
        }
        return true
    }

    /// Reads the array at the parser's `[` (depth 2) into a CBOR array of `type` elements; the
    /// failure of the first element that does not convert (the rest is then only parsed).
    private func readArray(_ parser: inout JSONParser, element: DirectKind, type: FieldType, key: String, field: Int,
                           into values: inout CBORWriter) throws(StrataError) -> (any Error)? {
        try parser.checkDepth(2)
        parser.advance()
        let start = values.count
        values.writeHead(.array, 0)
        var count = 0
        var failure: (any Error)?
        try parser.skipWhitespace()
        if try parser.peek() == UInt8(ascii: "]") {
            parser.advance()
            return nil
        }
        while true {
            try parser.skipWhitespace()
            guard let byte = try parser.peek() else { throw parser.failure("unexpected end of input; expected a value") }
            if failure != nil {
                _ = try parser.parseValue(depth: 3)
            } else {
                var item: JSONValue?
                switch (element, byte) {
                case (.text, UInt8(ascii: "\"")):
                    let token = try parser.parseStringToken()
                    parser.withBytes(of: token) { Self.writeText($0, into: &values) }
                case (.iso8601Date, UInt8(ascii: "\"")):
                    let token = try parser.parseStringToken()
                    if let seconds = parser.withBytes(of: token, DateParsing.iso8601InRange) {
                        ValueConverter.writeDate(seconds, into: &values)
                    } else {
                        item = .string(parser.string(of: token))
                    }
                default:
                    let value = try Self.readScalarOrValue(&parser, byte, depth: 3)
                    if !Self.write(value, element, into: &values) { item = value }
                }
                if let item {
                    let description = description.fields[field]
                    do {
                        try converter.write(item, as: type, dateFormat: description.dateFormat, path: description.name,
                                            into: &values, owner: (mapping, field))
                    } catch var conversion as ConversionFailure {
                        conversion.message = "'\(key)' element \(count) " + conversion.message
                        failure = conversion
                    } catch {
                        failure = error
                    }
                }
                count += 1
            }
            try parser.skipWhitespace()
            guard let next = try parser.peek() else { throw parser.failure("unexpected end of input inside an array") }
            if next == UInt8(ascii: "]") {
                parser.advance()
                break
            }
            guard next == UInt8(ascii: ",") else {
                throw parser.failure("expected ',' or ']' after an array element, found \(parser.describe(next))")
            }
            parser.advance()
            try parser.skipWhitespace()
            if try parser.peek() == UInt8(ascii: "]") { throw parser.failure("a trailing comma before ']' is not JSON") }
        }
        if failure == nil { values.patchHead(at: start, .array, count: count) }
        return failure
    }

    /// The mapped record once its members are read: in field order, what the general path
    /// converts is converted and the first failure thrown, then the primary key is checked.
    private func finishDirect(_ values: inout CBORWriter, maximumKeySize: Int) throws -> Mapped {
        guard isSparse else {
            var slots = [Slot](repeating: .absent, count: pending.count)
            fieldVisits &+= pending.count
            for index in pending.indices {
                guard let slot = try directSlot(index, &values) else { continue }
                slots[index] = slot
            }
            return try finish(slots: Slots(dense: slots), values: values, maximumKeySize: maximumKeySize)
        }
        sortTouched()
        var given: [(field: Int, slot: Slot)] = []
        given.reserveCapacity(touched.count)
        fieldVisits &+= touched.count
        for index in touched {
            guard let slot = try directSlot(index, &values) else { continue }
            given.append((index, slot))
        }
        return try finish(slots: Slots(sparse: given, fieldCount: pending.count), values: values, maximumKeySize: maximumKeySize)
    }

    /// The slot of the field at `index` once its record is read (nil: absent), converted as the
    /// general path converts it; throws its conversion failure.
    @inline(__always)
    private func directSlot(_ index: Int, _ values: inout CBORWriter) throws -> Slot? {
        switch pending[index] {
        case .absent:
            return nil
        case .converted(let range):
            return .value(range)
        case .failed:
            throw failures[index] ?? ConversionFailure(message: "cannot be mapped")
        case .general:
            guard let (key, value) = chosen[index] else { return nil }
            return try convert(value, key: key, field: index, into: &values)
        }
    }

    private static func writeText(_ bytes: UnsafeBufferPointer<UInt8>, into values: inout CBORWriter) {
        values.writeHead(.text, UInt64(bytes.count))
        values.bytes.append(contentsOf: bytes)
    }
}
