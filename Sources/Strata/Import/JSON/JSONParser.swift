/// Limits that keep hostile JSON from exhausting the stack or memory.
public struct JSONLimits: Sendable, Equatable {
    /// The deepest nesting of arrays and objects accepted. Deeper input is an error, never a stack
    /// overflow: the parser recurses once per level.
    public var maximumDepth: Int
    /// The longest string accepted, in UTF-8 bytes. A longer one is an error as soon as the limit
    /// is passed, before the rest of it is read.
    public var maximumStringLength: Int

    /// Limits of 512 levels of nesting and 64 MiB strings unless given.
    public init(maximumDepth: Int = 512, maximumStringLength: Int = 64 << 20) {
        self.maximumDepth = maximumDepth
        self.maximumStringLength = maximumStringLength
    }
}

/// A strict RFC 8259 JSON parser over a chunked byte source, that hands out the records of a
/// document one at a time (``nextRecord()``), so that memory holds one record, not the input.
///
/// Strict: no trailing commas, no comments, no NaN, no leading zeros, no unescaped control
/// characters, valid UTF-8 only, lone surrogate escapes refused. Every error is a
/// `StrataError(.malformedJSON)` whose ``StrataError/position`` is the byte, line and column where
/// the parser stopped.
struct JSONParser {
    private var source: any JSONByteSource
    let limits: JSONLimits
    /// The current chunk; `index` is the next byte to read in it.
    private(set) var buffer: [UInt8] = []
    var index = 0
    /// The absolute offset of `buffer[0]`.
    private var base = 0
    private var line = 1
    /// The absolute offset at which the current line starts.
    private var lineStart = 0
    private var exhausted = false
    /// Bytes of a string or number that spans chunks, or of a string with escapes.
    private(set) var scratch: [UInt8] = []
    private var state = DocumentState.start
    /// The document is one object read as the single record (no root key asked for it).
    private(set) var documentIsOneObject = false

    private enum DocumentState {
        case start
        /// Inside the records array; `wrapped` when it is the value of the root key.
        case inArray(first: Bool, wrapped: Bool)
        /// The document is one object, not yet handed out.
        case single(JSONValue)
        case finished
    }

    init(source: any JSONByteSource, limits: JSONLimits = JSONLimits()) {
        self.source = source
        self.limits = limits
    }

    /// The absolute byte offset of the next byte.
    var offset: Int { base + index }

    /// The position of the next byte.
    var position: InputPosition { InputPosition(offset: offset, line: line, column: offset - lineStart + 1) }

    // MARK: Records

    /// The next record of the document: the elements of a top-level array, the one top-level
    /// object, or the elements of the array under `rootKey` in a top-level object. Nil at the end,
    /// after checking that nothing but whitespace follows.
    mutating func nextRecord(rootKey: String?) throws(StrataError) -> JSONValue? {
        switch try nextPendingRecord(rootKey: rootKey) {
        case nil: return nil
        case .parsed(let value): return value
        case .atValue: return try parseValue(depth: 1)
        }
    }

    /// The next record, parsed already, or about to be read.
    enum PendingRecord {
        /// The document's one record (a single object), parsed and checked to end the document.
        case parsed(JSONValue)
        /// An element of the records array starts at the next non-whitespace byte: the caller
        /// reads exactly one value at depth 1, as ``parseValue(depth:)`` with `depth: 1` would.
        case atValue
    }

