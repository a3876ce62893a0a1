import Dataset
import EngineComparison
import Foundation
import GRDB
import Strata

/// One query shape's measurements for both engines.
public struct ShapeResult: Sendable {
    public let shape: QueryShape
    public var strataQueriesPerSecond = 0.0
    public var grdbQueriesPerSecond = 0.0
    public var strataMedianSeconds = 0.0
    public var grdbMedianSeconds = 0.0
    /// Queries timed per engine (instances × rounds).
    public var timedQueries = 0
    /// Rows returned per query instance on average (for the count shape: the average count).
    public var averageRows = 0.0
    /// Strata's `explain()` for the first instance.
    public var strataPlan = ""
    /// Median time of Strata's `explain()` (planning alone, included in the query latencies).
    public var strataPlanningSeconds = 0.0
    /// SQLite's `EXPLAIN QUERY PLAN` for the first instance.
    public var sqlitePlan = ""

    public var ratio: Double { strataQueriesPerSecond / grdbQueriesPerSecond }
}

public struct QueryComparisonResult: Sendable {
    public let count: Int
    public let seed: UInt64
    public let instances: Int
    public var strataUpsertPerSecond = 0.0
    public var grdbUpsertPerSecond = 0.0
    public var strataBytes = 0
    public var grdbBytes = 0
    public var shapes: [ShapeResult] = []

