import Dataset
import EngineComparison
import Foundation
import GRDB
import Strata

/// `BenchUser` with three single-field secondary indexes: lastName, luckyNumber, createdAt.
public struct IndexedBenchUser: Strata.Record, Equatable {
    public var id: Int64
    public var firstName: String
    public var lastName: String
    public var email: String
    public var luckyNumber: Int?
    public var city: String
    public var score: Double
    public var active: Bool
    public var tags: [String]
    public var createdAt: Date
    public var updatedAt: Date

    public static let primaryKey = \IndexedBenchUser.id
    public static let indexes: [IndexDefinition<IndexedBenchUser>] = [
        .index(\.lastName), .index(\.luckyNumber), .index(\.createdAt),
    ]

    public init(_ user: GeneratedUser) {
        id = user.id
        firstName = user.firstName
        lastName = user.lastName
        email = user.email
        luckyNumber = user.luckyNumber
        city = user.city
        score = user.score
        active = user.active
        tags = user.tags
        createdAt = user.createdAt
        updatedAt = user.updatedAt
    }
}

/// Strata with its defaults (LMDB, durable commits) and `IndexedBenchUser`.
public final class IndexedStrataEngine {
    public static let name = "Strata"
    let directory: ScratchDirectory
    public let store: Store

    public init() throws {
        directory = try ScratchDirectory(prefix: "strata-query-bench")
        store = try Store(path: directory.url.appendingPathComponent("store").path)
    }

    /// Upserts every record in one write transaction (the measured operation).
    public func upsertAll(_ records: [IndexedBenchUser]) throws {
        try store.write { tx in _ = try tx.upsert(records) }
    }

    public func verify(_ records: [IndexedBenchUser]) throws {
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
        case .unindexedLimit:
            return q.where(\.city == p.city).limit(100)
        }
    }

    /// Runs one query and returns the ids it found, in order (for a count: the count).
    func run(_ shape: QueryShape, _ p: QueryParameters, _ tx: ReadTransaction) throws -> [Int64] {
        let query = try request(shape, p, tx)
        if shape == .rangeCount { return [Int64(try query.count())] }
        return try query.all().map(\.id)
    }

    func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String {
        try store.read { tx in try request(shape, p, tx).explain().description }
    }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url.appendingPathComponent("store")) }

    public func close() { directory.remove() }
}

/// GRDB with its defaults (DatabaseQueue, rollback journal, synchronous=FULL), the same table as
/// `GRDBEngine` plus `CREATE INDEX` on lastName, luckyNumber and createdAt.
public final class IndexedGRDBEngine {
    public static let name = "GRDB"
    let directory: ScratchDirectory
    public let dbQueue: DatabaseQueue

    public init() throws {
        directory = try ScratchDirectory(prefix: "grdb-query-bench")
        dbQueue = try DatabaseQueue(path: directory.url.appendingPathComponent("db.sqlite").path)
        try dbQueue.write { db in
            try db.create(table: GRDBUser.databaseTableName) { t in
                t.primaryKey("id", .integer)    // INTEGER PRIMARY KEY: the rowid itself
                t.column("firstName", .text).notNull()
                t.column("lastName", .text).notNull()
                t.column("email", .text).notNull()
                t.column("luckyNumber", .integer)
                t.column("city", .text).notNull()
                t.column("score", .double).notNull()
                t.column("active", .boolean).notNull()
                t.column("tags", .jsonText).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.execute(sql: "CREATE INDEX user_lastName ON user(lastName)")
            try db.execute(sql: "CREATE INDEX user_luckyNumber ON user(luckyNumber)")
            try db.execute(sql: "CREATE INDEX user_createdAt ON user(createdAt)")
        }
    }

    /// Upserts every record in one write transaction through the query interface (the measured operation).
    public func upsertAll(_ records: [GRDBUser]) throws {
        try dbQueue.write { db in
            for user in records { try user.upsert(db) }
        }
    }

    /// Gathers statistics for the planner (not measured): `ANALYZE`, as `PRAGMA optimize` would.
    public func analyze() throws {
        try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "ANALYZE") }
    }

    public func verify(_ records: [GRDBUser]) throws {
        let count = try dbQueue.read { db in try GRDBUser.fetchCount(db) }
        guard count == records.count else { throw ComparisonError("GRDB: \(count) records after upsert, expected \(records.count)") }
        let probe = records[records.count / 2]
        guard try dbQueue.read({ db in try GRDBUser.fetchOne(db, key: probe.id) }) == probe else {
            throw ComparisonError("GRDB: a record read back differs from the one written")
        }
    }

    /// The SQL for `shape`: run through `db.cachedStatement(sql:)`, so it is prepared once per shape.
    static func sql(_ shape: QueryShape) -> String {
        switch shape {
        case .equalityLimit: "SELECT * FROM user WHERE lastName = ? ORDER BY id LIMIT 100"
        case .rangeSortedLimit: "SELECT * FROM user WHERE createdAt >= ? AND createdAt < ? ORDER BY createdAt, id LIMIT 50"
        case .equalitySortedDescLimit: "SELECT * FROM user WHERE lastName = ? ORDER BY luckyNumber DESC, id LIMIT 10"
        case .prefixSortedLimit: "SELECT * FROM user WHERE lastName GLOB ? ORDER BY lastName, id LIMIT 100"
        case .rangeCount: "SELECT COUNT(*) FROM user WHERE createdAt >= ? AND createdAt < ?"
        case .inListLimit: "SELECT * FROM user WHERE luckyNumber IN (?, ?, ?, ?, ?) ORDER BY id LIMIT 100"
        case .orLimit: "SELECT * FROM user WHERE lastName = ? OR luckyNumber = ? ORDER BY id LIMIT 100"
        case .unindexedLimit: "SELECT * FROM user WHERE city = ? ORDER BY id LIMIT 100"
        }
    }

    static func arguments(_ shape: QueryShape, _ p: QueryParameters) -> StatementArguments {
        switch shape {
        case .equalityLimit, .equalitySortedDescLimit: [p.lastName]
        case .rangeSortedLimit, .rangeCount: [p.from, p.to]
        case .prefixSortedLimit: [p.prefix + "*"]    // GLOB: case-sensitive, uses the BINARY index
        case .inListLimit: StatementArguments(p.luckyNumbers)
        case .orLimit: [p.otherLastName, p.luckyNumber]
        case .unindexedLimit: [p.city]
        }
    }

    /// Runs one query and returns the ids it found, in order (for a count: the count).
    func run(_ shape: QueryShape, _ p: QueryParameters, _ db: Database) throws -> [Int64] {
        let statement = try db.cachedStatement(sql: Self.sql(shape))
        let arguments = Self.arguments(shape, p)
        if shape == .rangeCount { return [Int64(try Int.fetchOne(statement, arguments: arguments) ?? -1)] }
        return try GRDBUser.fetchAll(statement, arguments: arguments).map(\.id)
    }

    /// SQLite's `EXPLAIN QUERY PLAN` for one instance, its rows' details joined by "; ".
    func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String {
        try dbQueue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.sql(shape), arguments: Self.arguments(shape, p))
                .map { $0["detail"] as String? ?? "?" }.joined(separator: "; ")
        }
    }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url) }

    public func close() {
        try? dbQueue.close()
        directory.remove()
    }
}
