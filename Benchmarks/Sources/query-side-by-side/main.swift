// query-side-by-side [--count N] [--seed S] [--instances N] [--min-seconds S] [--shape NAME]... [--engines LIST] [--strata-only] [--regret] [--serve-slices]
//
// Indexed queries on N generated users, Strata against SQLite-C and GRDB's pool (synchronous NORMAL
// and FULL), every engine with the same six indexes: lastName, luckyNumber, createdAt and the
// compound (lastName, luckyNumber), (lastName, createdAt), (city, active). Prints the engines'
// settings and Markdown tables on standard output, progress on standard error. Build in release:
// `swift run -c release --package-path Benchmarks query-side-by-side --count 200000`.
// With --regret, the planner-regret table instead: Strata alone, on N records with exact filter
// selectivities (0.01 % to 50 %), the plan it picks against the best plan forced with a hint.
// With --strata-only --serve-slices, no tables: the store is built once, then each shape (and the upsert)
// is timed in slices on command from standard input, for `tools/ab-slices` (see SliceServer.swift).
import EngineComparison
import Foundation
import QueryComparison

func fail(_ message: String) -> Never { benchmarkFailure("query-side-by-side", message) }

var count = 1_000_000
var seed: UInt64 = 42
var instances = 200
var minSeconds = 0.25
var shapes: [QueryShape] = []
var regret = false
var serveSlices = false
var engines = EngineKind.queryEngines
var arguments = BenchmarkArguments(tool: "query-side-by-side")
while let argument = arguments.next() {
    func value() -> String { arguments.value(for: argument) }
    switch argument {
    case "--count": count = arguments.positiveInteger(for: argument)
    case "--seed": seed = arguments.unsignedInteger(for: argument)
    case "--instances", "--repetitions": instances = arguments.positiveInteger(for: argument)
    case "--min-seconds": guard let s = Double(value()), s >= 0 else { fail("--min-seconds must be a number ≥ 0") }; minSeconds = s
    case "--shape":
        let name = value()
        guard let shape = QueryShape.allCases.first(where: { "\($0)" == name }) else {
            fail("unknown shape '\(name)'; one of: \(QueryShape.allCases.map { "\($0)" }.joined(separator: ", "))")
        }
        shapes.append(shape)
    case "--regret": regret = true
    case "--serve-slices": serveSlices = true
    case "--strata-only": engines = [.strata]
    case "--engines":
        let value = value()
        guard let list = value == "all" ? EngineKind.queryEngines : EngineKind.list(value), !list.contains(.lmdb) else {
            fail("--engines takes 'all' or a comma-separated list of \(EngineKind.queryEngines.map(\.rawValue).joined(separator: ","))")
        }
        engines = list
    case "--help", "-h":
        print("""
            usage: query-side-by-side [--count N (1000000)] [--seed S (42)] [--instances N (200)] [--min-seconds S (0.25)] [--shape NAME]...
                                      [--engines all|LIST of \(EngineKind.queryEngines.map(\.rawValue).joined(separator: ","))] [--strata-only] [--regret] [--serve-slices]
            shapes: \(QueryShape.allCases.map { "\($0)" }.joined(separator: ", "))
            """)
        exit(0)
    default: arguments.unknown(argument)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

if serveSlices {
    guard engines == [.strata], !regret else { fail("--serve-slices serves Strata alone: add --strata-only (and no --regret)") }
    do {
        let server = try querySliceFigures(count: count, seed: seed, instances: instances,
                                           shapes: shapes.isEmpty ? QueryShape.allCases : shapes, log: log)
        defer { server.close() }
        SliceServer(tool: "query-side-by-side", figures: server.figures).serve()
    } catch {
        fail("\(error)")
    }
    exit(0)
}

let conditions = RunConditions()
if regret {
    do {
        let rows = try PlannerRegret.run(count: count, seed: seed, minSeconds: minSeconds, log: log)
        print("""
            Planner regret, \(grouped(Double(count))) records (`RegretRecord`: single-field indexes on bucket, stamp, rank; a compound index on \
            (scope, stamp), scope skewed: 30 %, 1 % and 0.01 % values beside ones of about 0.007 %), seed \(seed). \
            Each plan's median latency over repetitions for at least \(minSeconds) s; hinted plans: the filter's index, the order's index \
            (rank). Regret = chosen / best hinted; a chosen plan equal to a hinted one shares its timing. Every plan returned the same ids.

            """)
        print(settingsHeader([("Strata", StrataEngine.settingsLine(records: "`RegretRecord` through its synthesized `Codable`",
                                                                    indexes: "(bucket), (stamp), (rank), (scope, stamp)"))]) + "\n")
        print(PlannerRegret.markdownTable(rows))
        print("\n" + conditions.summary())
    } catch {
        fail("\(error)")
    }
    exit(0)
}

do {
    let result = try runQueryComparison(
        count: count, seed: seed, instances: instances, minSeconds: minSeconds,
        shapes: shapes.isEmpty ? QueryShape.allCases : shapes, engines: engines, log: log)
    print("""
        \(grouped(Double(count))) users, seed \(seed); the same \(QueryIndexes.columns.count) indexes in every engine: \(QueryIndexes.description). \
        Each query shape runs on \(instances) seeded parameter sets, in rounds until at least \(minSeconds) s of query time \
        per engine, the engines taking turns round by round (A B B A …, so that the host's drifting speed weighs on all alike), \
        all inside one read transaction per engine and shape; queries/s = queries / summed latency. \
        Every engine returned the same ids in the same order (or the same count) as \(engines.contains(.sqlite) ? "SQLite-C" : engines[0].name) for every instance. \
        "–": the engine did not run.

        """)
    print(result.settingsHeader + "\n")
    print(result.markdownTable)
    print("")
    print(result.settingsHeader + "\n")
    print(result.detailsTable)
    print("""

        Notes:
        - Strata: the query API (key paths; `where("lastName BEGINSWITH %@", …)` for the prefix), `all()` decoding the records, `count()` for the counts. \
        Results are ordered by the requested orderings, then by primary key.
        - SQLite-C and GRDB: the same SQL (column \"SQL\"), each ending in `ORDER BY …, id` so that every engine has one total order \
        and a LIMIT keeps the same rows; every column selected and decoded (SQLite-C into `BenchUser`, GRDB into `GRDBUser` by `init(row:)`). \
        SQLite-C prepares each shape's statement once (`SQLITE_PREPARE_PERSISTENT`) and resets and binds it per query; GRDB runs it through \
        `db.cachedStatement(sql:)` and `GRDBUser.fetchAll(statement, arguments:)` / `Int.fetchOne` for the counts. \
        The prefix query is `lastName GLOB 'Xy*'` (case-sensitive, like Strata's binary BEGINSWITH, and able to use SQLite's BINARY index; \
        LIKE would be case-insensitive and skip the index). `ANALYZE` ran after each SQL upsert (not measured).
        - Upsert: Strata `tx.upsert(records)`; SQLite-C and GRDB one prepared `INSERT … ON CONFLICT(id) DO UPDATE` per record; one write transaction each. \
        Strata, GRDB pool FULL commit durably (fsync); SQLite-C and GRDB pool NORMAL (WAL, synchronous=NORMAL) do not fsync at commit.
        - Database after upsert: \(engines.map { "\($0.name) \(mebibytes(result.databaseBytes[$0] ?? 0))" }.joined(separator: ", ")) (SQLite's include the WAL).
        """)
    print(conditions.summary())
} catch {
    fail("\(error)")
}
