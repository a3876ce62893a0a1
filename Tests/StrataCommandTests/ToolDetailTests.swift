import Foundation
import Testing
import TestSupport

/// Details of the tool a new user meets: schema inference shown and counted in the report,
/// tables aligned as the C library's `wcwidth()` measures characters, help that lists only the
/// formats a command takes, and folded string orderings.
@Suite struct ToolDetailTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-detail") }

    func write(_ records: [[String: Any]], to name: String) throws -> String {
        let path = dir.path(name)
        try JSONSerialization.data(withJSONObject: records).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `python3 -c script arguments…` with `input` on standard input; its standard output.
    func python(_ script: String, _ arguments: [String] = [], input: String) throws -> String {
        let result = try Python.run(script, arguments: arguments, input: input)
        try #require(result.status == 0, "python3 failed: \(result.error)")
        return result.output
    }

    // MARK: Schema inference

    @Test func theReportCountsInferenceAndListsThePhases() throws {
        let path = try write((1...50).map { ["id": $0, "name": "n\($0)"] }, to: "records.json")
        let text = try StrataCLI.run(["import", store, path, "--entity", "T"])
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.range(of: #"· [0-9]+\.[0-9]{2} s \(inferring schema [0-9]+\.[0-9]{2} s, importing [0-9]+\.[0-9]{2} s\)\n$"#,
                                  options: .regularExpression) != nil, "\(text.output)")
        let json = try StrataCLI.run(["import", dir.path("other"), path, "--entity", "T", "--format", "json"])
        let report = try #require(try StrataCLI.json(json.output) as? [String: Any], "\(json.output)")
        let phases = try #require(report["phases"] as? [[String: Any]])
        #expect(phases.map { $0["phase"] as? String } == ["inferring schema", "importing"])
        // The command's time holds both phases (each rounded to a millisecond).
        let total = try #require(report["seconds"] as? Double)
        let parts = phases.compactMap { $0["seconds"] as? Double }.reduce(0, +)
        #expect(total + 0.002 >= parts, "\(json.output)")
        // With the entity stored, nothing is inferred: one phase, and the report as it was.
        let again = try StrataCLI.run(["import", store, path, "--entity", "T"])
        #expect(again.output.range(of: #"· [0-9]+\.[0-9]{2} s\n$"#, options: .regularExpression) != nil, "\(again.output)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func inferenceDrawsItsOwnProgressBar() throws {
        let path = try write((1...20_000).map { ["id": $0, "name": "n\($0)"] }, to: "many.json")
        let (status, text) = try StrataCLI.runInTerminal(["import", store, path, "--entity", "T"])
        #expect(status == 0, "\(text)")
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let inferring = try #require(lines.last { $0.contains("inferring schema of T") }, "no bar while inferring: \(text.debugDescription)")
        #expect(inferring.contains("100%"), "\(text.debugDescription)")
        let importing = try #require(lines.lastIndex { $0.contains("importing T") }, "\(text.debugDescription)")
        #expect(lines.lastIndex { $0.contains("inferring schema of T") }! < importing, "inference comes first: \(text.debugDescription)")
    }

    // MARK: Display width

    @Test func tableColumnsAlignAsTheCLibraryMeasuresEmojiAndWideCharacters() throws {
        // Every emoji code point, U+1F202 (wide, not presented as emoji by default) and U+1F321
        // (narrow, in a block of wide ones) among them, wide and combining characters.
        var scalars = (0x2000...0x1FAFF).compactMap(Unicode.Scalar.init).filter {
            $0.properties.isEmoji && !(0x1F1E6...0x1F1FF).contains($0.value) && $0.properties.generalCategory != .control
        }
        scalars += [0x1F202, 0x1F321, 0x4E00, 0xAC00, 0xFF21, 0x3000, 0x0301, 0x00E9, 0x1160].compactMap(Unicode.Scalar.init)
        #expect(scalars.count > 1_000)
        let path = try write(scalars.enumerated().map { ["id": $0.offset + 1, "c": String($0.element), "n": 7] }, to: "wide.json")
        try #require(try StrataCLI.run(["import", store, path, "--entity", "W"]).status == 0)
        let table = try StrataCLI.run(["query", store, "W", "--fields", "c,n", "--format", "table"])
        #expect(table.status == 0, "\(table.error)")
        // The column where `n` starts, as glibc's wcswidth() measures what comes before it.
        let script = """
            import ctypes, ctypes.util, sys
            libc = ctypes.CDLL(ctypes.util.find_library("c"))
            libc.setlocale(6, b"C.UTF-8")
            libc.wcswidth.argtypes = [ctypes.c_wchar_p, ctypes.c_size_t]
            libc.wcwidth.argtypes = [ctypes.c_wchar]
            lines = sys.stdin.read().split("\\n")
            # Code points newer than the C library's Unicode data it cannot measure (-1): left out.
            rows = [line for line in lines[2:] if line.endswith(" 7") and libc.wcwidth(line[0]) >= 0]
            starts = {}
            for row in rows:
                before = row[:-1]
                starts.setdefault(libc.wcswidth(before, len(before)), []).append(row)
            print(len(rows), len(starts), [(width, [hex(ord(r[0])) for r in found[:5]]) for width, found in sorted(starts.items())][:4])
            """
        let result = try python(script, input: table.output)
        let counts = result.split(separator: " ").prefix(2).compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] > 1_000 && counts[1] == 1, "rows, and the columns their second cell starts at: \(result)")
    }

    // MARK: Help and orderings

    @Test func helpListsOnlyTheFormatsACommandTakes() throws {
        for command in ["explain", "get", "import", "schema", "stats", "query", "export"] {
            let help = try StrataCLI.run([command, "--help"])
            #expect(!help.output.contains("values: table"), "\(command): \(help.output)")
        }
        let explain = try StrataCLI.run(["explain", "--help"]).output
        #expect(!explain.contains("csv") && explain.contains("table (the plan as text, default) or json"), "\(explain)")
    }

    @Test func foldedOrderingsSortAccentsAndCaseTogether() throws {
        let path = try write([["id": 1, "name": "Zimbabwe"], ["id": 2, "name": "Åland Islands"], ["id": 3, "name": "albania"],
                              ["id": 4, "name": "Belgium"]], to: "countries.json")
        try #require(try StrataCLI.run(["import", store, path, "--entity", "Country"]).status == 0)
        func names(_ arguments: [String]) throws -> String {
            try StrataCLI.run(["query", store, "Country"] + arguments + ["--fields", "name", "--format", "tsv"]).output
        }
        #expect(try names(["ORDER BY name"]) == "name\nBelgium\nZimbabwe\nalbania\nÅland Islands\n")
        #expect(try names(["ORDER BY name[cd]"]) == "name\nÅland Islands\nalbania\nBelgium\nZimbabwe\n")
        #expect(try names(["--sort", "name[cd] desc"]) == "name\nZimbabwe\nBelgium\nalbania\nÅland Islands\n")
        let bad = try StrataCLI.run(["query", store, "Country", "--sort", "name[x]"])
        #expect(bad.status == 1 && bad.error.contains("unknown comparison option 'x' in [x] at column 5"), "\(bad.error)")
    }
}
