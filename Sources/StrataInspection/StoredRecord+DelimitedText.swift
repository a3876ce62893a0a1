@_spi(Format) import StrataFormat

/// Delimited text (RFC 4180: CSV, or TSV with tabs), the one writer of it: what `strata query`
/// and `export` print with `--format csv|tsv`, header lines and aggregate rows included.
///
/// A field is quoted when it holds the separator, a quote, a line break (CR, LF or both: bytes,
/// never `Character`s, where "\r\n" is one) or another control character, or starts or ends with
/// a space; quotes inside are doubled. Delimited text has no other escapes, so a quoted field
/// keeps every byte of the value and Python's `csv` module reads it back whole.
public enum DelimitedText {
    /// Appends `utf8` as one field, quoted when it needs to be.
    public static func appendField(_ utf8: UnsafeBufferPointer<UInt8>, separator: UInt8, to bytes: inout [UInt8]) {
        guard needsQuotes(utf8, separator: separator) else {
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            bytes.append(byte)
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as one field, quoted when it needs to be.
    public static func appendField(_ text: String, separator: UInt8, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendField($0, separator: separator, to: &bytes) }
    }

    /// Appends one line: the fields, separated, then a line feed.
    public static func appendLine(_ fields: [String], separator: UInt8, to bytes: inout [UInt8]) {
        for (position, field) in fields.enumerated() {
            if position > 0 { bytes.append(separator) }
            appendField(field, separator: separator, to: &bytes)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Whether a field must be quoted.
    @inline(__always)
    static func needsQuotes(_ utf8: UnsafeBufferPointer<UInt8>, separator: UInt8) -> Bool {
        guard let first = utf8.first else { return false }
        if first == UInt8(ascii: " ") || utf8[utf8.count - 1] == UInt8(ascii: " ") { return true }
        for byte in utf8 where byte < 0x20 || byte == separator || byte == UInt8(ascii: "\"") || byte == 0x7F { return true }
        return false
    }
}

/// One record's cells, as ``QueryRequest/forEachRow(columns:_:)`` hands them out: each column's
/// value as the UTF-8 text a table or CSV cell shows.
public struct RecordCells: Sendable {
    let record: [UInt8]
    let scratch: [UInt8]
    let cells: [(inRecord: Bool, range: Range<Int>)?]

    /// The number of columns.
    public var count: Int { cells.count }

    /// The text of the cell in `column` (empty for null or a field the record lacks).
    public subscript(column: Int) -> ArraySlice<UInt8> {
        guard let cell = cells[column] else { return [] }
        return cell.inRecord ? record[cell.range] : scratch[cell.range]
    }
}

extension QueryRequest where Root == StoredRecord {
    /// Calls `body` with each matching record's cells, written straight from the stored bytes: a
    /// value a column, in `columns`' order, as a table or CSV cell shows it: text as it is,
    /// nothing for null or a field the record lacks, dates as ISO 8601 text, other values as
    /// their JSON text (what ``StoredRecord`` maps them to).
    ///
    /// - Parameters:
    ///   - columns: stored field names; a name the entity lacks gives empty cells.
    ///   - body: called with each record's cells, in query order.
    public func forEachRow(columns: [String], _ body: (RecordCells) throws -> Void) throws {
        guard let context = try resolvedContext() else { return }
        let table = context.schema.fields
        let largest = table.namesByID.count
        // Each field id's column, or nil when it is not printed.
        var columnOfID = [Int?](repeating: nil, count: largest)
        for id in 0..<largest {
            guard let name = table.name(for: id), !FieldTable.isRemoved(name) else { continue }
            columnOfID[id] = columns.firstIndex(of: name)
        }
        var scratch: [UInt8] = []
        // Where each column's cell is: in the record's bytes (text) or in `scratch` (the rest).
        var cells = [(inRecord: Bool, range: Range<Int>)?](repeating: nil, count: columns.count)
        try execute(query) { match in
            scratch.removeAll(keepingCapacity: true)
            for column in cells.indices { cells[column] = nil }
            do {
                let reader = CBORReader(bytes: match.bytes)
                var cursor = try RecordCursor(reader)
                while let id = try cursor.nextField(in: reader) {
                    let column: Int
                    if id < largest {
                        guard let known = columnOfID[id] else {
                            try cursor.skipValue(in: reader)
                            continue
                        }
                        column = known
                    } else {
                        // A field added after the table was read (not in one transaction).
                        guard let name = table.name(for: id) else {
                            throw CBORReadFailure.corrupt(offset: cursor.position, reason: "field id \(id) is not in the entity's field table")
                        }
                        guard !FieldTable.isRemoved(name), let known = columns.firstIndex(of: name) else {
                            try cursor.skipValue(in: reader)
                            continue
                        }
                        column = known
                    }
                    guard cells[column] == nil else {   // the first of a repeated field, as `StoredRecord[name]` takes it
                        try cursor.skipValue(in: reader)
                        continue
                    }
                    cells[column] = try reader.appendCell(at: &cursor.position, to: &scratch)
                }
            } catch {
                // The same record read the slow way names its key and the problem.
                _ = try StoredRecord(key: match.key, bytes: match.bytes, fields: table, entity: entity)
                throw StrataError(.corruptRecord, "\(entity): a record does not decode: \(error)", entity: entity)
            }
            try body(RecordCells(record: match.bytes, scratch: scratch, cells: cells))
            return true
        }
    }

    /// Calls `body` with each matching record as one line of delimited text (``DelimitedText``):
    /// its cells (``forEachRow(columns:_:)``) separated, then a line feed.
    ///
    /// - Parameters:
    ///   - columns: stored field names; a name the entity lacks gives empty cells.
    ///   - separator: `,` for CSV, a tab for TSV.
    ///   - body: called with each line's bytes, line feed included, in query order.
    public func forEachDelimitedLine(columns: [String], separator: UInt8, _ body: ([UInt8]) throws -> Void) throws {
        var line: [UInt8] = []
        try forEachRow(columns: columns) { cells in
            line.removeAll(keepingCapacity: true)
            for column in 0..<cells.count {
                if column > 0 { line.append(separator) }
                cells[column].withUnsafeBufferPointer { DelimitedText.appendField($0, separator: separator, to: &line) }
            }
            line.append(UInt8(ascii: "\n"))
            try body(line)
        }
    }
}

extension CBORReader {
    /// The cell of the item at `offset`, advancing past it: text stays where it is in the record
    /// (`inRecord`), integers and other values are written to `scratch` (JSON text, or the text of
    /// a value that maps to text: a date, a UUID); nil for null.
    func appendCell(at offset: inout Int, to scratch: inout [UInt8]) throws(CBORReadFailure) -> (inRecord: Bool, range: Range<Int>)? {
        let start = offset
        let head = try readHead(at: &offset)
        let written = scratch.count
        switch head.major {
        case .text:
            offset = start
            return (true, try readValidTextRange(at: &offset))
        case .unsigned where head.argument <= UInt64(Int64.max):
            JSONValue.appendInteger(Int64(head.argument), to: &scratch)
        case .negative where head.argument <= UInt64(Int64.max):
            JSONValue.appendInteger(-1 - Int64(head.argument), to: &scratch)
        default:
            offset = start
            switch try jsonValue(at: &offset) {
            case .null: return nil
            case .string(let text): scratch.append(contentsOf: text.utf8)
            case let other: other.appendJSON(to: &scratch)
            }
        }
        return (false, written..<scratch.count)
    }
}
