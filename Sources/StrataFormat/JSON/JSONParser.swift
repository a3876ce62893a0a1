/// A strict RFC 8259 JSON parser over a chunked byte source, that hands out the records of its
/// input one at a time (``nextRecord(rootKey:)``, JSONParser+Records.swift), so that memory holds
/// one record, not the input.
///
/// Strict: no trailing commas, no comments, no NaN, no leading zeros, no unescaped control
/// characters, valid UTF-8 only, lone surrogate escapes refused. Every error is a
/// `StrataError(.malformedJSON)` whose ``StrataError/position`` is the byte, line and column where
/// the parser stopped.
package struct JSONParser {
    private var source: any JSONByteSource
    let limits: JSONLimits
    /// How the records lie in the input.
    let layout: InputLayout
    /// The JSON key keyed objects' member names fill.
    let keyField: String
    /// The current chunk; `index` is the next byte to read in it.
    private(set) var buffer: [UInt8] = []
    var index = 0
    /// The absolute offset of `buffer[0]`.
    private var base = 0
    private(set) var line = 1
    /// The absolute offset at which the current line starts.
    private var lineStart = 0
    private var exhausted = false
    /// Bytes of a string or number that spans chunks, or of a string with escapes.
    private(set) var scratch: [UInt8] = []
    var state = DocumentState.start
    /// The document is one object read as the single record (no root key asked for it).
    package var documentIsOneObject = false
    /// Records handed out so far.
    var recordsRead = 0
    /// A JSON Lines record was handed out and may still be being read: a line break now ends
    /// the line inside its value, which is malformed.
    var lineRecordIsOpen = false

    /// How the records lie in the input: an import's input format once told from the input (the
    /// importer's `ImportOptions.InputFormat` without `detected`, which the parser never reads by).
    package enum InputLayout: Sendable, Equatable {
        /// A JSON array of records, one record object, or either under a root key.
        case json
        /// JSON Lines: a record object a line.
        case jsonLines
        /// An object whose members are the records, each member's name its key field.
        case keyedObjects
    }

    /// Where the parser stands in the input's records.
    enum DocumentState {
        case start
        /// Inside the records array; `wrapped` when it is the value of the root key.
        case inArray(first: Bool, wrapped: Bool)
        /// The document is one object, not yet handed out.
        case single(JSONValue)
        /// Inside the object of keyed records; `wrapped` when it is the value of the root key.
        case keyed(first: Bool, wrapped: Bool)
        /// JSON Lines: before the next line's record; `lastLine` is the line of the record
        /// before it (0 before the first).
        case lines(lastLine: Int)
        case finished
    }

    /// A parser of `source` whose records lie as `layout` says; keyed objects' member names fill
    /// `keyField`.
    package init(source: any JSONByteSource, limits: JSONLimits = JSONLimits(), layout: InputLayout = .json,
         keyField: String = "id") {
        self.source = source
        self.limits = limits
        self.layout = layout
        self.keyField = keyField
    }

    /// The absolute byte offset of the next byte.
    package var offset: Int { base + index }

    /// The position of the next byte.
    var position: InputPosition { InputPosition(offset: offset, line: line, column: offset - lineStart + 1) }

    /// The next member key of an object whose `{` was read, with its `:`; nil after the `}`.
    mutating func nextMemberKey(first: inout Bool) throws(StrataError) -> String? {
        guard try nextMember(first: &first) else { return nil }
        let key = try parseString()
        try expectColon(after: key)
        return key
    }

    /// Moves to the next member of an object whose `{` was read: to the opening quote of its key
    /// (read it with ``parseStringToken()``, then ``expectColon(after:)``); false after the `}`.
    @inline(__always)
    package mutating func nextMember(first: inout Bool) throws(StrataError) -> Bool {
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
    package mutating func expectColon(after key: @autoclosure () -> String) throws(StrataError) {
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
    mutating func expectEnd() throws(StrataError) {
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
    package mutating func parseValue(depth: Int) throws(StrataError) -> JSONValue {
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

    package func checkDepth(_ depth: Int) throws(StrataError) {
        if depth >= limits.maximumDepth {
            throw failure("arrays and objects nest deeper than \(limits.maximumDepth) levels")
        }
    }

    package mutating func expectLiteral(_ literal: StaticString) throws(StrataError) {
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
    package mutating func peek() throws(StrataError) -> UInt8? {
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
    package mutating func skipWhitespace() throws(StrataError) {
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
                    if lineRecordIsOpen { throw lineEndsInsideRecord() }
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
    package func failure(_ message: String) -> StrataError {
        StrataError.malformed(message, at: position)
    }

    package func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        default: "the byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    // MARK: Strings and numbers (JSONParser+Scalars.swift)

    mutating func appendScratch(_ bytes: ArraySlice<UInt8>) { scratch.append(contentsOf: bytes) }
    mutating func appendScratch(_ byte: UInt8) { scratch.append(byte) }
    mutating func clearScratch() { scratch.removeAll(keepingCapacity: true) }
    package mutating func advance(_ count: Int = 1) { index += count }
}

extension StrataError {
    static func malformed(_ message: String, at position: InputPosition) -> StrataError {
        var error = StrataError(.malformedJSON, "malformed JSON at \(position): \(message)")
        error.position = position
        return error
    }
}
