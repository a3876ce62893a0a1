import Dataset
import EngineComparison
import Foundation
import GRDB

/// GRDB's `DatabasePool` (WAL; synchronous NORMAL or FULL on the writer), the table of
/// `GRDBEngine` plus the six indexes of ``QueryIndexes``; every statement through
/// `db.cachedStatement(sql:)`, rows decoded by `GRDBUser.init(row:)`.
public final class IndexedGRDBEngine: IndexedEngine {
    public let name: String
    public private(set) var settings = ""
    let directory: ScratchDirectory
    public let pool: DatabasePool
    var records: [GRDBUser] = []

    public init(synchronous: GRDBSynchronous) throws {
        try QueryIndexes.check()
        name = synchronous == .normal ? EngineKind.grdbNormal.name : EngineKind.grdbFull.name
        directory = try ScratchDirectory(prefix: "grdb-query-bench")
        pool = try synchronous.openPool(path: directory.url.appendingPathComponent("db.sqlite").path)
        try pool.write { db in
            try GRDBUser.createTable(db)
            for index in QueryIndexes.createSQL { try db.execute(sql: index) }
        }
        settings = try GRDBSynchronous.describe(pool, indexes: QueryIndexes.description + "; `ANALYZE` after the upsert (not measured)")
    }

    public func load(_ users: [GeneratedUser]) { records = users.map(GRDBUser.init) }

    public func upsertAll() throws { try upsert(records) }

    /// Upserts `records` in one write transaction through one cached `INSERT … ON CONFLICT` statement.
    public func upsert(_ records: [GRDBUser]) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: UserTable.upsertSQL)
            let tagsEncoder = GRDBUser.databaseJSONEncoder(for: "tags")
            for user in records { try statement.execute(arguments: user.upsertArguments(tagsEncoder: tagsEncoder)) }
        }
    }

    /// The number of rows in the table.
    public func count() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") ?? -1 }
    }

    public func finishLoading() throws {
        defer { records = [] }
        let count = try count()
        guard count == records.count else { throw ComparisonError("\(name): \(count) records after upsert, expected \(records.count)") }
        let probe = records[records.count / 2]
        guard try pool.read({ db in try GRDBUser.fetchOne(db.cachedStatement(sql: UserTable.selectByIDSQL), arguments: [probe.id]) }) == probe else {
            throw ComparisonError("\(name): a record read back differs from the one written")
        }
        try pool.writeWithoutTransaction { db in try db.execute(sql: "ANALYZE") }
    }

    static func arguments(_ shape: QueryShape, _ p: QueryParameters) -> StatementArguments {
        StatementArguments(QuerySQL.arguments(shape, p).map { argument -> (any DatabaseValueConvertible)? in
            switch argument {
            case .text(let text): text
            case .integer(let number): number
            case .date(let date): date
            }
        })
    }

    /// Runs one query and returns the ids it found, in order (for a count: the count).
    func run(_ shape: QueryShape, _ p: QueryParameters, _ db: Database) throws -> [Int64] {
        let statement = try db.cachedStatement(sql: QuerySQL.sql(shape))
        let arguments = Self.arguments(shape, p)
        if shape.isCount { return [Int64(try Int.fetchOne(statement, arguments: arguments) ?? -1)] }
        return try GRDBUser.fetchAll(statement, arguments: arguments).map(\.id)
    }

    public func withReader<R>(_ body: (_ run: (QueryShape, QueryParameters) throws -> [Int64]) throws -> R) throws -> R {
        try pool.read { db in try body { shape, p in try run(shape, p, db) } }
    }

    public func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String {
        try pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + QuerySQL.sql(shape), arguments: Self.arguments(shape, p))
                .map { $0["detail"] as String? ?? "?" }.joined(separator: "; ")
        }
    }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url) }

    public func close() {
        try? pool.close()
        directory.remove()
    }
}
