@_spi(Format) import StrataFormat

/// Stored records written straight to JSON text, without building ``StoredRecord`` values: what
/// `strata query` and `export` print as JSON, at the speed of the bytes. The text is the
/// ``StoredRecord/jsonObject(renaming:)`` of the same record, byte for byte.
extension QueryRequest where Root == StoredRecord {
    /// Calls `body` with each matching record as the UTF-8 of a compact JSON object, in order;
    /// memory stays flat. The object's members are the record's fields in stored order.
    ///
    /// - Parameters:
    ///   - fields: the fields to write; nil for all of them.
    ///   - keys: output keys by stored field name (`export --json-keys`); others keep their names.
    ///   - body: called with each object's bytes, in query order.
    public func forEachJSONObject(fields: Set<String>? = nil, renaming keys: [String: String] = [:],
                                  _ body: ([UInt8]) throws -> Void) throws {
        guard let context = try resolvedContext() else { return }
        let table = context.schema.fields
        // Each field id's quoted output key and colon, as a range of one array; nil to leave it out.
        var keyBytes: [UInt8] = []
        func appendKey(_ name: String) -> Range<Int> {
            let start = keyBytes.count
            JSONValue.appendQuoted(keys[name] ?? name, to: &keyBytes)
            keyBytes.append(UInt8(ascii: ":"))
            return start..<keyBytes.count
        }
        let largest = table.namesByID.count
        var members: [Range<Int>?] = []
        for id in 0..<largest {
            guard let name = table.name(for: id), !FieldTable.isRemoved(name), fields?.contains(name) ?? true else { members.append(nil); continue }
            members.append(appendKey(name))
        }
        var buffer: [UInt8] = []
        try execute(query) { match in
            buffer.removeAll(keepingCapacity: true)
            do {
                let reader = CBORReader(bytes: match.bytes)
                var cursor = try RecordCursor(reader)
                buffer.append(UInt8(ascii: "{"))
                var first = true
                while let id = try cursor.nextField(in: reader) {
                    let key: Range<Int>
                    if id < largest, let known = members[id] {
                        key = known
                    } else if id >= largest, let name = table.name(for: id), !FieldTable.isRemoved(name), fields?.contains(name) ?? true {
                        key = appendKey(name)   // a field added after the table was read (not in one transaction)
                    } else {
                        guard table.name(for: id) != nil else {
                            throw CBORReadFailure.corrupt(offset: cursor.position, reason: "field id \(id) is not in the entity's field table")
                        }
                        try cursor.skipValue(in: reader)   // a field left out
                        continue
                    }
                    if !first { buffer.append(UInt8(ascii: ",")) }
                    first = false
                    keyBytes.withUnsafeBufferPointer { all in buffer.append(contentsOf: UnsafeBufferPointer(rebasing: all[key])) }
                    try reader.appendJSON(at: &cursor.position, to: &buffer)
                }
                buffer.append(UInt8(ascii: "}"))
            } catch {
                // The same record read the slow way names its key and the problem.
                _ = try StoredRecord(key: match.key, bytes: match.bytes, fields: table, entity: entity)
                throw StrataError(.corruptRecord, "\(entity): a record does not decode: \(error)", entity: entity)
            }
            try body(buffer)
            return true
        }
    }
}

extension CBORReader {
    /// Appends the item at `offset` as JSON text, as ``jsonValue(at:depth:)`` maps it, advancing
    /// past it: text, integers, arrays and maps written directly, the rest through `jsonValue`.
    func appendJSON(at offset: inout Int, to buffer: inout [UInt8], depth: Int = 0) throws(CBORReadFailure) {
        guard depth < CBOR.maximumDepth else { throw .corrupt(offset: offset, reason: "nesting too deep") }
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .unsigned where head.argument <= UInt64(Int64.max):
            JSONValue.appendInteger(Int64(head.argument), to: &buffer)
        case .negative where head.argument <= UInt64(Int64.max):
            JSONValue.appendInteger(-1 - Int64(head.argument), to: &buffer)
        case .text:
            offset = start
            let range = try readValidTextRange(at: &offset)
            buffer.append(UInt8(ascii: "\""))
            bytes.withUnsafeBufferPointer { all in
                JSONValue.appendEscaped(UnsafeBufferPointer(rebasing: all[range]), to: &buffer)
            }
            buffer.append(UInt8(ascii: "\""))
        case .array:
            let count = try checkedLength(head, at: offset, start: start, perItem: 1)
            buffer.append(UInt8(ascii: "["))
            for index in 0..<count {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                try appendJSON(at: &offset, to: &buffer, depth: depth + 1)
            }
            buffer.append(UInt8(ascii: "]"))
        default:
            offset = start
            try jsonValue(at: &offset, depth: depth).appendJSON(to: &buffer)
        }
    }
}
