import Dataset
import EngineComparison
import Foundation
import Strata

/// A record whose filter selectivities are exact, for the planner-regret table: `bucket` j holds
/// exactly `PlannerRegret.selectivities[j]` of the records (the rest hold -1), `stamp` and `rank`
/// are independent permutations of 0..<count (so `stamp` in a window of k values keeps exactly k
/// records, and `rank` orders them at random). `scope` is skewed: `PlannerRegret.scopes` hold 30 %,
/// 1 % and 0.01 % of the records, the rest are spread over values of about 0.01 % each; only the
/// compound index `(scope, stamp)` leads with it. The other fields give it a user-like size.
public struct RegretRecord: Strata.Record, Equatable {
    public var id: Int64
    public var bucket: Int
    public var scope: String
    public var stamp: Int64
    public var rank: Int64
    public var name: String
    public var city: String
    public var score: Double
    public var tags: [String]

    public static let primaryKey = \RegretRecord.id
    public static let indexes: [IndexDefinition<RegretRecord>] = [.index(\.bucket), .index(\.stamp), .index(\.rank),
                                                                   .index(\.scope, \.stamp)]
}

/// The two shapes of the table: a filter (equality or range) that an index finds, an order that
/// another index delivers, and a LIMIT: the planner must choose between reading the filter's
/// matches and sorting them (top-k), and walking the order's index until enough records match.
public enum RegretShape: String, CaseIterable, Sendable {
    case equality = "bucket == ? ORDER BY rank LIMIT 50"
    case range = "stamp in a window ORDER BY rank LIMIT 50"
    /// Skewed: the leading field of a compound index, without an index of its own.
    case skewed = "scope == ? ORDER BY rank LIMIT 50"
    /// Skewed and compound: equality on the leading field, a window on the next.
    case compound = "scope == ? AND stamp in a 20 % window ORDER BY rank LIMIT 50"

    /// The index that finds the filter's matches.
    var filterIndex: String {
        switch self {
        case .equality: "bucket"
        case .range: "stamp"
        case .skewed, .compound: "scope,stamp"
        }
    }

    /// The selectivities of the shape's filter: one row each.
    var selectivities: [Double] {
        switch self {
        case .equality, .range: PlannerRegret.selectivities
        case .skewed: PlannerRegret.scopes.map(\.share)
        case .compound: PlannerRegret.scopes.map { $0.share * PlannerRegret.compoundWindow }
        }
    }
}

/// One row: the plan the planner picks and the best plan forced with an index hint.
public struct RegretRow: Sendable {
    public let shape: RegretShape
    public let selectivity: Double
    public let rows: Int
    public let chosenPlan: String
    public let chosenSeconds: Double
    public let bestPlan: String
    public let bestSeconds: Double
    /// The plans forced with a hint on the filter's index and on the order's index.
    public let filterHintSeconds: Double
    public let orderHintSeconds: Double

    /// How much slower the chosen plan is than the best hinted one (1 when it is that plan).
    public var regret: Double { chosenSeconds / bestSeconds }
}

