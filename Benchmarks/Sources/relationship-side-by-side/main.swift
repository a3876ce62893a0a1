// relationship-side-by-side [--users N] [--queries Q] [--seed S]
//
// Users with five notes each as nested JSON: Strata's import (notes become related records)
// against GRDB's on a DatabasePool (JSONDecoder, a foreign key, indexes), then Q queries for the users with a
// note of a given text (`ANY notes.text == ?` / `IN (SELECT userId …)`). Both engines must find
// the same users. Build in release:
// `swift run -c release --package-path Benchmarks relationship-side-by-side --users 100000`.
import EngineComparison
import Foundation
import RelationshipComparison

var users = 100_000
var queries = 1_000   // 200 took about 0.35 s: too short to time on a shared machine
var seed: UInt64 = 42
var strataOnly = false
var arguments = BenchmarkArguments(tool: "relationship-side-by-side")
while let flag = arguments.next() {
    switch flag {
    case "--users": users = arguments.positiveInteger(for: flag)
    case "--queries": queries = arguments.positiveInteger(for: flag)
    case "--seed": seed = arguments.unsignedInteger(for: flag)
    case "--strata-only": strataOnly = true   // for profiling: no GRDB run, no table
    case "--help", "-h":
        print("usage: relationship-side-by-side [--users N (100000)] [--queries Q (1000)] [--seed S (42)] [--strata-only]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

let conditions = RunConditions()
do {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("relationship-bench-\(users)-\(seed).json")
    defer { try? FileManager.default.removeItem(at: file) }
    let bytes = try writeNestedDataset(users: users, seed: seed, to: file)
    log("wrote \(users) users with 5 notes each: \(bytes) bytes")
    let phrases = queryPhrases(count: queries, users: users, seed: seed)
    log("Strata: importing and querying")
    let strata = try measureStrataRelationships(file: file, users: users, phrases: phrases)
    if strataOnly {
        print("Strata: import \(String(format: "%.3f", strata.importSeconds)) s, \(queries) queries \(String(format: "%.3f", strata.querySeconds)) s")
        exit(0)
    }
    log("GRDB: importing and querying")
    let grdb = try measureGRDBRelationships(file: file, users: users, phrases: phrases)
    guard strata.results == grdb.results else {
        let first = zip(strata.results, grdb.results).enumerated().first { $0.element.0 != $0.element.1 }
        benchmarkFailure("relationship-side-by-side", "the engines found different users for \(phrases[first?.offset ?? 0])")
    }
    let records = Double(users * 6)
    func row(_ label: String, _ s: Double, _ g: Double) {
        print("| \(label) | \(Int(s).formatted()) | \(Int(g).formatted()) | \(String(format: "%.2f", s / g))× |")
    }
    print(settingsHeader([(strata.engine, strata.settings), (grdb.engine, grdb.settings)]) + "\n")
    print("| \(users.formatted()) users × 5 notes, nested JSON (\((bytes >> 20).formatted()) MiB) | Strata | \(grdb.engine) | Strata / \(grdb.engine) |")
    print("| --- | ---: | ---: | ---: |")
    row("import, one write transaction (records/s, users and notes)", records / strata.importSeconds, records / grdb.importSeconds)
    row("`ANY notes.text == ?` (queries/s)", Double(queries) / strata.querySeconds, Double(queries) / grdb.querySeconds)
    let found = strata.results.map(\.count).reduce(0, +)
    print("\n\(queries) queries found \(found) users in all (the same in both engines).")
    print(conditions.summary())
} catch {
    benchmarkFailure("relationship-side-by-side", "\(error)")
}
