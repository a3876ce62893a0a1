import Dataset
import EngineComparison
import Foundation

/// One query shape's measurements for every engine.
public struct ShapeResult: Sendable {
    public let shape: QueryShape
    public var queriesPerSecond: [EngineKind: Double] = [:]
    public var medianSeconds: [EngineKind: Double] = [:]
    /// Queries timed per engine (instances × rounds).
    public var timedQueries: [EngineKind: Int] = [:]
    /// Rows returned per query instance on average (for a count shape: the average count).
    public var averageRows = 0.0
    /// Strata's `explain()` for the first instance.
    public var strataPlan = ""
    /// Median time of Strata's `explain()` (planning alone, included in the query latencies).
    public var strataPlanningSeconds = 0.0
    /// `EXPLAIN QUERY PLAN` for the first instance: SQLite-C's, and GRDB's (the same SQLite, another table).
    public var sqlitePlan = ""
    public var grdbPlan = ""

    /// Strata's queries/s over `peer`'s (NaN when either did not run).
    public func ratio(to peer: EngineKind) -> Double {
        (queriesPerSecond[.strata] ?? .nan) / (queriesPerSecond[peer] ?? .nan)
    }
}

public struct QueryComparisonResult: Sendable {
    public let count: Int
    public let seed: UInt64
    public let instances: Int
    public let engines: [EngineKind]
    public var settings: [EngineKind: String] = [:]
    public var upsertPerSecond: [EngineKind: Double] = [:]
    public var databaseBytes: [EngineKind: Int] = [:]
    public var shapes: [ShapeResult] = []

    /// The engines the tables divide Strata's figures by.
    public static let ratioPeers: [EngineKind] = [.sqlite, .grdbNormal]