    /// ``nextRecord(rootKey:)`` that stops before an element of the records array, so that a
    /// caller can read it without building a ``JSONValue``. Nil at the end.
    mutating func nextPendingRecord(rootKey: String?) throws(StrataError) -> PendingRecord? {
        switch state {
        case .start:
            try skipWhitespace()
            guard let byte = try peek() else { throw failure("the input is empty; expected a JSON array or object") }
            if let rootKey {
                guard byte == UInt8(ascii: "{") else {
                    throw failure("expected an object with the member \(JSONValue.quoted(rootKey)), found \(describe(byte))")
                }
                index += 1
                try enterRootMember(rootKey)
            } else if byte == UInt8(ascii: "[") {
                index += 1
                state = .inArray(first: true, wrapped: false)
            } else if byte == UInt8(ascii: "{") {
                documentIsOneObject = true
                state = .single(try parseValue(depth: 0))
                try expectEnd()
            } else {
                throw failure("expected a JSON array or object, found \(describe(byte))")
            }
            return try nextPendingRecord(rootKey: rootKey)
        case .single(let value):
            state = .finished
            return .parsed(value)
        case .inArray(let first, let wrapped):
            try skipWhitespace()
            guard let byte = try peek() else { throw failure("unexpected end of input inside the records array") }
            if byte == UInt8(ascii: "]") {
                index += 1
                if wrapped { try finishRootObject(rootKey: rootKey) } else { try expectEnd() }
                state = .finished
                return nil
            }
            if !first {
                guard byte == UInt8(ascii: ",") else {
                    throw failure("expected ',' or ']' after a record, found \(describe(byte))")
                }
                index += 1
                try skipWhitespace()
                if try peek() == UInt8(ascii: "]") { throw failure("a trailing comma before ']' is not JSON") }
            }
            state = .inArray(first: false, wrapped: wrapped)
            return .atValue
        case .finished:
            return nil
        }
    }

    /// ``nextRecord(rootKey:)`` with the position where the record starts, for messages.
    mutating func nextRecordWithStart(rootKey: String?) throws(StrataError) -> (JSONValue, InputPosition)? {
        try skipWhitespace()
        let start = position
        guard let record = try nextRecord(rootKey: rootKey) else { return nil }
        return (record, start)
    }

    /// ``nextPendingRecord(rootKey:)`` with the position where the record starts, for messages.
    mutating func nextPendingRecordWithStart(rootKey: String?) throws(StrataError) -> (PendingRecord, InputPosition)? {
        try skipWhitespace()
        let start = position
        guard let record = try nextPendingRecord(rootKey: rootKey) else { return nil }
        return (record, start)
    }

    /// Reads members of the top-level object up to the value of `rootKey`, skipping the others.
    private mutating func enterRootMember(_ rootKey: String) throws(StrataError) {
        var first = true
        var seen: [String] = []
        var members = 0
        while true {
            guard let key = try nextMemberKey(first: &first) else {
                // Well-formed JSON without the member: a wrong root key, not malformed input.
                let listed = seen.map(JSONValue.quoted).joined(separator: ", ") + (members > seen.count ? ", … (\(members) in all)" : "")
                var error = StrataError(.invalidValue, "the top-level object has no member \(JSONValue.quoted(rootKey)) (the root key); "
                    + (seen.isEmpty ? "it has no members" : (members == 1 ? "its member is " : "its members are ") + listed))
                error.position = position
                throw error
            }
            members += 1
            if seen.count < 20 { seen.append(key) }
            if key == rootKey {
                try skipWhitespace()
                switch try peek() {
                case UInt8(ascii: "["):
                    index += 1
                    state = .inArray(first: true, wrapped: true)
                case UInt8(ascii: "{"):
                    state = .single(try parseValue(depth: 1))
                    try finishRootObject(rootKey: rootKey)
                case let byte:
                    throw failure("the member \(JSONValue.quoted(rootKey)) must be an array or an object of records, found \(byte.map(describe) ?? "the end of input")")
                }
                return
            }
            _ = try parseValue(depth: 1)
        }
    }

