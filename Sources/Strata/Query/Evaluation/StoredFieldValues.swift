import Foundation

/// A stored record's fields as query values, read straight from its CBOR bytes: filtering and
/// sorting need a few fields, not the whole record, so they skip the Codable decoder.
///
/// Paths into embedded structs (`address.city`) walk nested maps; a path through an array
/// (`addresses.city`) yields the list of the elements' values, which quantifiers then range over.
struct StoredFieldValues: FieldValues {
    private let reader: CBORReader
    /// Offsets of the top-level values, by field name.
    private let offsets: [String: Int]

    /// Indexes the top-level map of `bytes`; throws `.corruptRecord` when it is not one.
    init(bytes: [UInt8], fields: FieldTable, entity: String) throws(StrataError) {
        reader = CBORReader(bytes: bytes)
        var offsets: [String: Int] = [:]
        do {
            var offset = 0
            let head = try reader.readHead(at: &offset)
            guard head.major == .map else { throw CBORReadFailure.mismatch(offset: 0, expected: "a map") }
            for _ in 0..<min(head.argument, UInt64(bytes.count)) {
                let keyHead = try reader.readHead(at: &offset)
                guard keyHead.major == .unsigned else { throw CBORReadFailure.mismatch(offset: offset, expected: "a field id") }
                if let name = fields.name(for: Int(clamping: keyHead.argument)) { offsets[name] = offset }
                try reader.skipItem(at: &offset)
            }
        } catch {
            throw StrataError(.corruptRecord, "\(entity): stored record is not a valid CBOR map", entity: entity, cause: error)
        }
        self.offsets = offsets
    }

    func value(at path: [String]) -> QueryValue? {
        guard let first = path.first, let offset = offsets[first] else { return nil }
        return try? value(at: offset, remaining: path.dropFirst(), depth: 0)
    }

    /// The value at `offset`, or, when `remaining` is not empty, the value at that path inside it.
    private func value(at start: Int, remaining: ArraySlice<String>, depth: Int) throws(CBORReadFailure) -> QueryValue? {
        guard depth < CBOR.maximumDepth else { throw .corrupt(offset: start, reason: "nesting too deep") }
        var offset = start
        let head = try reader.readHead(at: &offset)
        switch head.major {
        case .map:
            guard let name = remaining.first else { return nil }   // a struct is not a comparable value
            for _ in 0..<min(head.argument, UInt64(reader.bytes.count)) {
                var keyOffset = offset
                let key = try reader.readString(at: &keyOffset)
                offset = keyOffset
                if key == name { return try value(at: offset, remaining: remaining.dropFirst(), depth: depth + 1) }
                try reader.skipItem(at: &offset)
            }
            return nil
        case .array:
            var elements: [QueryValue] = []
            for _ in 0..<min(head.argument, UInt64(reader.bytes.count)) {
                if let element = try value(at: offset, remaining: remaining, depth: depth + 1) { elements.append(element) }
                try reader.skipItem(at: &offset)
            }
            return .list(elements)
        default:
            guard remaining.isEmpty else { return nil }
            return try scalar(head, at: start, after: offset)
        }
    }

    /// A scalar item (number, string, bytes, tagged value, simple value) as a query value.
    private func scalar(_ head: CBORReader.Head, at start: Int, after offset: Int) throws(CBORReadFailure) -> QueryValue? {
        switch head.major {
        case .unsigned:
            return head.argument <= UInt64(Int64.max) ? .int(Int64(head.argument)) : .uint(head.argument)
        case .negative:
            return head.argument <= UInt64(Int64.max) ? .int(-1 - Int64(head.argument)) : .double(-1 - Double(head.argument))
        case .text:
            var position = start
            return .string(try reader.readString(at: &position))
        case .bytes:
            var position = start
            return .data(Data(reader.bytes[try reader.readStringRange(.bytes, at: &position)]))
        case .tag:
            var inner = offset
            switch head.argument {
            case CBOR.epochDateTag:
                return .date(Date(timeIntervalSince1970: try reader.readDouble(at: &inner)))
            case CBOR.uuidTag:
                let range = try reader.readStringRange(.bytes, at: &inner)
                guard range.count == 16 else { return nil }
                let b = Array(reader.bytes[range])
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            default:
                return try value(at: offset, remaining: [], depth: 1)
            }
        case .simple:
            switch head.info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22, 23: return .null
            case 25, 26, 27: return .double(reader.floatValue(head))
            default: return nil
            }
        case .map, .array:
            return nil
        }
    }
}
