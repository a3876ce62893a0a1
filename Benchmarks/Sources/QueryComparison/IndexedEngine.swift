import Dataset
import EngineComparison
import Foundation
import Strata

/// One engine of `query-side-by-side`, with the six indexes of ``QueryIndexes``: it converts the
/// users (not measured), upserts them (measured), then runs query shapes inside read transactions.
public protocol IndexedEngine: AnyObject {
    /// The engine's column in the tables (``EngineKind/name``).
    var name: String { get }
    /// Its settings, read back from the open database where it can tell them.
    var settings: String { get }
    /// Converts `users` into the engine's record type and keeps them for ``upsertAll()`` (not measured).
    func load(_ users: [GeneratedUser])
    /// Upserts the loaded records in one write transaction (the measured operation).
    func upsertAll() throws
    /// Checks the count and one record read back, gathers planner statistics where the engine
    /// wants them (`ANALYZE`), and drops the loaded records (not measured).
    func finishLoading() throws
    /// Runs `body` inside one read transaction, with a function that runs one query and returns
    /// the ids it found, in order (for a count: the count alone).
    func withReader<R>(_ body: (_ run: (QueryShape, QueryParameters) throws -> [Int64]) throws -> R) throws -> R
    /// The engine's plan for one instance, on one line.
    func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String
    func databaseSize() -> Int
    func close()
}

extension EngineKind {
    /// This engine with the query indexes (raw LMDB has no query engine).
    public func makeIndexed() throws -> any IndexedEngine {
        switch self {
        case .strata: try IndexedStrataEngine()
        case .sqlite: try IndexedSQLiteEngine()
        case .grdbNormal: try IndexedGRDBEngine(synchronous: .normal)
        case .grdbFull: try IndexedGRDBEngine(synchronous: .full)
        case .lmdb: throw ComparisonError("raw LMDB runs no queries")
        }
    }

    /// The engines `query-side-by-side` runs by default, in table order.
    public static let queryEngines: [EngineKind] = [.strata, .sqlite, .grdbNormal, .grdbFull]
}

/// Strata with its defaults (LMDB, durable commits) and `IndexedBenchUser`, queried through its
/// public query API (key paths; a format string for `BEGINSWITH`), `all()` and `count()`.
public final class IndexedStrataEngine: IndexedEngine {
    public let name = EngineKind.strata.name
    public let settings = StrataEngine.settingsLine(records: "`IndexedBenchUser` through its synthesized `Codable`", indexes: QueryIndexes.description)
    let directory: ScratchDirectory
    public let store: Store
    var records: [IndexedBenchUser] = []

    public init() throws {
        directory = try ScratchDirectory(prefix: "strata-query-bench")
        store = try Store(path: directory.url.appendingPathComponent("store").path)
    }

    public func load(_ users: [GeneratedUser]) { records = users.map(IndexedBenchUser.init) }

    public func upsertAll() throws {
        try store.write { tx in _ = try tx.upsert(records) }
    }

    public func finishLoading() throws {
        defer { records = [] }
        let count = try store.read { tx in try tx.count(IndexedBenchUser.self) }
        guard count == records.count else { throw ComparisonError("Strata: \(count) records after upsert, expected \(records.count)") }
        let probe = records[records.count / 2]
        guard try store.read({ tx in try tx.get(IndexedBenchUser.self, key: probe.id) }) == probe else {
            throw ComparisonError("Strata: a record read back differs from the one written")
        }
    }

    /// The query for `shape` with `p`, not yet run.
    func request(_ shape: QueryShape, _ p: QueryParameters, _ tx: ReadTransaction) throws -> QueryRequest<IndexedBenchUser> {
        let q = tx.query(IndexedBenchUser.self)
        switch shape {
        case .equalityLimit:
            return q.where(\.lastName == p.lastName).limit(100)
        case .rangeSortedLimit:
            return q.where(\.createdAt >= p.from && \.createdAt < p.to).sorted(by: \.createdAt).limit(50)
        case .equalitySortedDescLimit:
            return q.where(\.lastName == p.lastName).sorted(by: \.luckyNumber, .descending).limit(10)
        case .prefixSortedLimit:
            return try q.where("lastName BEGINSWITH %@", p.prefix).sorted(by: \.lastName).limit(100)
        case .rangeCount:
            return q.where(\.createdAt >= p.from && \.createdAt < p.to)
        case .inListLimit:
            return q.where(.in(\.luckyNumber, p.luckyNumbers.map { Optional($0) })).limit(100)
        case .orLimit:
            return q.where(\.lastName == p.otherLastName || \.luckyNumber == p.luckyNumber).limit(100)
        case .cityLimit:
            return q.where(\.city == p.city).limit(100)
        case .compoundEquality:
            return q.where(\.lastName == p.lastName && \.luckyNumber == p.luckyNumber)
        case .compoundRangeSortedLimit:
            return q.where(\.lastName == p.lastName && \.createdAt >= p.from && \.createdAt < p.to).sorted(by: \.createdAt).limit(50)
        case .inListSortedLimit:
            return q.where(.in(\.lastName, p.lastNames)).sorted(by: \.luckyNumber).limit(10)
        case .compoundRangeCount:
            return q.where(\.lastName == p.lastName && \.luckyNumber >= p.luckyLow && \.luckyNumber <= p.luckyHigh)
        case .compoundBoolLimit:
            return q.where(\.city == p.city && \.active == true).limit(100)
        case .unindexedLimit:
            return q.where(\.firstName == p.firstName).limit(100)
        }
    }

    /// Runs one query and returns the ids it found, in order (for a count: the count).
    func run(_ shape: QueryShape, _ p: QueryParameters, _ tx: ReadTransaction) throws -> [Int64] {
        let query = try request(shape, p, tx)
        if shape.isCount { return [Int64(try query.count())] }
        return try query.all().map(\.id)
    }

    public func withReader<R>(_ body: (_ run: (QueryShape, QueryParameters) throws -> [Int64]) throws -> R) throws -> R {
        try store.read { tx in try body { shape, p in try run(shape, p, tx) } }
    }

    public func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String {
        try store.read { tx in try plan(shape, request(shape, p, tx)).description }
    }

    /// The plan the shape runs: `count()`'s own for the counts.
    private func plan(_ shape: QueryShape, _ request: QueryRequest<IndexedBenchUser>) throws -> QueryPlan {
        shape.isCount ? try request.explainCount() : try request.explain()
    }

    /// The median time of planning over the instances (part of every query's latency).
    func planningSeconds(_ shape: QueryShape, _ parameters: [QueryParameters]) throws -> Double {
        try store.read { tx in
            let clock = ContinuousClock()
            var planning: [Double] = []
            for p in parameters {
                let start = clock.now
                _ = try plan(shape, request(shape, p, tx))
                planning.append(seconds(start.duration(to: clock.now)))
            }
            return median(planning)
        }
    }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url.appendingPathComponent("store")) }

    public func close() { directory.remove() }
}
