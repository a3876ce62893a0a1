/// The records of an input, one at a time, in each ``JSONParser/InputLayout``: the elements of
/// a top-level array (or of the array under a root key), the one top-level object, the members of
/// keyed objects, the lines of JSON Lines. One state machine hands out every record of every
/// format, to the importer's pipeline, its batched import and schema inference alike.
extension JSONParser {
    // MARK: Records

    /// The next record of the input, as ``layout`` lays them out (with `rootKey`, those of the
    /// member of a top-level object it names). Nil at the end, after checking that nothing but
    /// whitespace follows.
    package mutating func nextRecord(rootKey: String?) throws(StrataError) -> JSONValue? {
        switch try nextPendingRecord(rootKey: rootKey) {
        case nil: return nil
        case .parsed(let value): return value
        case .atValue: return try parseValue(depth: 1)
        }
    }

    /// The next record, parsed already, or about to be read.
    package enum PendingRecord {
        /// A record parsed whole: the document's one object, or a keyed object with its name in
        /// the key field.
        case parsed(JSONValue)
        /// An element of the records array, or a JSON Lines record, starts at the next
        /// non-whitespace byte: the caller reads exactly one value at depth 1, as
        /// ``parseValue(depth:)`` with `depth: 1` would.
        case atValue
    }

    /// ``nextRecord(rootKey:)`` that stops before an element of the records array or a line's
    /// record, so that a caller can read it without building a ``JSONValue``. Nil at the end.
    mutating func nextPendingRecord(rootKey: String?) throws(StrataError) -> PendingRecord? {
        closeLineRecord()
        switch state {
        case .start:
            try start(rootKey: rootKey)
            return try nextPendingRecord(rootKey: rootKey)
        case .single(let value):
            state = .finished
            recordsRead += 1
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
            recordsRead += 1
            return .atValue
        case .keyed(let first, let wrapped):
            var isFirst = first
            guard try nextMember(first: &isFirst) else {
                if wrapped { try finishRootObject(rootKey: rootKey) } else { try expectEnd() }
                state = .finished
                return nil
            }
            let start = position
            let name = try parseString()
            try expectColon(after: name)
            state = .keyed(first: false, wrapped: wrapped)
            recordsRead += 1
            return .parsed(try keyedRecord(named: name, at: start))
        case .lines(let lastLine):
            try skipWhitespace()
            guard let byte = try peek() else {
                state = .finished
                return nil
            }
            if line == lastLine {
                throw failure("unexpected \(describe(byte)) after the record on line \(line); JSON Lines hold one record a line")
            }
            state = .lines(lastLine: line)
            lineRecordIsOpen = true
            recordsRead += 1
            return .atValue
        case .finished:
            return nil
        }
    }

    /// ``nextRecord(rootKey:)`` with the position where the record starts, for messages.
    package mutating func nextRecordWithStart(rootKey: String?) throws(StrataError) -> (JSONValue, InputPosition)? {
        closeLineRecord()
        try skipWhitespace()
        let start = position
        guard let record = try nextRecord(rootKey: rootKey) else { return nil }
        return (record, start)
    }

    /// ``nextPendingRecord(rootKey:)`` with the position where the record starts, for messages.
    package mutating func nextPendingRecordWithStart(rootKey: String?) throws(StrataError) -> (PendingRecord, InputPosition)? {
        closeLineRecord()
        try skipWhitespace()
        let start = position
        guard let record = try nextPendingRecord(rootKey: rootKey) else { return nil }
        return (record, start)
    }

