import Foundation

/// Query values read straight from CBOR bytes: the part of ``StoredFieldValues`` (and of
/// relationship edits) that turns one stored item, found by ``RecordCursor``, into a ``QueryValue``.
///
/// Paths into embedded structs (`address.city`) walk nested maps; a path through an array
/// (`addresses.city`) yields the list of the elements' values, which quantifiers then range over.
extension CBORReader {
    /// The value at `offset`, or, when `remaining` is not empty, the value at that path inside it.
    package func queryValue(at start: Int, remaining: ArraySlice<String>, depth: Int = 0) throws(CBORReadFailure) -> QueryValue? {
        guard depth < CBOR.maximumDepth else { throw .corrupt(offset: start, reason: "nesting too deep") }
        var offset = start
        let head = try readHead(at: &offset)
        switch head.major {
        case .map:
            guard let name = remaining.first else { return nil }   // a struct is not a comparable value
            for _ in 0..<min(head.argument, UInt64(bytes.count)) {
                var keyOffset = offset
                let key = try readString(at: &keyOffset)
                offset = keyOffset
                if key == name { return try queryValue(at: offset, remaining: remaining.dropFirst(), depth: depth + 1) }
                try skipItem(at: &offset)
            }
            return nil
        case .array:
            var elements: [QueryValue] = []
            for _ in 0..<min(head.argument, UInt64(bytes.count)) {
                if let element = try queryValue(at: offset, remaining: remaining, depth: depth + 1) { elements.append(element) }
                try skipItem(at: &offset)
            }
            return .list(elements)
        default:
            guard remaining.isEmpty else { return nil }
            return try scalar(head, at: start, after: offset)
        }
    }

    /// A scalar item (number, string, bytes, tagged value, simple value) as a query value.
    private func scalar(_ head: Head, at start: Int, after offset: Int) throws(CBORReadFailure) -> QueryValue? {
        switch head.major {
        case .unsigned:
            return head.argument <= UInt64(Int64.max) ? .int(Int64(head.argument)) : .uint(head.argument)
        case .negative:
            return head.argument <= UInt64(Int64.max) ? .int(-1 - Int64(head.argument)) : .wideInt(WideInteger(isNegative: true, magnitude: UInt128(head.argument) + 1)!)
        case .text:
            var position = start
            return .string(try readString(at: &position))
        case .bytes:
            var position = start
            return .data(Data(bytes[try readStringRange(.bytes, at: &position)]))
        case .tag:
            var inner = offset
            switch head.argument {
            case CBOR.epochDateTag:
                return .date(Date(timeIntervalSince1970: try readDouble(at: &inner)))
            case CBOR.positiveBignumTag, CBOR.negativeBignumTag:
                inner = start
                return try readWideInteger(at: &inner).queryValue
            case CBOR.uuidTag:
                let range = try readStringRange(.bytes, at: &inner)
                guard range.count == 16 else { return nil }
                let b = Array(bytes[range])
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            default:
                return try queryValue(at: offset, remaining: [], depth: 1)
            }
        case .simple:
            switch head.info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22, 23: return .null
            case 25, 26, 27: return .double(floatValue(head))
            default: return nil
            }
        case .map, .array:
            return nil
        }
    }
}
