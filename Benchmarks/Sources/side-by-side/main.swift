// side-by-side [--count N] [--seed S] [--per-call-reads N] [--engines LIST] [--engine NAME] [--serve-slices]
//
// Runs the same workload on each engine (Strata, SQLite-C, GRDB pool NORMAL and FULL, raw LMDB) with
// wall-clock timing, the reads and scans twice per engine with the engines taking turns (A B … B A),
// and prints the README's Markdown table, each engine's settings above it.
// Build in release: `swift run -c release --package-path Benchmarks side-by-side`.
// With --engine strata --serve-slices, no table: the store is filled once, then each operation is timed
// in slices on command from standard input, for `tools/ab-slices` (see SliceServer.swift).
import EngineComparison
import Foundation

func fail(_ message: String) -> Never { benchmarkFailure("side-by-side", message) }

let engineNames = EngineKind.sideBySideEngines.map(\.rawValue).joined(separator: ",")
var count = 1_000_000
var seed: UInt64 = 42
var perCallReads = 100_000
var engines = EngineKind.sideBySideEngines
var serveSlices = false
var arguments = BenchmarkArguments(tool: "side-by-side")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--seed": seed = arguments.unsignedInteger(for: flag)
    case "--per-call-reads": perCallReads = arguments.positiveInteger(for: flag)
    case "--engines", "--engine":
        let value = arguments.value(for: flag)
        guard let list = value == "all" ? EngineKind.sideBySideEngines : EngineKind.list(value), !list.contains(.strataCodable) else { fail("\(flag) takes 'all' or a comma-separated list of \(engineNames)") }
        engines = list
    case "--serve-slices": serveSlices = true
    case "--help", "-h":
        print("usage: side-by-side [--count N (1000000)] [--seed S (42)] [--per-call-reads N (100000)] [--engines all|LIST of \(engineNames)] [--serve-slices]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

log("generating \(count) users (seed \(seed))…")
let workload = Workload(count: count, seed: seed)
if serveSlices {
    guard engines == [.strata] else { fail("--serve-slices serves Strata alone: add --engine strata") }
    do {
        let engine = try StrataEngine(workload: workload)
        defer { engine.close() }
        SliceServer(tool: "side-by-side", figures: try engine.sliceFigures(workload: workload)).serve()
    } catch {
        fail("\(error)")
    }
    exit(0)
}
let conditions = RunConditions()

do {
    let results = try runComparison(engines, workload: workload, perCallReads: perCallReads, log: log)

    print("\(grouped(Double(count))) users, seed \(seed); point reads in one transaction: all \(grouped(Double(count))) keys in shuffled order;")
    print("one transaction each: the first \(grouped(Double(min(perCallReads, count)))) of those keys. Records/s; \"–\": not measured by that engine. "
          + "The upsert once per engine, one after another; each read and scan twice per engine, the engines taking turns (A B … B A), its rate over both.\n")
    print(settingsHeader(results.map { ($0.engine, $0.settings) }) + "\n")
    print(markdownTable(results))
    print("")
    print("Database after upsert: " + results.map { "\($0.engine) \(mebibytes($0.databaseBytes))" }.joined(separator: ", ")
          + " (allocated bytes of the database files; SQLite's include the WAL).")
    print(conditions.summary())
} catch {
    fail("\(error)")
}