    /// Reads the members after the records, up to the end of the top-level object. A second
    /// member named `rootKey` is refused: which of the two holds the records would be a guess.
    private mutating func finishRootObject(rootKey: String?) throws(StrataError) {
        var first = false
        while true {
            let start = position
            guard let key = try nextMemberKey(first: &first) else { break }
            if key == rootKey {
                var error = StrataError(.invalidValue, "the top-level object has the member \(JSONValue.quoted(key)) (the root key) more than once; "
                    + "only one may hold the records")
                error.position = start
                throw error
            }
            _ = try parseValue(depth: 1)
        }
        try expectEnd()
    }

    /// The next member key of an object whose `{` was read, with its `:`; nil after the `}`.
    private mutating func nextMemberKey(first: inout Bool) throws(StrataError) -> String? {
        guard try nextMember(first: &first) else { return nil }
        let key = try parseString()
        try expectColon(after: key)
        return key
    }

    /// Moves to the next member of an object whose `{` was read: to the opening quote of its key
    /// (read it with ``parseStringToken()``, then ``expectColon(after:)``); false after the `}`.
    @inline(__always)
    mutating func nextMember(first: inout Bool) throws(StrataError) -> Bool {
        if !first, index + 1 < buffer.count, buffer[index] == UInt8(ascii: ","), buffer[index + 1] == UInt8(ascii: "\"") {
            index += 1
            return true
        }
        return try nextMemberSlowly(first: &first)
    }

