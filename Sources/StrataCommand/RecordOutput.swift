import Foundation
import ArgumentParser
import Strata

/// How records and reports are printed: the one `--format` option of every command that prints
/// them (each accepts the formats that fit it, ``OutputFormat/check(_:allowed:)``).
///
/// Not `CaseIterable`: argument-parser asks whether a default value's type is (a conformance
/// look-up through every record of the program at each parse), and nothing here lists the cases.
enum OutputFormat: String, ExpressibleByArgument {
    /// Columns for people, measured by display width.
    case table
    /// One JSON array (records) or object (a report).
    case json
    /// One JSON object a line.
    case jsonl
    /// RFC 4180: a header line, then one line a record; fields quoted when they hold a comma, a
    /// quote, a line break or another control character, or start or end with a space.
    case csv
    /// As `csv`, with tabs between fields.
    case tsv

    /// None: each command's `--format` help names the formats that command takes, where the
    /// values of the type would list all five on commands that refuse most of them.
    static var allValueStrings: [String] { [] }

    /// An empty list, what argument-parser gives a `CaseIterable` type whose values it is not told.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    /// `table` when a person reads standard output, `json` otherwise.
    static var automatic: OutputFormat { Terminal.outputIsTerminal ? .table : .json }

    /// `format`, when it is one of `allowed`; else a usage error listing them.
    static func check(_ format: OutputFormat, allowed: [OutputFormat]) throws -> OutputFormat {
        guard allowed.contains(format) else {
            throw ValidationError("--format \(format.rawValue) does not apply here; use " + allowed.map(\.rawValue).joined(separator: ", "))
        }
        return format
    }

    /// The field separator of a delimited format.
    var separator: UInt8? {
        switch self {
        case .csv: UInt8(ascii: ",")
        case .tsv: UInt8(ascii: "\t")
        default: nil
        }
    }
}

/// Prints records one at a time in a format, keeping memory flat except for tables, whose column
/// widths need every row. Output goes through standard output's buffer.
struct RecordOutput {
    let format: OutputFormat
    /// The fields printed, in order; records' other fields are left out.
    let columns: [String]
    /// Stored field names mapped to output keys (`export --json-keys`).
    var renamed: [String: String] = [:]
    /// What a table's closing line counts: `record` (`(3 records)`), `group`, `value`.
    var rowName = "record"
    private var count = 0
    /// The rows of a table, kept until the widths are known.
    private var table: TableText
    /// The output key of each column.
    private let keys: [String]
    /// Whether the columns are every field of the entity, so that a record prints as it is stored
    /// (JSON formats: its fields in stored order, absent ones left out).
    private let everyField: Bool

    init(format: OutputFormat, columns: [String], renamed: [String: String] = [:], everyField: Bool = false) {
        self.format = format
        self.columns = columns
        self.renamed = renamed
        self.keys = columns.map { renamed[$0] ?? $0 }
        self.everyField = everyField
        table = TableText(header: keys)
    }

    mutating func begin() {
        switch format {
        case .json: Terminal.write("[")
        case .csv, .tsv: Terminal.write(Self.delimitedLine(keys, separator: format.separator!))
        case .table, .jsonl: break
        }
    }

    /// Prints every record `request` matches, straight from the stored bytes: JSON (members in
    /// stored order) and delimited lines (``DelimitedText``); tables record by record.
    mutating func addAll(_ request: QueryRequest<StoredRecord>) throws {
        var count = self.count
        let format = self.format
        switch format {
        case .table:
            try request.forEachRow(columns: columns) { cells in
                for column in 0..<cells.count { table.append(cells[column]) }
                count += 1
            }
        case .csv, .tsv:
            // Delimited text quotes every control character, so it goes to the buffer as it is.
            try StandardOutput.shared.appendEach { batch in
                try request.forEachDelimitedLine(columns: columns, separator: format.separator!) { line in
                    batch.append(contentsOf: line)
                    batch.endPiece()
                    count += 1
                }
            }
        case .json, .jsonl:
            // JSON text escapes every control character, so it goes to the buffer as it is.
            try StandardOutput.shared.appendEach { batch in
                try request.forEachJSONObject(fields: everyField ? nil : Set(columns), renaming: renamed) { object in
                    if format == .json { batch.append(count == 0 ? "\n  " : ",\n  ") }
                    batch.append(contentsOf: object)
                    if format == .jsonl { batch.append(UInt8(ascii: "\n")) }
                    batch.endPiece()
                    count += 1
                }
            }
        }
        self.count = count
    }

    mutating func add(_ record: StoredRecord) {
        switch format {
        case .json, .jsonl:
            let first = count == 0
            let members = object(record)
            // JSON text escapes every control character, so it goes to the buffer as it is.
            Terminal.append { bytes in
                if format == .json { bytes.append(contentsOf: (first ? "\n  " : ",\n  ").utf8) }
                JSONMember.appendObject(members, to: &bytes)
                if format == .jsonl { bytes.append(UInt8(ascii: "\n")) }
            }
        case .csv, .tsv:
            Terminal.write(Self.delimitedLine(columns.map { Self.cell(record[$0]) }, separator: format.separator!))
        case .table:
            for column in columns { table.append(Self.cell(record[column])) }
        }
        count += 1
    }

    /// Prints one row of values, a value a column (an aggregate's groups, `--distinct`).
    mutating func addRow(_ values: [JSONValue]) {
        switch format {
        case .json, .jsonl:
            let first = count == 0
            let members = zip(keys, values).map { JSONMember(key: $0, value: $1) }
            Terminal.append { bytes in
                if format == .json { bytes.append(contentsOf: (first ? "\n  " : ",\n  ").utf8) }
                JSONMember.appendObject(members, to: &bytes)
                if format == .jsonl { bytes.append(UInt8(ascii: "\n")) }
            }
        case .csv, .tsv:
            Terminal.write(Self.delimitedLine(values.map { Self.cell($0) }, separator: format.separator!))
        case .table:
            for value in values { table.append(Self.cell(value)) }
        }
        count += 1
    }

    mutating func end() {
        switch format {
        case .json: Terminal.write(count == 0 ? "]\n" : "\n]\n")
        case .table:
            let rendered = table.rendered()
            Terminal.append { $0.append(contentsOf: rendered) }
            Terminal.write("(\(count) \(rowName)\(count == 1 ? "" : "s"))\n")
        case .jsonl, .csv, .tsv: break
        }
    }

    /// The record's members in the chosen columns, renamed.
    private func object(_ record: StoredRecord) -> [JSONMember] {
        // Every field: the record as it is stored (its fields are the entity's), renamed if asked.
        if everyField {
            guard !renamed.isEmpty else { return record.fields }
            return record.fields.map { JSONMember(key: renamed[$0.key] ?? $0.key, value: $0.value) }
        }
        return zip(columns, keys).compactMap { name, key in record[name].map { JSONMember(key: key, value: $0) } }
    }

    /// A value as a table or CSV cell: text as it is, null empty, containers as JSON.
    static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: ""
        case .string(let text)?: text
        case let other?: other.jsonText
        }
    }

    /// One line of delimited text (RFC 4180, ``DelimitedText``), ended by a line feed.
    static func delimitedLine(_ fields: [String], separator: UInt8) -> String {
        var bytes: [UInt8] = []
        DelimitedText.appendLine(fields, separator: separator, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A table of `rows` under `header` (``TableText``).
    static func table(header: [String], rows: [[String]]) -> String {
        var table = TableText(header: header)
        for row in rows { for cell in row { table.append(cell) } }
        return String(decoding: table.rendered(), as: UTF8.self)
    }

}
