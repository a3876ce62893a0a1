import Foundation
import ArgumentParser
import Strata

/// How records are printed.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, csv

    /// `table` when a person reads standard output, `json` otherwise.
    static var automatic: OutputFormat { Terminal.outputIsTerminal ? .table : .json }
}

/// Prints records one at a time in a format, keeping memory flat except for tables, whose column
/// widths need every row.
struct RecordOutput {
    let format: OutputFormat
    /// The fields printed, in order; records' other fields are left out.
    let columns: [String]
    /// Stored field names mapped to output keys (`export --json-keys`).
    var renamed: [String: String] = [:]
    private var count = 0
    private var rows: [[String]] = []

    init(format: OutputFormat, columns: [String], renamed: [String: String] = [:]) {
        self.format = format
        self.columns = columns
        self.renamed = renamed
    }

    mutating func begin() {
        switch format {
        case .json: Terminal.write("[")
        case .csv: Terminal.write(columns.map { Self.csvField(renamed[$0] ?? $0) }.joined(separator: ",") + "\n")
        case .table, .jsonl: break
        }
    }

    mutating func add(_ record: StoredRecord) {
        switch format {
        case .json:
            Terminal.write((count == 0 ? "\n" : ",\n") + "  " + object(record).jsonText)
        case .jsonl:
            Terminal.write(object(record).jsonText + "\n")
        case .csv:
            Terminal.write(columns.map { Self.csvField(Self.cell(record[$0])) }.joined(separator: ",") + "\n")
        case .table:
            rows.append(columns.map { Self.cell(record[$0]) })
        }
        count += 1
    }

    mutating func end() {
        switch format {
        case .json: Terminal.write(count == 0 ? "]\n" : "\n]\n")
        case .table: Terminal.write(Self.table(header: columns.map { renamed[$0] ?? $0 }, rows: rows) + "(\(count) record\(count == 1 ? "" : "s"))\n")
        case .jsonl, .csv: break
        }
    }

    /// The record as a JSON object of the chosen columns.
    private func object(_ record: StoredRecord) -> JSONValue {
        .object(columns.compactMap { name in record[name].map { JSONMember(key: renamed[name] ?? name, value: $0) } })
    }

    /// A value as a table or CSV cell: text as it is, null empty, containers as JSON.
    static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: ""
        case .string(let text)?: text
        case let other?: other.jsonText
        }
    }

    /// A CSV field, quoted when it holds a separator, a quote or any control character (CSV has
    /// no escapes: quoting keeps such a value one field, whole).
    static func csvField(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || String.isControl($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Left-aligned columns separated by two spaces, with a rule under the header; cells longer
    /// than 60 characters are cut with an ellipsis.
    static func table(header: [String], rows: [[String]]) -> String {
        // Every control character escaped (line breaks and tabs too, which would break the columns).
        let header = header.map { $0.escapingControlCharacters() }
        let clipped = rows.map { $0.map { cell in
            let visible = cell.escapingControlCharacters()
            return visible.count > 60 ? String(visible.prefix(59)) + "…" : visible
        } }
        let widths = header.indices.map { column in
            max(header[column].count, clipped.map { $0[column].count }.max() ?? 0)
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        return line(header) + line(widths.map { String(repeating: "-", count: $0) }) + clipped.map(line).joined()
    }
}
