import Foundation
import Testing
import TestSupport

/// What `query` and `export` print: CSV and TSV that Python's `csv` module reads back exactly,
/// tables measured by display width that keep every character, and output written in buffers.
@Suite struct OutputFormatTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-output") }

    /// Values that break naive CSV and tables: line breaks of every kind, quotes, separators,
    /// spaces at either end, emoji, a flag, wide and combining characters.
    static let texts = [
        "cr\rx", "lf\nx", "crlf\r\nx", "two\r\n\r\nbreaks", "quote\"x\"", "comma,x", "tab\tx", "emoji 😀", "🇩🇪 flag",
        " lead", "trail ", "日本語", "e\u{301}", "plain", "",
    ]

    func importTexts() throws {
        let records = Self.texts.enumerated().map { ["id": $0.offset + 1, "text": $0.element] as [String: Any] }
        let path = dir.path("texts.json")
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store, path, "--entity", "T"])
        try #require(result.status == 0, "\(result.error)")
    }

    /// The rows Python's `csv` module reads from `text` with `delimiter`.
    func pythonRows(_ text: String, delimiter: String) throws -> [[String]] {
        let script = """
            import csv, io, json, sys
            reader = csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline=""), delimiter=sys.argv[1])
            print(json.dumps(list(reader)))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, delimiter]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String]])
    }

    @Test(arguments: [("csv", ","), ("tsv", "\t")])
    func delimitedOutputReadsBackIdenticallyWithPython(format: String, delimiter: String) throws {
        try importTexts()
        let expected = [["id", "text"]] + Self.texts.enumerated().map { [String($0.offset + 1), $0.element] }
        let query = try StrataCLI.run(["query", store, "T", "--format", format, "--fields", "id,text"])
        #expect(query.status == 0, "\(query.error)")
        #expect(try pythonRows(query.output, delimiter: delimiter) == expected, "\(query.output.debugDescription)")
        let export = try StrataCLI.run(["export", store, "T", "--format", format])
        #expect(export.status == 0, "\(export.error)")
        // Export's columns are the inferred fields in the data's key order, which Foundation chose.
        let exported = try pythonRows(export.output, delimiter: delimiter)
        let header = try #require(exported.first)
        #expect(Set(header) == ["id", "text"])
        #expect(exported.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
                == expected.dropFirst().map { ["id": $0[0], "text": $0[1]] })
    }

    @Test func aTableKeepsEveryCharacterWithControlCharactersEscaped() throws {
        try importTexts()
        let table = try StrataCLI.run(["query", store, "T", "--format", "table", "--fields", "id,text"])
        #expect(table.status == 0, "\(table.error)")
        #expect(!table.output.unicodeScalars.contains("\u{FFFD}"))
        for text in Self.texts where !text.isEmpty {
            let visible = text.replacingOccurrences(of: "\r", with: "\\u{D}").replacingOccurrences(of: "\n", with: "\\u{A}")
                .replacingOccurrences(of: "\t", with: "\\u{9}")
            #expect(table.output.contains(visible), "\(visible.debugDescription) is missing from \(table.output)")
        }
        // One line per record, header and rule: escaped line breaks do not break the layout.
        #expect(table.output.split(separator: "\n", omittingEmptySubsequences: false).count == Self.texts.count + 4)
    }

    @Test func tablesAlignByDisplayWidth() throws {
        let path = dir.path("wide.json")
        try Data(#"[{"id": 1, "text": "ab"}, {"id": 2, "text": "日本"}, {"id": 3, "text": "🇩🇪"}, {"id": 4, "text": "e\u0301"}]"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        try #require(try StrataCLI.run(["import", store, path, "--entity", "W"]).status == 0)
        let table = try StrataCLI.run(["query", store, "W", "--format", "table", "--fields", "text,id"])
        #expect(table.output == "text  id\n----  --\nab    1\n日本  2\n🇩🇪    3\ne\u{301}     4\n(4 records)\n", "\(table.output)")
    }

    /// A flag is one `Character` of four UTF-16 units: a column as wide as its longest value in
    /// `Character`s, padded by UTF-16 length, cut such a value in half (U+FFFD).
    @Test func aValueLongerInUTF16ThanItsColumnInCharactersIsKeptWhole() throws {
        let path = dir.path("flags.json")
        try Data(#"[{"id": 1, "f": "🇩🇪🇫🇷"}, {"id": 2, "f": "abc"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        try #require(try StrataCLI.run(["import", store, path, "--entity", "F"]).status == 0)
        let table = try StrataCLI.run(["query", store, "F", "--format", "table", "--fields", "f,id"])
        #expect(!table.output.unicodeScalars.contains("\u{FFFD}"), "\(table.output)")
        #expect(table.output == "f     id\n----  --\n🇩🇪🇫🇷  1\nabc   2\n(2 records)\n", "\(table.output)")
    }

    @Test func longValuesAreCutByDisplayWidthWithAnEllipsis() throws {
        let path = dir.path("long.json")
        let long = String(repeating: "日", count: 40)   // 80 columns
        try Data(#"[{"id": 1, "text": "\#(long)"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        try #require(try StrataCLI.run(["import", store, path, "--entity", "L"]).status == 0)
        let table = try StrataCLI.run(["query", store, "L", "--format", "table", "--fields", "id,text"])
        #expect(table.output.contains("1   " + String(repeating: "日", count: 29) + "…\n"), "\(table.output)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace to count write calls"))
    func recordsAreWrittenInBuffersNotOneWriteEach() throws {
        let records = (1...20_000).map { ["id": $0, "name": "record number \($0)"] as [String: Any] }
        let path = dir.path("many.json")
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: path))
        try #require(try StrataCLI.run(["import", store, path, "--entity", "M"]).status == 0)
        let trace = dir.path("trace")
        let data = try StrataCLI.runBytes(["-f", "-e", "trace=write", "-o", trace, StrataCLI.binary, "query", store, "M", "--format", "jsonl"],
                                          executable: "/usr/bin/strace").output
        #expect(String(decoding: data, as: UTF8.self).split(separator: "\n").count == 20_000)
        let writes = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("write(1,") }.count
        #expect(writes <= data.count / (64 << 10) + 1, "\(writes) writes for \(data.count) bytes")
    }

    @Test func explainDrawsATreeAndAStructuredJSONPlanAndAnalyzes() throws {
        let records = (0..<300).map { ["id": $0, "name": "n\($0 % 30)", "group": $0 % 7] as [String: Any] }
        let path = dir.path("plan.json")
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: path))
        try #require(try StrataCLI.run(["import", store, path, "--entity", "P"]).status == 0)
        try #require(try StrataCLI.run(["index", "add", store, "P", "name"]).status == 0)
        try #require(try StrataCLI.run(["index", "add", store, "P", "group"]).status == 0)
        let predicate = #"name == "n3" AND group > 2 ORDER BY id DESC LIMIT 4"#
        let tree = try StrataCLI.run(["explain", store, "P", predicate, "--tree"])
        #expect(tree.status == 0, "\(tree.error)")
        let lines = tree.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "QUERY PLAN P")
        #expect(lines.dropFirst().first?.hasPrefix("└─ Limit 4") == true, "\(tree.output)")
        #expect(lines.contains { $0.hasPrefix("      └─ Filter group > 2") }, "\(tree.output)")
        #expect(lines.contains { $0.hasPrefix("         └─ IndexScan P.name = \"n3\"  (index name, estimated ") }, "\(tree.output)")

        let matching = records.filter { $0["name"] as? String == "n3" && ($0["group"] as? Int ?? 0) > 2 }.count
        let analyzed = try StrataCLI.run(["explain", store, "P", predicate, "--analyze"])
        #expect(analyzed.output.contains("actual 10 rows"), "the index scan yields every n3: \(analyzed.output)")
        #expect(analyzed.output.contains("Filter group > 2  (estimated ≤ 10 rows, actual \(matching) rows"), "\(analyzed.output)")
        #expect(analyzed.output.contains("Limit 4  (estimated 4 rows, actual 4 rows"), "\(analyzed.output)")

        let json = try StrataCLI.run(["explain", store, "P", #"name == "n3" OR group == 2"#, "--format", "json"])
        let plan = try #require(try StrataCLI.json(json.output) as? [String: Any], "\(json.output)")
        let steps = try #require(plan["steps"] as? [[String: Any]])
        #expect(Set(plan["indexes"] as? [String] ?? []) == ["name", "group"], "\(json.output)")
        #expect(steps.first?["operation"] as? String == "Union", "\(json.output)")
        let parts = steps.first?["children"] as? [[String: Any]] ?? []
        #expect(Set(parts.compactMap { $0["index"] as? String }) == ["name", "group"])
        #expect(plan["text"] is String && steps.allSatisfy { $0["estimatedRows"] != nil })
    }
}
