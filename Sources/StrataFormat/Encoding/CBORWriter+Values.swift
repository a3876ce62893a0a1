import Foundation

/// Writes of the values CBOR has its own form for (see ``CBOR``), shared by the Codable encoder and
/// ``FieldWriter``, so that both give the same bytes.
extension CBORWriter {
    /// Writes `value` when its type is one CBOR has its own form for; false (nothing written) otherwise.
    @inline(__always)
    mutating func writePrimitive<T>(_ value: T) -> Bool {
        if T.self == String.self { writeText(value as! String); return true }
        if T.self == Int.self { writeInteger(value as! Int); return true }
        if T.self == Double.self { writeDouble(value as! Double); return true }
        if T.self == Date.self { writeDate(value as! Date); return true }
        if T.self == UUID.self { writeUUID(value as! UUID); return true }
        if T.self == Data.self { writeByteString(value as! Data); return true }
        if T.self == URL.self { writeURL(value as! URL); return true }
        if T.self == Decimal.self { writeText((value as! Decimal).description); return true }
        if ObjectIdentifier(T.self) == CBOR.stringArrayType { writeStrings(value as! [String]); return true }
        if T.self == Bool.self { writeBool(value as! Bool); return true }
        if T.self == Int64.self { writeInteger(value as! Int64); return true }
        if T.self == Float.self { writeFloat(value as! Float); return true }
        return false
    }

    /// Tag 1 and the seconds since 1970: an integer when whole, else float64.
    mutating func writeDate(_ date: Date) {
        let seconds = date.timeIntervalSince1970
        if !DateParsing.storableRange.contains(seconds), outOfRangeDate == nil { outOfRangeDate = (bytes.count, seconds) }
        writeTag(CBOR.epochDateTag)
        if seconds.rounded(.towardZero) == seconds, abs(seconds) < 0x1p53 {
            writeInteger(Int64(seconds))
        } else {
            writeDouble(seconds)
        }
    }

    mutating func writeUUID(_ uuid: UUID) {
        let u = uuid.uuid
        writeTag(CBOR.uuidTag)
        writeHead(.bytes, 16)
        bytes.append(contentsOf: [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
    }

    mutating func writeURL(_ url: URL) {
        writeTag(CBOR.uriTag)
        writeText(url.absoluteString)
    }

    mutating func writeStrings(_ strings: [String]) {
        writeHead(.array, UInt64(strings.count))
        for string in strings { writeText(string) }
    }
}