    /// Reads the start of the input up to its first record, as ``layout`` says it lies.
    private mutating func start(rootKey: String?) throws(StrataError) {
        try skipWhitespace()
        if layout == .jsonLines {
            state = .lines(lastLine: 0)
            return
        }
        let keyed = layout == .keyedObjects
        guard let byte = try peek() else {
            throw failure("the input is empty; expected " + (keyed ? "an object of keyed records" : "a JSON array or object"))
        }
        if let rootKey {
            guard byte == UInt8(ascii: "{") else {
                throw failure("expected an object with the member \(JSONValue.quoted(rootKey)), found \(describe(byte))")
            }
            index += 1
            try findRootMember(rootKey)
            try skipWhitespace()
            switch try peek() {
            case UInt8(ascii: "{") where keyed:
                index += 1
                state = .keyed(first: true, wrapped: true)
            case UInt8(ascii: "[") where !keyed:
                index += 1
                state = .inArray(first: true, wrapped: true)
            case UInt8(ascii: "{"):
                state = .single(try parseValue(depth: 1))
                try finishRootObject(rootKey: rootKey)
            case let byte:
                throw failure("the member \(JSONValue.quoted(rootKey)) must be " + (keyed ? "an object of keyed records" : "an array or an object of records")
                    + ", found \(byte.map(describe) ?? "the end of input")")
            }
        } else if keyed {
            guard byte == UInt8(ascii: "{") else { throw failure("expected an object of keyed records, found \(describe(byte))") }
            index += 1
            state = .keyed(first: true, wrapped: false)
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
    }

    // MARK: Keyed objects

    /// The record of the keyed object named `name`, whose value is next: its members, with the
    /// name in ``keyField`` unless the object holds the name there already. Throws
    /// `.invalidRecord` naming the member when it is not an object or holds another value there.
    private mutating func keyedRecord(named name: String, at start: InputPosition) throws(StrataError) -> JSONValue {
        try skipWhitespace()
        let value = try parseValue(depth: 1)
        let member = "record \(recordsRead) (the member \(JSONValue.quoted(name)))"
        guard case .object(let members) = value else {
            throw Self.keyedFailure("\(member) is \(value.kind), not an object; keyed objects hold a record object in every member", at: start, record: recordsRead)
        }
        // The last of duplicate keys is the record's value, as the mapper takes it.
        guard let held = members.last(where: { $0.key == keyField }) else {
            var record = [JSONMember(key: keyField, value: .string(name))]
            record.append(contentsOf: members)
            return .object(record)
        }
        guard Self.value(held.value, isName: name) else {
            throw Self.keyedFailure("\(member) holds \(JSONValue.quoted(keyField)): \(held.value), not its name; the member names "
                + "of keyed objects fill \(JSONValue.quoted(keyField)), so name another key field for them "
                + "(ImportOptions.keyField, strata import --key-field NAME)", at: start, record: recordsRead)
        }
        return value
    }

    /// Whether a keyed object's own key field `value` is its member name `name`: the name itself,
    /// or an integer written as the name (`"42": {"id": 42}`).
    static func value(_ value: JSONValue, isName name: String) -> Bool {
        switch value {
        case .string(let text): text == name
        case .int, .wideInt: value.jsonText == name
        default: false
        }
    }

    private static func keyedFailure(_ message: String, at position: InputPosition, record: Int) -> StrataError {
        var error = StrataError(.invalidRecord, message)
        error.position = position
        error.record = record
        return error
    }

    // MARK: JSON Lines

    /// The previous JSON Lines record has been read: line breaks are whitespace again.
    @inline(__always)
    mutating func closeLineRecord() { lineRecordIsOpen = false }

    /// The error of a line break inside a JSON Lines record, at the break.
    func lineEndsInsideRecord() -> StrataError {
        failure("line \(line) ends inside its record; JSON Lines hold each record whole on one line")
    }

    // MARK: Root members

    /// Reads members of the top-level object, whose `{` was read, up to the value of `rootKey`,
    /// skipping the others; throws `.invalidValue` naming the members when there is none.
    private mutating func findRootMember(_ rootKey: String) throws(StrataError) {
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
            if key == rootKey { return }
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

    // MARK: Telling the format

    /// The layout an import's detected input format reads `source` as:
    /// `.jsonLines` when it starts with an object and another object starts on a later line,
    /// `.keyedObjects` when the document, or the value of `rootKey` in it, is an object of at
    /// least one member whose members are all objects, `.json` otherwise (also for input that
    /// reading it as JSON will refuse, which that reading then names). Reads the first record, or
    /// the whole keyed object a member at a time.
    package static func detectedLayout(of source: any JSONByteSource, rootKey: String?,
                               limits: JSONLimits) throws(StrataError) -> InputLayout {
        var parser = JSONParser(source: source, limits: limits)
        try parser.skipWhitespace()
        guard try parser.peek() == UInt8(ascii: "{") else { return .json }
        parser.index += 1
        if let rootKey {
            try parser.findRootMember(rootKey)
            try parser.skipWhitespace()
            guard try parser.peek() == UInt8(ascii: "{") else { return .json }
            parser.index += 1
            return try parser.membersAreAllObjects() ? .keyedObjects : .json
        }
        let allObjects = try parser.membersAreAllObjects()
        let lastLine = parser.line
        try parser.skipWhitespace()
        guard let next = try parser.peek() else { return allObjects ? .keyedObjects : .json }
        return next == UInt8(ascii: "{") && parser.line > lastLine ? .jsonLines : .json
    }

    /// Reads the members of an object whose `{` was read, to its `}`: whether it has any, and
    /// every value is an object.
    private mutating func membersAreAllObjects() throws(StrataError) -> Bool {
        var first = true
        var members = 0
        var allObjects = true
        while try nextMemberKey(first: &first) != nil {
            try skipWhitespace()
            if try peek() != UInt8(ascii: "{") { allObjects = false }
            _ = try parseValue(depth: 1)
            members += 1
        }
        return allObjects && members > 0
    }
}
