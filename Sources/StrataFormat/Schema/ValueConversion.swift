import Foundation

/// Why a JSON value does not fit its field: "is \"seven\", expected an integer". The mapper adds
/// the record and the JSON key.
package struct ConversionFailure: Error {
    package var message: String

    package init(message: String) { self.message = message }
}

/// Writes JSON values as the CBOR the record codec writes for the field's Swift type, coercing
/// where the field asks for it: numbers from numeric strings and back, booleans from 0/1 and
/// "true"/"false", dates from ISO 8601 text or Unix timestamps, UUIDs and URLs from strings,
/// data from base64.
package struct ValueConverter {
    /// Date formats by dotted field path, overriding the descriptions' own.
    package var dateFormats: [String: DateFormat] = [:]

    package init(dateFormats: [String: DateFormat] = [:]) { self.dateFormats = dateFormats }

    /// Writes `value` as a `type` value into `writer`. `path` is the dotted field path, for date
    /// format overrides; `owner` is the mapping of the object holding the field and its index
    /// there, whose nested mapping an object value uses.
    package func write(_ value: JSONValue, as type: FieldType, dateFormat: DateFormat?, path: String,
               into writer: inout CBORWriter, owner: (mapping: KeyMapping, index: Int)) throws {
        func mismatch(_ expected: String) -> ConversionFailure {
            ConversionFailure(message: "is \(value), expected \(expected)")
        }
        switch type {
        case .scalar(.bool):
            writer.writeBool(try Self.bool(value) ?? { throw mismatch("a boolean") }())
        case .scalar(.integer):
            if case .int(let number) = value {   // the common case, without the wide value
                writer.writeInteger(number)
                return
            }
            guard let number = Self.integer(value) else {
                throw Self.isWholeNumber(value)
                    ? ConversionFailure(message: "is \(value), out of range for an integer (\(WideInteger.min) through \(WideInteger.max))")
                    : mismatch("an integer")
            }
            writer.writeInteger(number)
        case .scalar(.double):
            writer.writeDouble(try Self.double(value) ?? { throw mismatch("a number") }())
        case .scalar(.float):
            writer.writeFloat(Float(try Self.double(value) ?? { throw mismatch("a number") }()))
        case .scalar(.string):
            switch value {
            case .string(let text): writer.writeText(text)
            case .int(let number): writer.writeText(String(number))
            case .wideInt(let number): writer.writeText(number.description)
            case .double(let number): writer.writeText(String(number))
            default: throw mismatch("a string")
            }
        case .scalar(.date):
            let format = (dateFormats.isEmpty ? nil : dateFormats[path]) ?? dateFormat ?? .automatic
            guard let seconds = DateParsing.seconds(value, format: format) else {
                throw mismatch(format == .automatic ? "a date (ISO 8601 text or Unix seconds or milliseconds)" : "a date (\(format))")
            }
            guard DateParsing.storableRange.contains(seconds) else {
                throw ConversionFailure(message: "is \(value), a date out of range (dates are \(DateParsing.storableRangeDescription))")
            }
            Self.writeDate(seconds, into: &writer)
        case .scalar(.uuid):
            guard case .string(let text) = value, let uuid = UUID(uuidString: text) else { throw mismatch("a UUID string") }
            let u = uuid.uuid
            writer.writeTag(CBOR.uuidTag)
            writer.writeByteString([u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
        case .scalar(.url):
            guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch("a URL string") }
            writer.writeTag(CBOR.uriTag)
            writer.writeText(url.absoluteString)
        case .scalar(.data):
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw mismatch("base64 text") }
            writer.writeByteString(data)
        case .scalar(.decimal):
            let decimal: Decimal?
            switch value {
            case .string(let text): decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            case .int(let number): decimal = Decimal(number)
            case .wideInt(let number): decimal = Decimal(string: number.description, locale: Locale(identifier: "en_US_POSIX"))
            case .double(let number): decimal = Decimal(number)
            default: decimal = nil
            }
            guard let decimal else { throw mismatch("a decimal number") }
            writer.writeText(decimal.description)
        case .array(let element):
            guard case .array(let elements) = value else { throw mismatch("an array") }
            writer.writeHead(.array, UInt64(elements.count))
            for (position, item) in elements.enumerated() {
                do {
                    try write(item, as: element, dateFormat: dateFormat, path: path, into: &writer, owner: owner)
                } catch var failure as ConversionFailure {
                    failure.message = "element \(position) " + failure.message
                    throw failure
                }
            }
        case .object(let fields):
            guard case .object(let members) = value else { throw mismatch("an object") }
            try writeObject(members, fields, path: path, mapping: owner.mapping.nestedMapping(owner.index, fields: fields), into: &writer)
        case .any:
            Self.writeAny(value, into: &writer)
        }
    }

    /// A nested object as a CBOR map keyed by field names, in description order. Absent and null
    /// optional fields are left out; a nested object is replaced whole, never merged.
    private func writeObject(_ members: [JSONMember], _ fields: [FieldDescription], path: String, mapping: KeyMapping,
                             into writer: inout CBORWriter) throws {
        var picked = [(key: String, value: JSONValue)?](repeating: nil, count: fields.count)
        for member in members {
            if let index = mapping.field(for: member.key) { picked[index] = (member.key, member.value) }
        }
        let start = writer.count
        writer.bytes.append(CBOR.emptyMapByte)
        var count = 0
        for (index, field) in fields.enumerated() {
            let fieldPath = KeyMapping.join(path, field.name)
            guard let (key, value) = picked[index], value != .null else {
                if field.isOptional { continue }
                throw ConversionFailure(message: "has no value for the required field '\(fieldPath)'")
            }
            writer.writeText(field.name)
            do {
                try write(value, as: field.type, dateFormat: field.dateFormat, path: fieldPath, into: &writer, owner: (mapping, index))
            } catch let failure as ConversionFailure {
                throw ConversionFailure(message: "'\(key)' " + failure.message)
            }
            count += 1
        }
        writer.patchHead(at: start, .map, count: count)
    }

    package static func bool(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let flag): flag
        case .int(0): false
        case .int(1): true
        case .string(let text):
            switch text.lowercased() {
            case "true", "1": true
            case "false", "0": false
            default: nil
            }
        default: nil
        }
    }

    /// The integer `value` is or spells exactly (`7`, `7.0`, `"7"`), or nil. A number beyond 128
    /// bits reaches the importer as a double rounded to -2^127 or 2^128, so those are out of
    /// range: -170141183460469231731687303715884105729 must not become Int128.min.
    package static func integer(_ value: JSONValue) -> WideInteger? {
        switch value {
        case .int(let number): return WideInteger(number)
        case .wideInt(let number): return number
        case .double(let number): return exactInteger(number)
        case .string(let text):
            let trimmed = text.trimmingWhitespace
            return WideInteger(trimmed) ?? Double(trimmed).flatMap(exactInteger)
        default: return nil
        }
    }

    private static func exactInteger(_ number: Double) -> WideInteger? {
        guard number > -0x1p127, number < 0x1p128, number.rounded(.towardZero) == number else { return nil }
        return number < 0 ? WideInteger(Int128(number)) : WideInteger(UInt128(number))
    }

    /// Whether `value` is a whole number, however large: what an integer field refuses as out of
    /// range rather than as the wrong type.
    static func isWholeNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .int, .wideInt: return true
        case .double(let number): return number.isFinite && number.rounded(.towardZero) == number
        case .string(let text):
            guard let number = Double(text.trimmingWhitespace) else { return false }
            return number.isFinite && number.rounded(.towardZero) == number
        default: return false
        }
    }

    package static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .wideInt(let number): number.doubleValue
        case .double(let number): number
        case .string(let text): Double(text.trimmingWhitespace).flatMap { $0.isFinite ? $0 : nil }
        default: nil
        }
    }

    /// A date as the record codec writes it: tag 1 over whole seconds as an integer, else a double.
    package static func writeDate(_ seconds: Double, into writer: inout CBORWriter) {
        writer.writeTag(CBOR.epochDateTag)
        if seconds.rounded(.towardZero) == seconds, abs(seconds) < 0x1p53 {
            writer.writeInteger(Int64(seconds))
        } else {
            writer.writeDouble(seconds)
        }
    }

    /// Any JSON value as plain CBOR; object members sorted by their encoded keys (the last of
    /// duplicate keys wins), as the record codec writes a `[String: …]` dictionary.
    package static func writeAny(_ value: JSONValue, into writer: inout CBORWriter) {
        switch value {
        case .null: writer.writeNull()
        case .bool(let flag): writer.writeBool(flag)
        case .int(let number): writer.writeInteger(number)
        case .wideInt(let number): writer.writeInteger(number)
        case .double(let number): writer.writeDouble(number)
        case .string(let text): writer.writeText(text)
        case .array(let elements):
            writer.writeHead(.array, UInt64(elements.count))
            for element in elements { writeAny(element, into: &writer) }
        case .object(let members):
            var latest: [String: JSONValue] = [:]
            for member in members { latest[member.key] = member.value }
            let encoded = latest.map { key, value -> ([UInt8], JSONValue) in
                var keyWriter = CBORWriter(capacity: key.utf8.count + 9)
                keyWriter.writeText(key)
                return (keyWriter.bytes, value)
            }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
            writer.writeHead(.map, UInt64(encoded.count))
            for (key, value) in encoded {
                writer.bytes.append(contentsOf: key)
                writeAny(value, into: &writer)
            }
        }
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)`, answered without Foundation when neither end is
    /// whitespace (a key given on the command line, most imported numbers): an ASCII character
    /// other than a space or a tab is none of `.whitespaces` (Unicode's space separators and tab).
    var trimmingWhitespace: String {
        guard let first = utf8.first, let last = utf8.last,
              first < 0x80, first != UInt8(ascii: " "), first != UInt8(ascii: "\t"),
              last < 0x80, last != UInt8(ascii: " "), last != UInt8(ascii: "\t") else {
            return trimmingCharacters(in: .whitespaces)
        }
        return self
    }
}