    private mutating func nextMemberSlowly(first: inout Bool) throws(StrataError) -> Bool {
        try skipWhitespace()
        guard let byte = try peek() else { throw failure("unexpected end of input inside an object") }
        if byte == UInt8(ascii: "}") {
            index += 1
            return false
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw failure("expected ',' or '}' after an object member, found \(describe(byte))") }
            index += 1
            try skipWhitespace()
        }
        first = false
        guard let quote = try peek() else { throw failure("unexpected end of input inside an object") }
        guard quote == UInt8(ascii: "\"") else {
            throw failure(quote == UInt8(ascii: "}") ? "a trailing comma before '}' is not JSON" : "expected a member name in double quotes, found \(describe(quote))")
        }
        return true
    }

    /// The `:` after the member key `key`.
    @inline(__always)
    mutating func expectColon(after key: @autoclosure () -> String) throws(StrataError) {
        if index < buffer.count, buffer[index] == UInt8(ascii: ":") {
            index += 1
            return
        }
        try skipWhitespace()
        guard let colon = try peek(), colon == UInt8(ascii: ":") else {
            throw failure("expected ':' after the member name \(JSONValue.quoted(key()))")
        }
        index += 1
    }

    /// Checks that only whitespace remains.
    private mutating func expectEnd() throws(StrataError) {
        try skipWhitespace()
        if let byte = try peek() { throw failure("unexpected \(describe(byte)) after the end of the JSON document") }
    }

    // MARK: Values

    /// Parses one value; `depth` is the nesting level of the containers around it.
    ///
    /// Iterative, with the open containers on explicit stacks: hostile nesting costs heap, up to
    /// the depth limit, never the thread's stack (a reader thread or a dispatch thread has far
    /// less of it than the main thread). The elements of open arrays and the members of open
    /// objects sit in stacks of their own and grow in place, never copied on append.
    mutating func parseValue(depth: Int) throws(StrataError) -> JSONValue {
        var isObject: [Bool] = []          // the open containers, innermost last
        var arrays: [[JSONValue]] = []     // elements of the open arrays
        var objects: [[JSONMember]] = []   // members of the open objects
        var keys: [String] = []            // the key of the value being parsed, per open object
        while true {
            // A value starts here: a scalar completes it, a non-empty container opens a level.
            try skipWhitespace()
            guard let byte = try peek() else { throw failure("unexpected end of input; expected a value") }
            var value: JSONValue
            switch byte {
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "{"):
                try checkDepth(depth + isObject.count)
                index += 1
                var first = true
                guard let key = try nextMemberKey(first: &first) else {
                    value = .object([])
                    break
                }
                var members: [JSONMember] = []
                members.reserveCapacity(16)
                objects.append(members)
                keys.append(key)
                isObject.append(true)
                continue
            case UInt8(ascii: "["):
                try checkDepth(depth + isObject.count)
                index += 1
                try skipWhitespace()
                if try peek() == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                    break
                }
                arrays.append([])
                isObject.append(false)
                continue
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            default:
                throw failure("expected a value, found \(describe(byte))")
            }
            // The value is complete: add it to its container, closing every container it completes.
            while true {
                guard let inObject = isObject.last else { return value }
                if inObject {
                    let key = keys.removeLast()
                    objects[objects.count - 1].append(JSONMember(key: key, value: value))
                    var first = false
                    if let nextKey = try nextMemberKey(first: &first) {
                        keys.append(nextKey)
                        break
                    }
                    isObject.removeLast()
                    value = .object(objects.removeLast())
                } else {
                    arrays[arrays.count - 1].append(value)
                    try skipWhitespace()
                    guard let next = try peek() else { throw failure("unexpected end of input inside an array") }
                    if next == UInt8(ascii: "]") {
                        index += 1
                        isObject.removeLast()
                        value = .array(arrays.removeLast())
                        continue
                    }
                    guard next == UInt8(ascii: ",") else {
                        throw failure("expected ',' or ']' after an array element, found \(describe(next))")
                    }
                    index += 1
                    try skipWhitespace()
                    if try peek() == UInt8(ascii: "]") { throw failure("a trailing comma before ']' is not JSON") }
                    break
                }
            }
        }
    }

    func checkDepth(_ depth: Int) throws(StrataError) {
        if depth >= limits.maximumDepth {
            throw failure("arrays and objects nest deeper than \(limits.maximumDepth) levels")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(StrataError) {
        let start = position
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard let byte = try peek(), byte == expected else {
                throw StrataError.malformed("expected '\(literal)'", at: start)
            }
            index += 1
        }
    }

    // MARK: Bytes

    /// The next byte without consuming it, reading the next chunk when this one is used up.
    @inline(__always)
    mutating func peek() throws(StrataError) -> UInt8? {
        if index < buffer.count { return buffer[index] }
        return try refill() ? buffer[index] : nil
    }

    /// Replaces the used-up chunk with the next one; false at the end of the input.
    mutating func refill() throws(StrataError) -> Bool {
        guard !exhausted else { return false }
        base += buffer.count
        index = 0
        try source.nextChunk(into: &buffer)
        if buffer.isEmpty { exhausted = true }
        return !buffer.isEmpty
    }

    /// Skips whitespace; inlined for the usual case of none.
    @inline(__always)
    mutating func skipWhitespace() throws(StrataError) {
        if index < buffer.count, buffer[index] > UInt8(ascii: " ") { return }
        try skipWhitespaceSlowly()
    }

    private mutating func skipWhitespaceSlowly() throws(StrataError) {
        while true {
            while index < buffer.count {
                switch buffer[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    index += 1
                case UInt8(ascii: "\n"):
                    index += 1
                    line += 1
                    lineStart = base + index
                default:
                    return
                }
            }
            guard try refill() else { return }
        }
    }

    /// An error at the current position.
    func failure(_ message: String) -> StrataError {
        StrataError.malformed(message, at: position)
    }

    func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        default: "the byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    // MARK: Strings and numbers (JSONParser+Scalars.swift)

    mutating func appendScratch(_ bytes: ArraySlice<UInt8>) { scratch.append(contentsOf: bytes) }
    mutating func appendScratch(_ byte: UInt8) { scratch.append(byte) }
    mutating func clearScratch() { scratch.removeAll(keepingCapacity: true) }
    mutating func advance(_ count: Int = 1) { index += count }
}

extension StrataError {
    static func malformed(_ message: String, at position: InputPosition) -> StrataError {
        var error = StrataError(.malformedJSON, "malformed JSON at \(position): \(message)")
        error.position = position
        return error
    }
}
