// query-side-by-side [--count N] [--seed S] [--instances N] [--min-seconds S] [--shape NAME]... [--regret] [--strata-only]
//
// Indexed queries, Strata vs GRDB, on N generated users with single-field indexes on lastName,
// luckyNumber and createdAt in both engines. Prints a Markdown table on standard output, progress
// on standard error. Build in release:
// `swift run -c release --package-path Benchmarks query-side-by-side --count 200000`.
// With --regret, the planner-regret table instead: Strata alone, on N records with exact filter
// selectivities (0.01 % to 50 %), the plan it picks against the best plan forced with a hint.
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
var strataOnly = false
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
    case "--strata-only": strataOnly = true
    case "--help", "-h":
        print("""
            usage: query-side-by-side [--count N (1000000)] [--seed S (42)] [--instances N (200)] [--min-seconds S (0.25)] [--shape NAME]... [--regret] [--strata-only]
            shapes: \(QueryShape.allCases.map { "\($0)" }.joined(separator: ", "))
            """)
        exit(0)
    default: arguments.unknown(argument)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

let conditions = RunConditions()
if regret {
    do {
        let rows = try PlannerRegret.run(count: count, seed: seed, minSeconds: minSeconds, log: log)
        print("""
            Planner regret, \(grouped(Double(count))) records (`RegretRecord`: single-field indexes on bucket, stamp, rank), seed \(seed). \
            Each plan's median latency over repetitions for at least \(minSeconds) s; hinted plans: the filter's index, the order's index \
            (rank). Regret = chosen / best hinted; a chosen plan equal to a hinted one shares its timing. Every plan returned the same ids.

            """)
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
        shapes: shapes.isEmpty ? QueryShape.allCases : shapes, strataOnly: strataOnly, log: log)
    print("""
        \(grouped(Double(count))) users, seed \(seed); single-field indexes on lastName, luckyNumber, createdAt in both engines. \
        Each query shape runs on \(instances) seeded parameter sets, in rounds until at least \(minSeconds) s of query time \
        per engine, all inside one read transaction per engine and shape; queries/s = queries / summed latency. \
        Both engines returned the same ids in the same order (or the same count) for every instance.

        """)
    print(result.markdownTable)
    print("")
    print(result.detailsTable)
    print("""

        Notes:
        - Strata: the query API (key paths; `where("lastName BEGINSWITH %@", …)` for the prefix), `all()` decoding the records, `count()` for the count. \
        Results are ordered by the requested orderings, then by primary key.
        - GRDB: raw SQL through `db.cachedStatement(sql:)` (prepared once per shape) and `GRDBUser.fetchAll(statement, arguments:)` \
        (Codable decoding) / `Int.fetchOne` for the count; `ORDER BY …, id` so both return the same rows in the same order. \
        The prefix query is `lastName GLOB 'Xy*'` (case-sensitive, like Strata's binary BEGINSWITH, and able to use SQLite's BINARY index; \
        LIKE would be case-insensitive and skip the index). `ANALYZE` ran after the upsert (not measured).
        - Upsert: Strata `tx.upsert(records)`; GRDB `record.upsert(db)` per record (query interface), one write transaction each, durable commits.
        - Database after upsert: Strata \(mebibytes(result.strataBytes)), GRDB \(mebibytes(result.grdbBytes)).
        """)
    print(conditions.summary())
} catch {
    fail("\(error)")
}
