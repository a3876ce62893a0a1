import Foundation

extension OrderedKey {
    /// Reads one encoded value of any type, telling the type by its tag byte: what lets a key be
    /// shown or compared without the Swift type that wrote it (the command-line tool, messages).
    package static func queryValue(from key: [UInt8], at position: inout Int) throws(StrataError) -> QueryValue {
        guard position < key.count else { throw corrupt("the key ends where a value was expected", at: position) }
        switch key[position] {
        case nilTag: position += 1; return .null
        case boolTag: return .bool(try Bool.readOrderedKey(from: key, at: &position))
        case wideNegativeTag, integerTag, largeUnsignedTag, wideUnsignedTag:
            return try readWideInteger(from: key, at: &position).queryValue
        case doubleTag: return .double(try Double.readOrderedKey(from: key, at: &position))
        case dateTag: return .date(try Date.readOrderedKey(from: key, at: &position))
        case stringTag: return .string(try String.readOrderedKey(from: key, at: &position))
        case uuidTag: return .uuid(try UUID.readOrderedKey(from: key, at: &position))
        case let tag: throw corrupt("unknown tag 0x\(String(tag, radix: 16))", at: position)
        }
    }

    /// The kind of the value a key starts with, or nil for nil and unknown tags.
    package static func kind(of key: [UInt8]) -> ValueKind? {
        switch key.first {
        case boolTag: .bool
        case wideNegativeTag, integerTag, largeUnsignedTag, wideUnsignedTag: .integer
        case doubleTag: .double
        case dateTag: .date
        case stringTag: .string
        case uuidTag: .uuid
        default: nil
        }
    }
}

extension OrderedKey {
    /// A stored primary key's value: the value of a single-field key, the `.list` of the values
    /// of a compound key. Throws `.corruptRecord` when the bytes do not decode.
    package static func primaryKeyValue(from bytes: [UInt8]) throws(StrataError) -> QueryValue {
        var position = 0
        let first = try queryValue(from: bytes, at: &position)
        guard position < bytes.count else { return first }
        var parts = [first]
        while position < bytes.count { parts.append(try queryValue(from: bytes, at: &position)) }
        return .list(parts)
    }
}
