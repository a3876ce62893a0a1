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
        case .strata: try IndexedStrataEngine<IndexedBenchUser>(kind: .strata, records: "`IndexedBenchUser` through `FieldCodable` (its fields read and written by hand)")
        case .strataCodable: try IndexedStrataEngine<IndexedCodableUser>(kind: .strataCodable, records: "`IndexedCodableUser` through its synthesized `Codable`")
        case .sqlite: try IndexedSQLiteEngine()
        case .grdbNormal: try IndexedGRDBEngine(synchronous: .normal)
        case .grdbFull: try IndexedGRDBEngine(synchronous: .full)
        case .lmdb: throw ComparisonError("raw LMDB runs no queries")
        }
    }

    /// The engines `query-side-by-side` runs by default, in table order.
    public static let queryEngines: [EngineKind] = [.strata, .strataCodable, .sqlite, .grdbNormal, .grdbFull]
}

/// Strata with its defaults (LMDB, durable commits) and a record type of ``IndexedUser``
/// (`IndexedBenchUser`, or `IndexedCodableUser` for the Codable column), queried through its
/// public query API (key paths; a format string for `BEGINSWITH`), `all()` and `count()`.
public final class IndexedStrataEngine<User: IndexedUser>: IndexedEngine {
    public let name: String
    public let settings: String
    let directory: ScratchDirectory
    public let store: Store
    var records: [User] = []

    public init(kind: EngineKind, records: String) throws {
        name = kind.name
        settings = StrataEngine.settingsLine(records: records, indexes: QueryIndexes.description)
        directory = try ScratchDirectory(prefix: "strata-query-bench")
        store = try Store(path: directory.url.appendingPathComponent("store").path)
    }

    public func load(_ users: [GeneratedUser]) { records = users.map(User.init) }

    public func upsertAll() throws {
        try store.write { tx in _ = try tx.upsert(records) }
    }

    public func finishLoading() throws {
        defer { records = [] }
        let count = try store.read { tx in try tx.count(User.self) }
        guard count == records.count else { throw ComparisonError("\(name): \(count) records after upsert, expected \(records.count)") }
        let probe = records[records.count / 2]
        guard try store.read({ tx in try tx.get(User.self, key: probe.id) }) == probe else {
            throw ComparisonError("\(name): a record read back differs from the one written")
        }
    }

    /// The query for `shape` with `p`, not yet run.
    func request(_ shape: QueryShape, _ p: QueryParameters, _ tx: ReadTransaction) throws -> QueryRequest<User> {
        let q = tx.query(User.self)
        switch shape {
        case .equalityLimit:
            return q.where(User.lastNamePath == p.lastName).limit(100)
        case .rangeSortedLimit:
            return q.where(User.createdAtPath >= p.from && User.createdAtPath < p.to).sorted(by: User.createdAtPath).limit(50)
        case .equalitySortedDescLimit:
            return q.where(User.lastNamePath == p.lastName).sorted(by: User.luckyNumberPath, .descending).limit(10)
        case .prefixSortedLimit:
            return try q.where("lastName BEGINSWITH %@", p.prefix).sorted(by: User.lastNamePath).limit(100)
        case .rangeCount:
            return q.where(User.createdAtPath >= p.from && User.createdAtPath < p.to)
        case .inListLimit:
            return q.where(.in(User.luckyNumberPath, p.luckyNumbers.map { Optional($0) })).limit(100)
        case .orLimit:
            return q.where(User.lastNamePath == p.otherLastName || User.luckyNumberPath == p.luckyNumber).limit(100)
        case .cityLimit:
            return q.where(User.cityPath == p.city).limit(100)
        case .compoundEquality:
            return q.where(User.lastNamePath == p.lastName && User.luckyNumberPath == p.luckyNumber)
        case .compoundRangeSortedLimit:
            return q.where(User.lastNamePath == p.lastName && User.createdAtPath >= p.from && User.createdAtPath < p.to).sorted(by: User.createdAtPath).limit(50)
        case .inListSortedLimit:
            return q.where(.in(User.lastNamePath, p.lastNames)).sorted(by: User.luckyNumberPath).limit(10)
        case .compoundRangeCount:
            return q.where(User.lastNamePath == p.lastName && User.luckyNumberPath >= p.luckyLow && User.luckyNumberPath <= p.luckyHigh)
        case .compoundBoolLimit:
            return q.where(User.cityPath == p.city && User.activePath == true).limit(100)
        case .unindexedLimit:
            return q.where(User.firstNamePath == p.firstName).limit(100)
        }
    }

    /// Runs one query and returns the ids it found, in order (for a count: the count).
    func run(_ shape: QueryShape, _ p: QueryParameters, _ tx: ReadTransaction) throws -> [Int64] {
        let query = try request(shape, p, tx)
        if shape.isCount { return [Int64(try query.count())] }
        return try User.ids(of: query.all())
    }

    public func withReader<R>(_ body: (_ run: (QueryShape, QueryParameters) throws -> [Int64]) throws -> R) throws -> R {
        try store.read { tx in try body { shape, p in try run(shape, p, tx) } }
    }

    public func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String {
        try store.read { tx in try plan(shape, request(shape, p, tx)).description }
    }

    /// The plan the shape runs: `count()`'s own for the counts.
    private func plan(_ shape: QueryShape, _ request: QueryRequest<User>) throws -> QueryPlan {
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
