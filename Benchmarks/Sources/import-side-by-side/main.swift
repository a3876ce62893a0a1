// import-side-by-side [--count N] [--seed S] [--file JSON] [--engine strata|grdb|both]
//
// JSON bulk import, Strata vs GRDB's pool (WAL, synchronous=NORMAL, one cached upsert statement),
// on N generated users (a REST-API-shaped JSON array, about 250 bytes a user) into an entity with
// the six indexes of query-side-by-side: a first import into an empty store, then the same file again. Each engine runs in its own process so
// that its peak resident memory is its own; `both` (the default) runs both and prints a Markdown
// table. Build in release:
// `swift run -c release --package-path Benchmarks import-side-by-side --count 1000000`.
import EngineComparison
import Foundation
import ImportComparison

func fail(_ message: String) -> Never { benchmarkFailure("import-side-by-side", message) }

var count = 1_000_000
var seed: UInt64 = 42
var file: String?
var engine = "both"
var arguments = BenchmarkArguments(tool: "import-side-by-side")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--seed": seed = arguments.unsignedInteger(for: flag)
    case "--file": file = arguments.value(for: flag)
    case "--engine": engine = arguments.choice(for: flag, ["strata", "grdb", "both"])
    case "--help", "-h":
        print("usage: import-side-by-side [--count N (1000000)] [--seed S (42)] [--file JSON] [--engine strata|grdb|both]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

let conditions = RunConditions()
do {
    switch engine {
    case "strata", "grdb":
        guard let file else { fail("--engine \(engine) needs --file") }
        let url = URL(fileURLWithPath: file)
        let measurement = engine == "strata"
            ? try measureStrataImport(file: url, records: count) : try measureGRDBImport(file: url, records: count)
        print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
    default:
        let url: URL
        var generated: URL?
        if let file {
            url = URL(fileURLWithPath: file)
        } else {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("import-bench-\(count)-\(seed).json")
            log("writing \(count) users to \(url.path)")
            try writeDataset(count: count, seed: seed, to: url)
            generated = url
        }
        defer { if let generated { try? FileManager.default.removeItem(at: generated) } }
        func run(_ engine: String) throws -> ImportMeasurement {
            log("\(engine): importing \(url.lastPathComponent) twice")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--engine", engine, "--file", url.path, "--count", String(count)]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { fail("the \(engine) run failed with status \(process.terminationStatus)") }
            return try JSONDecoder().decode(ImportMeasurement.self, from: output)
        }
        let strata = try run("strata")
        let grdb = try run("grdb")
        print(importTable(strata: strata, grdb: grdb))
        print("\n\(strata.note)")
        print(conditions.summary())
    }
} catch {
    fail("\(error)")
}