    /// The median over the query shapes of Strata's queries/s over GRDB's.
    public var medianRatio: Double { median(shapes.map(\.ratio)) }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Times `body` once per instance, in rounds over all instances until `minSeconds` of query time
/// have passed (at least one round, at most 1,000). Returns each query's latency in seconds.
/// `body` returns the rows it saw; their total must be `expectedRowsPerRound` each round.
func timeQueries(
    instances: Int, minSeconds: Double, expectedRowsPerRound: Int, label: String,
    _ body: (Int) throws -> Int
) throws -> [Double] {
    let clock = ContinuousClock()
    var latencies: [Double] = []
    latencies.reserveCapacity(instances)
    var total = 0.0
    var rounds = 0
    repeat {
        var rows = 0
        for i in 0..<instances {
            let start = clock.now
            rows += try body(i)
            let elapsed = seconds(start.duration(to: clock.now))
            latencies.append(elapsed)
            total += elapsed
        }
        guard rows == expectedRowsPerRound else {
            throw ComparisonError("\(label): a timed round returned \(rows) rows, the verification pass \(expectedRowsPerRound)")
        }
        rounds += 1
    } while total < minSeconds && rounds < 1_000
    return latencies
}

/// Builds both databases with three indexes, times the upsert, then checks and times every query
/// shape on `instances` seeded parameter sets. Throws on any disagreement between the engines.
public func runQueryComparison(
    count: Int, seed: UInt64, instances: Int, minSeconds: Double, shapes: [QueryShape] = QueryShape.allCases,
    strataOnly: Bool = false, log: (String) -> Void = { _ in }
) throws -> QueryComparisonResult {
    var result = QueryComparisonResult(count: count, seed: seed, instances: instances)
    let clock = ContinuousClock()

    log("generating \(count) users (seed \(seed))…")
    let values: DatasetValues
    let strata = try IndexedStrataEngine()
    defer { strata.close() }
    // --strata-only: no GRDB database, no GRDB timings (ratios are NaN); for profiling Strata.
    let grdb = strataOnly ? nil : try IndexedGRDBEngine()
    defer { grdb?.close() }
    do {
        let users = Array(UserGenerator(count: count, seed: seed))
        values = DatasetValues(users)
        do {
            let records = users.map(IndexedBenchUser.init)
            let elapsed = seconds(try clock.measure { try strata.upsertAll(records) })
            result.strataUpsertPerSecond = Double(count) / elapsed
            log("Strata: upsert \(count) with 3 indexes: \(String(format: "%.3f", elapsed)) s")
            try strata.verify(records)
            result.strataBytes = strata.databaseSize()
        }
        if let grdb {
            let records = users.map(GRDBUser.init)
            let elapsed = seconds(try clock.measure { try grdb.upsertAll(records) })
            result.grdbUpsertPerSecond = Double(count) / elapsed
            log("GRDB: upsert \(count) with 3 indexes: \(String(format: "%.3f", elapsed)) s")
            try grdb.verify(records)
            try grdb.analyze()
            result.grdbBytes = grdb.databaseSize()
        }
    }

    for shape in shapes {
        let parameters = values.parameters(count: instances, seed: seed, shape: shape)
        var shapeResult = ShapeResult(shape: shape)
        shapeResult.strataPlan = try strata.explain(shape, parameters[0])
        shapeResult.sqlitePlan = try grdb?.explain(shape, parameters[0]) ?? ""

        // Verification pass (also the warm-up): the same ids, in the same order, for every instance.
        let strataAnswers = try strata.store.read { tx in try parameters.map { try strata.run(shape, $0, tx) } }
        let grdbAnswers = try grdb?.dbQueue.read { db in try parameters.map { try grdb!.run(shape, $0, db) } } ?? strataAnswers
        for i in parameters.indices where strataAnswers[i] != grdbAnswers[i] {
            let s = strataAnswers[i], g = grdbAnswers[i]
            let first = zip(s, g).enumerated().first { $0.element.0 != $0.element.1 }
            throw ComparisonError("""
                MISMATCH in '\(shape.rawValue)', instance \(i) (\(parameters[i])):
                  Strata \(s.count) results, GRDB \(g.count); \
                \(first.map { "first difference at position \($0.offset): Strata id \($0.element.0), GRDB id \($0.element.1)" } ?? "one is a prefix of the other")
                  Strata first ids: \(s.prefix(12)), GRDB first ids: \(g.prefix(12))
                  Strata plan: \(try strata.explain(shape, parameters[i]))
                  SQL: \(IndexedGRDBEngine.sql(shape)) — SQLite plan: \(try grdb?.explain(shape, parameters[i]) ?? "")
                """)
        }
        let rowsPerRound = strataAnswers.reduce(0) { $0 + (shape.isCount ? Int($1[0]) : $1.count) }
        shapeResult.averageRows = Double(rowsPerRound) / Double(instances)
        guard rowsPerRound > 0 else { throw ComparisonError("'\(shape.rawValue)': no instance matched any row; the parameters are wrong") }

        let strataLatencies = try strata.store.read { tx in
            try timeQueries(instances: instances, minSeconds: minSeconds, expectedRowsPerRound: rowsPerRound, label: "Strata") { i in
                let ids = try strata.run(shape, parameters[i], tx)
                return shape.isCount ? Int(ids[0]) : ids.count
            }
        }
        let planning = try strata.store.read { tx in
            try parameters.map { p in
                let start = clock.now
                _ = try strata.request(shape, p, tx).explain()
                return seconds(start.duration(to: clock.now))
            }
        }
        shapeResult.strataPlanningSeconds = median(planning)
        let grdbLatencies = try grdb?.dbQueue.read { db in
            try timeQueries(instances: instances, minSeconds: minSeconds, expectedRowsPerRound: rowsPerRound, label: "GRDB") { i in
                let ids = try grdb!.run(shape, parameters[i], db)
                return shape.isCount ? Int(ids[0]) : ids.count
            }
        } ?? []
        shapeResult.timedQueries = strataLatencies.count
        shapeResult.strataQueriesPerSecond = Double(strataLatencies.count) / strataLatencies.reduce(0, +)
        shapeResult.grdbQueriesPerSecond = Double(grdbLatencies.count) / grdbLatencies.reduce(0, +)
        shapeResult.strataMedianSeconds = median(strataLatencies)
        shapeResult.grdbMedianSeconds = median(grdbLatencies)
        log("\(shape.rawValue): Strata \(grouped(shapeResult.strataQueriesPerSecond)) q/s, GRDB \(rate(shapeResult.grdbQueriesPerSecond)) q/s "
            + "(\(String(format: "%.2f×", shapeResult.ratio)); planning \(microseconds(shapeResult.strataPlanningSeconds)) µs; \(String(format: "%.1f", shapeResult.averageRows)) rows/query; plan \(shapeResult.strataPlan)")
        result.shapes.append(shapeResult)
    }
    return result
}

/// A rate, or "–" when there is none (`--strata-only` runs no GRDB).
func rate(_ value: Double) -> String { value.isFinite ? grouped(value) : "–" }

/// `|` would end a Markdown table cell.
func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

func microseconds(_ seconds: Double) -> String {
    seconds >= 0.01 ? String(format: "%.0f", seconds * 1e6) : String(format: "%.1f", seconds * 1e6)
}

extension QueryComparisonResult {
    /// | query shape | Strata (queries/s) | GRDB (queries/s) | Strata/GRDB | Strata plan |, the upsert row
    /// first (records/s), then the median of the query shapes' ratios.
    public var markdownTable: String {
        var lines = [
            "| query shape | Strata (queries/s) | GRDB (queries/s) | Strata/GRDB | Strata plan |",
            "| --- | ---: | ---: | ---: | --- |",
            "| upsert all \(grouped(Double(count))), one write transaction, 3 indexes (records/s) | \(grouped(strataUpsertPerSecond)) | "
                + "\(rate(grdbUpsertPerSecond)) | \(String(format: "%.2f×", strataUpsertPerSecond / grdbUpsertPerSecond)) | |",
        ]
        for s in shapes {
            lines.append("| `\(s.shape.rawValue)` | \(grouped(s.strataQueriesPerSecond)) | \(rate(s.grdbQueriesPerSecond)) | "
                + "\(String(format: "%.2f×", s.ratio)) | `\(cell(s.strataPlan))` |")
        }
        lines.append("| **median of the \(shapes.count) query shapes' ratios** | | | **\(String(format: "%.2f×", medianRatio))** | |")
        return lines.joined(separator: "\n")
    }

    /// Median latency per query, rows per query, and GRDB's SQL with SQLite's plan.
    public var detailsTable: String {
        var lines = [
            "| query shape | Strata median (µs) | of which planning (µs) | GRDB median (µs) | rows/query (avg) | queries timed | GRDB SQL | SQLite plan |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for s in shapes {
            lines.append("| `\(s.shape.rawValue)` | \(microseconds(s.strataMedianSeconds)) | \(microseconds(s.strataPlanningSeconds)) | \(microseconds(s.grdbMedianSeconds)) | "
                + "\(String(format: "%.1f", s.averageRows))\(s.shape.isCount ? " (count)" : "") | \(s.timedQueries) | "
                + "`\(cell(IndexedGRDBEngine.sql(s.shape)))` | \(cell(s.sqlitePlan)) |")
        }
        return lines.joined(separator: "\n")
    }
}
