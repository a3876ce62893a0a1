// side-by-side [--count N] [--seed S] [--per-call-reads N] [--engine strata|grdb|both]
//
// Runs the same workload once per engine with wall-clock timing and prints the README's
// Markdown table. Build in release: `swift run -c release --package-path Benchmarks side-by-side`.
import EngineComparison
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("side-by-side: \(message)\n".utf8))
    exit(2)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

var count = 1_000_000
var seed: UInt64 = 42
var perCallReads = 100_000
var engineChoice = "both"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let v = arguments.popFirst() else { fail("\(argument) needs a value") }
        return v
    }
    switch argument {
    case "--count": guard let n = Int(value()), n > 0 else { fail("--count must be a positive integer") }; count = n
    case "--seed": guard let s = UInt64(value()) else { fail("--seed must be an unsigned integer") }; seed = s
    case "--per-call-reads": guard let n = Int(value()), n > 0 else { fail("--per-call-reads must be positive") }; perCallReads = n
    case "--engine":
        engineChoice = value()
        guard ["strata", "grdb", "both"].contains(engineChoice) else { fail("--engine is strata, grdb or both") }
    case "--help", "-h":
        print("usage: side-by-side [--count N (1000000)] [--seed S (42)] [--per-call-reads N (100000)] [--engine strata|grdb|both]")
        exit(0)
    default: fail("unknown argument '\(argument)' (try --help)")
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

log("generating \(count) users (seed \(seed))…")
let workload = Workload(count: count, seed: seed)

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
} catch {
    fail("\(error)")
}