    /// The median over the query shapes of Strata's queries/s over `peer`'s.
    public func medianRatio(to peer: EngineKind) -> Double { median(shapes.map { $0.ratio(to: peer) }.filter(\.isFinite)) }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// One engine's query function inside its open read transaction.
typealias RunQuery = (QueryShape, QueryParameters) throws -> [Int64]

/// Times every engine's queries, each engine running all instances once per round, the engines taking
/// turns round after round (in their order, then the reverse: A B B A …), each until it has
/// `minSeconds` of query time (at least one round, at most 1,000; an engine that has its time sits
/// out the rounds the others still need): the host's speed, which drifts over seconds, then weighs
/// on every engine alike instead of on whichever ran when it dipped. `body(engine, i)`
/// runs instance `i` on engine `engine` and returns the rows it saw; their total must be
/// `expectedRowsPerRound` each round. Returns each engine's latencies in seconds.
func timeQueriesInTurns(
    engines: [String], instances: Int, minSeconds: Double, expectedRowsPerRound: Int,
    _ body: (_ engine: Int, _ instance: Int) throws -> Int
) throws -> [[Double]] {
    let clock = ContinuousClock()
    var latencies = [[Double]](repeating: [], count: engines.count)
    var totals = [Double](repeating: 0, count: engines.count)
    var rounds = 0
    repeat {
        let order = rounds % 2 == 0 ? Array(engines.indices) : engines.indices.reversed()
        for engine in order where rounds == 0 || totals[engine] < minSeconds {
            var rows = 0
            for i in 0..<instances {
                let start = clock.now
                rows += try body(engine, i)
                let elapsed = seconds(start.duration(to: clock.now))
                latencies[engine].append(elapsed)
                totals[engine] += elapsed
            }
            guard rows == expectedRowsPerRound else {
                throw ComparisonError("\(engines[engine]): a timed round returned \(rows) rows, the verification pass \(expectedRowsPerRound)")
            }
        }
        rounds += 1
    } while totals.contains(where: { $0 < minSeconds }) && rounds < 1_000
    return latencies
}

/// Runs `body` with every engine's query function, each inside its engine's read transaction, all open at once.
func withReaders<R>(_ engines: ArraySlice<any IndexedEngine>, _ runs: [RunQuery] = [], _ body: ([RunQuery]) throws -> R) throws -> R {
    guard let first = engines.first else { return try body(runs) }
    return try first.withReader { run in
        try withoutActuallyEscaping(run) { run in try withReaders(engines.dropFirst(), runs + [run], body) }
    }
}

/// The rows (or the count) of one answer.
func rows(_ answer: [Int64], _ shape: QueryShape) -> Int { shape.isCount ? Int(answer.first ?? 0) : answer.count }

/// Builds every engine's database with the six indexes, times each upsert, then checks and times
/// every query shape on `instances` seeded parameter sets. Every engine must return the ids (or
/// the count) of the reference engine (SQLite-C when it runs), in the same order, for every
/// instance: a difference stops the run with the shape, the engine and the first differing id.
public func runQueryComparison(
    count: Int, seed: UInt64, instances: Int, minSeconds: Double, shapes: [QueryShape] = QueryShape.allCases,
    engines kinds: [EngineKind] = EngineKind.queryEngines, log: (String) -> Void = { _ in }
) throws -> QueryComparisonResult {
    var result = QueryComparisonResult(count: count, seed: seed, instances: instances, engines: kinds)
    let clock = ContinuousClock()
    let engines = try kinds.map { try $0.makeIndexed() }
    defer { engines.forEach { $0.close() } }

    log("generating \(count) users (seed \(seed))…")
    let values: DatasetValues
    do {
        let users = Array(UserGenerator(count: count, seed: seed))
        values = DatasetValues(users)
        for (kind, engine) in zip(kinds, engines) {
            engine.load(users)
            let elapsed = seconds(try clock.measure { try engine.upsertAll() })
            result.upsertPerSecond[kind] = Double(count) / elapsed
            log("\(engine.name): upsert \(count) with \(QueryIndexes.columns.count) indexes: \(String(format: "%.3f", elapsed)) s")
            try engine.finishLoading()
            result.databaseBytes[kind] = engine.databaseSize()
            result.settings[kind] = engine.settings
        }
    }
    let reference = kinds.firstIndex(of: .sqlite) ?? 0

    for shape in shapes {
        let parameters = values.parameters(count: instances, seed: seed, shape: shape)
        var shapeResult = ShapeResult(shape: shape)
        for (kind, engine) in zip(kinds, engines) {
            switch kind {
            case .strata: shapeResult.strataPlan = try engine.explain(shape, parameters[0])
            case .sqlite: shapeResult.sqlitePlan = try engine.explain(shape, parameters[0])
            case .grdbNormal, .grdbFull:
                if shapeResult.grdbPlan.isEmpty { shapeResult.grdbPlan = try engine.explain(shape, parameters[0]) }
            case .strataCodable, .lmdb: break
            }
        }

        // Verification pass (also the warm-up): the same ids, in the same order, for every instance.
        let answers = try engines.map { engine in try engine.withReader { run in try parameters.map { try run(shape, $0) } } }
        for (e, engine) in engines.enumerated() where e != reference {
            for i in parameters.indices where answers[e][i] != answers[reference][i] {
                let mine = answers[e][i], theirs = answers[reference][i], other = engines[reference]
                // The first position where the answers differ, or where the shorter one ends.
                let position = zip(mine, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(mine.count, theirs.count)
                func at(_ ids: [Int64]) -> String { position < ids.count ? "id \(ids[position])" : "nothing (its answer ends)" }
                throw ComparisonError("""
                    MISMATCH in '\(shape.rawValue)', instance \(i) (\(parameters[i])): \(engine.name) differs from \(other.name):
                      \(engine.name) \(shape.isCount ? "count" : "\(mine.count) results"), \(other.name) \(shape.isCount ? "count" : "\(theirs.count) results"); \
                    \(shape.isCount ? "counts \(mine.first ?? -1) and \(theirs.first ?? -1)" : "first difference at position \(position): \(engine.name) \(at(mine)), \(other.name) \(at(theirs))")
                      \(engine.name) first ids (or count): \(mine.prefix(12)), \(other.name): \(theirs.prefix(12))
                      \(engine.name) plan: \(try engine.explain(shape, parameters[i]))
                      \(other.name) plan: \(try other.explain(shape, parameters[i])) — SQL: \(QuerySQL.display(shape))
                    """)
            }
        }
        let rowsPerRound = answers[reference].reduce(0) { $0 + rows($1, shape) }
        shapeResult.averageRows = Double(rowsPerRound) / Double(instances)
        guard rowsPerRound > 0 else { throw ComparisonError("'\(shape.rawValue)': no instance matched any row; the parameters are wrong") }

        let latencies = try withReaders(engines[...]) { runs in
            try timeQueriesInTurns(engines: engines.map(\.name), instances: instances, minSeconds: minSeconds,
                                   expectedRowsPerRound: rowsPerRound) { engine, i in rows(try runs[engine](shape, parameters[i]), shape) }
        }
        for (index, kind) in kinds.enumerated() {
            shapeResult.timedQueries[kind] = latencies[index].count
            shapeResult.queriesPerSecond[kind] = Double(latencies[index].count) / latencies[index].reduce(0, +)
            shapeResult.medianSeconds[kind] = median(latencies[index])
            if kind == .strata, let strata = engines[index] as? IndexedStrataEngine<IndexedBenchUser> {
                shapeResult.strataPlanningSeconds = try strata.planningSeconds(shape, parameters)
            }
        }
        log("\(shape.rawValue): " + zip(kinds, engines).map { "\($1.name) \(rate(shapeResult.queriesPerSecond[$0])) q/s" }.joined(separator: ", ")
            + "; \(String(format: "%.1f", shapeResult.averageRows)) rows/query; Strata plan \(shapeResult.strataPlan)")
        result.shapes.append(shapeResult)
    }
    return result
}
