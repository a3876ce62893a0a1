import Foundation

extension OrderedKey {
    /// Reads one encoded value of any type, telling the type by its tag byte: what lets a key be
    /// shown or compared without the Swift type that wrote it (the command-line tool, messages).
    static func queryValue(from key: [UInt8], at position: inout Int) throws(StrataError) -> QueryValue {
        guard position < key.count else { throw corrupt("the key ends where a value was expected", at: position) }
        switch key[position] {
        case nilTag: position += 1; return .null
        case boolTag: return .bool(try Bool.readOrderedKey(from: key, at: &position))
        case integerTag: return .int(try Int64.readOrderedKey(from: key, at: &position))
        case largeUnsignedTag: return .uint(try UInt64.readOrderedKey(from: key, at: &position))
        case doubleTag: return .double(try Double.readOrderedKey(from: key, at: &position))
        case dateTag: return .date(try Date.readOrderedKey(from: key, at: &position))
        case stringTag: return .string(try String.readOrderedKey(from: key, at: &position))
        case uuidTag: return .uuid(try UUID.readOrderedKey(from: key, at: &position))
        case let tag: throw corrupt("unknown tag 0x\(String(tag, radix: 16))", at: position)
        }
    }

    /// The kind of the value a key starts with, or nil for nil and unknown tags.
    static func kind(of key: [UInt8]) -> ValueKind? {
        switch key.first {
        case boolTag: .bool
        case integerTag, largeUnsignedTag: .integer
        case doubleTag: .double
        case dateTag: .date
        case stringTag: .string
        case uuidTag: .uuid
        default: nil
        }
    }
}

extension ReadTransaction {
    /// The kind of `context`'s primary key values: as the catalog records it, or, for entities
    /// saved before it was recorded, as the first stored key's tag shows (`.other` when empty).
    func primaryKeyKind(of context: EntityContext) throws -> ValueKind {
        if let kind = context.schema.primaryKeyKind ?? context.observedKeyKind { return kind }
        let first = try lmdb(entity: context.name) {
            try raw.withCursor(context.records) { cursor in try cursor.first() ? cursor.key : nil }
        }
        let kind = first.flatMap(OrderedKey.kind(of:)) ?? .other
        context.observedKeyKind = kind
        return kind
    }

    /// A stored primary key as text for messages: its value, or its bytes in hex when they do not
    /// decode.
    func describeStoredKey(_ bytes: [UInt8]) -> String {
        var position = 0
        guard let value = try? OrderedKey.queryValue(from: bytes, at: &position), position == bytes.count else { return bytes.hex }
        return value.plainDescription
    }
}

extension QueryValue {
    /// The value as a person reads it in a message: strings without quotes, dates in ISO 8601.
    var plainDescription: String {
        switch self {
        case .string(let value): value
        case .date(let value): value.formatted(.iso8601)
        default: explained
        }
    }
}
