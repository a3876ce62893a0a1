import Foundation
import Testing
import TestSupport
@testable import Strata

/// The tool's JSON output is written straight from the stored bytes
/// (``QueryRequest/forEachJSONObject(fields:renaming:_:)``), a fast path beside ``StoredRecord``:
/// held here to the JSON text of the same records read as ``StoredRecord``s, byte for byte.
@Suite struct JSONTextTests {
    struct Nested: Codable, Equatable, Sendable {
        var label: String
        var weights: [Double]
    }

    struct Sample: Record, Equatable {
        var id: Int64
        var text: String
        var optional: String?
        var number: Int64
        var unsigned: UInt64
        var ratio: Double
        var flag: Bool
        var when: Date
        var token: UUID
        var blob: Data
        var tags: [String]
        var nested: Nested?
        var link: URL?
        static let primaryKey = \Sample.id
    }

    private static func randomText(_ random: inout SeededGenerator) -> String {
        let pieces = ["a", "Z", "é", "🇩🇪", "\"", "\\", "\n", "\r\n", "\t", "\u{01}", "\u{1b}", "/", "€", " ", "日本", "\u{2028}"]
        return (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func sample(_ id: Int64, _ random: inout SeededGenerator) -> Sample {
        Sample(id: id, text: randomText(&random),
               optional: Bool.random(using: &random) ? nil : randomText(&random),
               number: [Int64.min, -1, 0, 1, Int64.max, Int64.random(in: .min ... .max, using: &random)].randomElement(using: &random)!,
               unsigned: [0, UInt64(Int64.max) + 1, .max, UInt64.random(in: 0 ... .max, using: &random)].randomElement(using: &random)!,
               ratio: [0, -0.0, 1.5, -1e-300, 1e300, 0.1, Double.random(in: -1e9...1e9, using: &random)].randomElement(using: &random)!,
               flag: Bool.random(using: &random),
               when: Date(timeIntervalSince1970: [0, 1.5, -86_400.25, Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &random))].randomElement(using: &random)!),
               token: UUID(), blob: Data((0..<Int.random(in: 0...9, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }),
               tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in randomText(&random) },
               nested: Bool.random(using: &random) ? nil : Nested(label: randomText(&random), weights: [1, 2.5, -3]),
               link: Bool.random(using: &random) ? nil : URL(string: "https://example.com/a?b=c&d=%20"))
    }

    @Test(arguments: [nil, Set(["text", "number", "nested", "unknown"])] as [Set<String>?])
    func bytesAreTheJSONOfTheStoredRecords(fields: Set<String>?) throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 11)
        try store.write { tx throws in try tx.insert((1...500).map { Self.sample($0, &random) }) }
        let renaming = ["text": "the_text", "ratio": "Ratio"]
        try store.read { tx throws in
            var fast: [String] = []
            try tx.query(entity: "Sample").forEachJSONObject(fields: fields, renaming: renaming) { bytes in
                fast.append(String(decoding: bytes, as: UTF8.self))
            }
            let general = try tx.query(entity: "Sample").all().map { record in
                StoredRecord(key: record.key, fields: record.fields.filter { fields?.contains($0.key) ?? true })
                    .jsonObject(renaming: renaming).jsonText
            }
            #expect(fast.count == 500)
            #expect(fast == general)
            if let first = fast.first, fields == nil { #expect(first.contains("\"the_text\":") && first.contains("\"Ratio\":"), "\(first)") }
        }
    }
}

/// The tool's CSV and TSV are written straight from the stored bytes
/// (``QueryRequest/forEachDelimitedLine(columns:separator:_:)``): held to the lines
/// ``DelimitedText`` writes from the same records read as ``StoredRecord``s, cell by cell.
@Suite struct DelimitedTextTests {
    /// A value as a cell: text as it is, nothing for null or absent, other values as JSON text.
    private static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: ""
        case .string(let text)?: text
        case let other?: other.jsonText
        }
    }

    @Test(arguments: [(UInt8(ascii: ","), ["id", "text", "optional", "number", "unsigned", "ratio", "flag", "when", "token", "blob", "tags", "nested", "link"]),
                      (UInt8(ascii: "\t"), ["nested", "unknown", "text", "id", "when"])])
    func linesAreTheCellsOfTheStoredRecords(separator: UInt8, columns: [String]) throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 12)
        try store.write { tx throws in try tx.insert((1...500).map { JSONTextTests.sample($0, &random) }) }
        try store.read { tx throws in
            var fast: [String] = []
            try tx.query(entity: "Sample").forEachDelimitedLine(columns: columns, separator: separator) { bytes in
                fast.append(String(decoding: bytes, as: UTF8.self))
            }
            let general = try tx.query(entity: "Sample").all().map { record in
                var bytes: [UInt8] = []
                DelimitedText.appendLine(columns.map { Self.cell(record[$0]) }, separator: separator, to: &bytes)
                return String(decoding: bytes, as: UTF8.self)
            }
            #expect(fast.count == 500)
            #expect(fast == general)
        }
    }

    @Test func fieldsAreQuotedWhenTheyMustBe() {
        func field(_ text: String) -> String {
            var bytes: [UInt8] = []
            DelimitedText.appendField(text, separator: UInt8(ascii: ","), to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(field("plain") == "plain")
        #expect(field("") == "")
        #expect(field("a,b") == "\"a,b\"")
        #expect(field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(field("cr\rlf\n") == "\"cr\rlf\n\"")
        #expect(field(" lead") == "\" lead\"")
        #expect(field("trail ") == "\"trail \"")
        #expect(field("tab\tx") == "\"tab\tx\"")
        #expect(field("del\u{7F}") == "\"del\u{7F}\"")
        #expect(field("日本 😀") == "日本 😀")
    }
}