public enum PlannerRegret {
    /// Filter selectivities of the table, 0.01 % to 50 %.
    public static let selectivities = [0.0001, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    /// The skewed field's named values and the share of records each holds.
    public static let scopes: [(value: String, share: Double)] = [("I", 0.3), ("M", 0.01), ("R", 0.0001)]
    /// The share of the stamps the compound shape's window keeps.
    static let compoundWindow = 0.2
    static let limit = 50

    /// `count` records with exact selectivities, drawn from `seed`.
    public static func records(count: Int, seed: UInt64) -> [RegretRecord] {
        var random = SplitMix64(seed: seed ^ 0x5E_6E_E7)
        var stamps = (0..<Int64(count)).map { $0 }, ranks = stamps, positions = Array(0..<count)
        random.shuffle(&stamps)
        random.shuffle(&ranks)
        random.shuffle(&positions)
        var buckets = [Int](repeating: -1, count: count)
        var next = 0
        for (bucket, selectivity) in selectivities.enumerated() {
            let size = Int((selectivity * Double(count)).rounded())
            for position in positions[next..<min(count, next + size)] { buckets[position] = bucket }
            next += size
        }
        // Scopes: the named ones first, at shuffled positions, the rest over count / 100 values
        // (about 0.007 % each).
        random.shuffle(&positions)
        let others = max(1, count / 100)
        var scopeValues = (0..<count).map { _ in "S\(random.below(others))" }
        next = 0
        for scope in scopes {
            let size = max(1, Int((scope.share * Double(count)).rounded()))
            for position in positions[next..<min(count, next + size)] { scopeValues[position] = scope.value }
            next += size
        }
        return (0..<count).map { i in
            RegretRecord(id: Int64(i), bucket: buckets[i], scope: scopeValues[i], stamp: stamps[i], rank: ranks[i],
                         name: "Name \(random.below(5_000))", city: "City \(random.below(80))",
                         score: random.unit() * 100, tags: ["t\(random.below(20))", "t\(random.below(20))"])
        }
    }

    /// The query of `shape` at `selectivity` (the index of the selectivity, for the equality),
    /// with an optional index hint.
    static func request(_ shape: RegretShape, _ bucket: Int, count: Int, hint: String?, _ tx: ReadTransaction)
        -> QueryRequest<RegretRecord>
    {
        var query = tx.query(RegretRecord.self)
        switch shape {
        case .equality:
            query = query.where(\.bucket == bucket)
        case .range:
            let width = Int64((selectivities[bucket] * Double(count)).rounded())
            let low = (Int64(count) - width) / 2
            query = query.where(\.stamp >= low && \.stamp < low + width)
        case .skewed:
            query = query.where(\.scope == scopes[bucket].value)
        case .compound:
            let width = Int64((compoundWindow * Double(count)).rounded())
            let low = (Int64(count) - width) / 2
            query = query.where(\.scope == scopes[bucket].value && \.stamp >= low && \.stamp < low + width)
        }
        query = query.sorted(by: \.rank).limit(limit)
        return hint.map { query.using(index: $0) } ?? query
    }

    /// Builds a store of `count` records, then for each shape and selectivity times the plan the
    /// planner chooses and the plans forced with a hint on the filter's index and on the order's
    /// index (median latency over repetitions for at least `minSeconds` each), checking that every
    /// plan returns the same ids.
    public static func run(count: Int, seed: UInt64, minSeconds: Double, log: (String) -> Void) throws -> [RegretRow] {
        let directory = try ScratchDirectory(prefix: "strata-regret")
        defer { directory.remove() }
        let store = try Store(path: directory.url.appendingPathComponent("store").path)
        log("planner regret: writing \(count) records…")
        let records = records(count: count, seed: seed)
        try store.write { tx in _ = try tx.upsert(records) }
        var rows: [RegretRow] = []
        for shape in RegretShape.allCases {
            for (bucket, selectivity) in shape.selectivities.enumerated() {
                let row = try store.read { tx -> RegretRow in
                    var timings: [(plan: String, seconds: Double, ids: [Int64])] = []
                    for hint in [nil, shape.filterIndex, "rank"] {
                        let query = request(shape, bucket, count: count, hint: hint, tx)
                        let plan = try query.explain().description
                        if let same = timings.first(where: { $0.plan == plan }) {
                            timings.append(same)
                            continue
                        }
                        let ids = try query.all().map(\.id)
                        if let first = timings.first, first.ids != ids {
                            throw ComparisonError("planner regret: '\(plan)' and '\(first.plan)' disagree on \(shape.rawValue)")
                        }
                        timings.append((plan, try medianLatency(minSeconds: minSeconds) { _ in _ = try query.all() }, ids))
                    }
                    let best = timings.dropFirst().min { $0.seconds < $1.seconds }!
                    return RegretRow(shape: shape, selectivity: selectivity, rows: timings[0].ids.count,
                                     chosenPlan: timings[0].plan, chosenSeconds: timings[0].seconds,
                                     bestPlan: best.plan, bestSeconds: best.seconds,
                                     filterHintSeconds: timings[1].seconds, orderHintSeconds: timings[2].seconds)
                }
                log("\(shape.rawValue) at \(row.selectivity * 100) %: regret \(String(format: "%.2f", row.regret)) (\(row.chosenPlan))")
                rows.append(row)
            }
        }
        return rows
    }

    /// The median latency of `body`, run until `minSeconds` have passed (at least 5 times, at most 2,000).
    static func medianLatency(minSeconds: Double, _ body: (Int) throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        var latencies: [Double] = []
        var total = 0.0
        repeat {
            let start = clock.now
            try body(latencies.count)
            let elapsed = seconds(start.duration(to: clock.now))
            latencies.append(elapsed)
            total += elapsed
        } while (total < minSeconds || latencies.count < 5) && latencies.count < 2_000
        return median(latencies)
    }

    /// | shape | selectivity | rows | chosen plan | µs | best hinted plan | µs | each hint's µs | regret |,
    /// then the worst regret.
    public static func markdownTable(_ rows: [RegretRow]) -> String {
        var lines = [
            "| shape | selectivity | rows | chosen plan | chosen (µs) | best hinted plan | best (µs) | filter index / order index hinted (µs) | regret |",
            "| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: |",
        ]
        for row in rows {
            lines.append("| `\(row.shape.rawValue)` | \(String(format: "%g", row.selectivity * 100)) % | \(row.rows) | "
                + "`\(cell(row.chosenPlan))` | \(microseconds(row.chosenSeconds)) | `\(cell(row.bestPlan))` | "
                + "\(microseconds(row.bestSeconds)) | \(microseconds(row.filterHintSeconds)) / \(microseconds(row.orderHintSeconds)) | "
                + "\(String(format: "%.2f×", row.regret)) |")
        }
        let worst = rows.map(\.regret).max() ?? .nan
        lines.append("| **worst regret** | | | | | | | | **\(String(format: "%.2f×", worst))** |")
        return lines.joined(separator: "\n")
    }
}
