import Foundation

extension CBORReader {
    /// What ``checkJSONValue(at:depth:)`` found: the shape of the JSON value ``jsonValue(at:depth:)`` would make.
    package enum JSONShape { case null, scalar, container }

    /// Reads the item at `offset` as ``jsonValue(at:depth:)`` does, failing where it fails, but
    /// makes no value: for checks that keep nothing (``StoredRecord/check(key:bytes:fields:entity:)``).
    package func checkJSONValue(at offset: inout Int, depth: Int = 0) throws(CBORReadFailure) -> JSONShape {
        guard depth < CBOR.maximumDepth else { throw .corrupt(offset: offset, reason: "nesting too deep") }
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .unsigned, .negative:
            return .scalar
        case .text:
            offset = start
            _ = try readValidTextRange(at: &offset)
            return .scalar
        case .bytes:
            offset = start
            _ = try readStringRange(.bytes, at: &offset)
            return .scalar
        case .array:
            let count = try checkedLength(head, at: offset, start: start, perItem: 1)
            for _ in 0..<count { _ = try checkJSONValue(at: &offset, depth: depth + 1) }
            return .container
        case .map:
            let count = try checkedLength(head, at: offset, start: start, perItem: 2)
            for _ in 0..<count {
                let keyStart = offset
                if try checkJSONValue(at: &offset, depth: depth + 1) == .container {
                    throw .corrupt(offset: keyStart, reason: "a map key that is an array or a map")
                }
                _ = try checkJSONValue(at: &offset, depth: depth + 1)
            }
            return .container
        case .tag:
            switch head.argument {
            case CBOR.epochDateTag:
                _ = try readDouble(at: &offset)
                return .scalar
            case CBOR.positiveBignumTag, CBOR.negativeBignumTag:
                offset = start
                _ = try readWideInteger(at: &offset)
                return .scalar
            case CBOR.uuidTag:
                let range = try readStringRange(.bytes, at: &offset)
                guard range.count == 16 else { throw .corrupt(offset: range.lowerBound, reason: "a UUID of \(range.count) bytes") }
                return .scalar
            default:
                return try checkJSONValue(at: &offset, depth: depth + 1)
            }
        case .simple:
            switch head.info {
            case 20, 21: return .scalar
            case 22, 23: return .null
            case 25, 26, 27: return floatValue(head).isFinite ? .scalar : .null
            default: throw .corrupt(offset: start, reason: "simple value \(head.info)")
            }
        }
    }

    /// The item at `offset` as a JSON value (see ``StoredRecord`` for the mapping), advancing
    /// past it. Nesting is bounded by `CBOR.maximumDepth`.
    package func jsonValue(at offset: inout Int, depth: Int = 0) throws(CBORReadFailure) -> JSONValue {
        guard depth < CBOR.maximumDepth else { throw .corrupt(offset: offset, reason: "nesting too deep") }
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .unsigned, .negative:
            offset = start
            let value = try readWideInteger(at: &offset)
            return value.exactly(Int64.self).map(JSONValue.int) ?? .wideInt(value)
        case .text:
            offset = start
            return .string(try readString(at: &offset))
        case .bytes:
            offset = start
            return .string(Data(bytes[try readStringRange(.bytes, at: &offset)]).base64EncodedString())
        case .array:
            let count = try checkedLength(head, at: offset, start: start, perItem: 1)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try jsonValue(at: &offset, depth: depth + 1)) }
            return .array(elements)
        case .map:
            let count = try checkedLength(head, at: offset, start: start, perItem: 2)
            var members: [JSONMember] = []
            members.reserveCapacity(count)
            for _ in 0..<count {
                let key: String
                let keyStart = offset
                switch try jsonValue(at: &offset, depth: depth + 1) {
                case .string(let text): key = text
                case .array, .object:
                    // Strata writes text and integer keys only; a container as a key would be
                    // spelled as JSON text, re-escaped at every level: exponential in the nesting.
                    throw .corrupt(offset: keyStart, reason: "a map key that is an array or a map")
                case let other: key = other.jsonText
                }
                members.append(JSONMember(key: key, value: try jsonValue(at: &offset, depth: depth + 1)))
            }
            return .object(members)
        case .tag:
            switch head.argument {
            case CBOR.epochDateTag:
                let seconds = try readDouble(at: &offset)
                return .string(Self.isoText(Date(timeIntervalSince1970: seconds)))
            case CBOR.positiveBignumTag, CBOR.negativeBignumTag:
                offset = start
                return .wideInt(try readWideInteger(at: &offset))
            case CBOR.uuidTag:
                let range = try readStringRange(.bytes, at: &offset)
                guard range.count == 16 else { throw .corrupt(offset: range.lowerBound, reason: "a UUID of \(range.count) bytes") }
                let b = Array(bytes[range])
                return .string(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString)
            default:
                return try jsonValue(at: &offset, depth: depth + 1)   // a URL's text, or a tag Strata does not write
            }
        case .simple:
            switch head.info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22, 23: return .null
            case 25, 26, 27:
                let value = floatValue(head)
                return value.isFinite ? .double(value) : .null
            default: throw .corrupt(offset: start, reason: "simple value \(head.info)")
            }
        }
    }

    /// ISO 8601 in UTC with `Z`; fractional seconds (milliseconds) only when the date has them.
    package static func isoText(_ date: Date) -> String {
        if let text = DateParsing.iso8601Text(date.timeIntervalSince1970) { return text }
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        return date.formatted(whole ? .iso8601 : Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
