// side-by-side [--count N] [--seed S] [--per-call-reads N] [--engine strata|grdb|both]
//
// Runs the same workload once per engine with wall-clock timing and prints the README's
// Markdown table. Build in release: `swift run -c release --package-path Benchmarks side-by-side`.
import EngineComparison
import Foundation

func fail(_ message: String) -> Never { benchmarkFailure("side-by-side", message) }

var count = 1_000_000
var seed: UInt64 = 42
var perCallReads = 100_000
var engineChoice = "both"
var arguments = BenchmarkArguments(tool: "side-by-side")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--seed": seed = arguments.unsignedInteger(for: flag)
    case "--per-call-reads": perCallReads = arguments.positiveInteger(for: flag)
    case "--engine": engineChoice = arguments.choice(for: flag, ["strata", "grdb", "both"])
    case "--help", "-h":
        print("usage: side-by-side [--count N (1000000)] [--seed S (42)] [--per-call-reads N (100000)] [--engine strata|grdb|both]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

log("generating \(count) users (seed \(seed))…")
let workload = Workload(count: count, seed: seed)
let conditions = RunConditions()

do {
    var results: [EngineResult] = []
    if engineChoice != "grdb" { results.append(try runComparison(StrataEngine.self, workload: workload, perCallReads: perCallReads, log: log)) }
    if engineChoice != "strata" { results.append(try runComparison(GRDBEngine.self, workload: workload, perCallReads: perCallReads, log: log)) }

    print("\(count) users, seed \(seed); point reads in one transaction: all \(count) keys in shuffled order;")
    print("one transaction each: the first \(min(perCallReads, count)) of those keys. Durable commits on both sides.\n")
    if results.count == 2 {
        print(markdownTable(strata: results[0], grdb: results[1]))
    } else {
        let r = results[0]
        print("| operation | \(r.engine) (records/s) |\n| --- | ---: |")
        for operation in Operation.allCases { print("| \(operation.rawValue) | \(grouped(r.recordsPerSecond[operation] ?? 0)) |") }
    }
    print("")
    for r in results { print("\(r.engine) database after upsert: \(mebibytes(r.databaseBytes))") }
    for r in results {
        for (extra, rate) in r.extras { print("\(extra.rawValue): \(grouped(rate)) records/s") }
    }
    print(conditions.summary())
} catch {
    fail("\(error)")
}
