import Dataset
import Foundation
import GRDB

/// The benchmark's user as a GRDB record: same fields, `tags` stored as JSON text (GRDB's
/// storage of a nested Codable value), dates as GRDB's default `YYYY-MM-DD HH:MM:SS.SSS` text.
///
/// Rows are decoded by the hand-written ``init(row:)`` (columns by index, in ``UserTable`` order)
/// and written through ``upsertArguments(tagsEncoder:)``, both bypassing the Codable machinery;
/// the Codable conformance stays for JSON (the import benchmark decodes the dataset into it).
public struct GRDBUser: Codable, FetchableRecord, PersistableRecord, Equatable, Sendable {
    public static let databaseTableName = "user"

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

    /// A row of `SELECT` ``UserTable/columnList``, by column index.
    public init(row: Row) throws {
        id = row[0]
        firstName = row[1]
        lastName = row[2]
        email = row[3]
        luckyNumber = row[4]
        city = row[5]
        score = row[6]
        active = row[7]
        tags = try row.withUnsafeData(atIndex: 8) { json in try Self.tagsDecoder.decode([String].self, from: json ?? Data()) }
        createdAt = row[9]
        updatedAt = row[10]
    }

    /// One decoder for every row (GRDB's Codable decoding makes one per JSON column and row).
    static let tagsDecoder = JSONDecoder()

    /// The arguments of ``UserTable/upsertSQL``: the values GRDB's Codable encoding would store
    /// (`tagsEncoder` is `GRDBUser.databaseJSONEncoder(for: "tags")`, made once per write).
    public func upsertArguments(tagsEncoder: JSONEncoder) throws -> StatementArguments {
        let tagsJSON = String(decoding: try tagsEncoder.encode(tags), as: UTF8.self)
        return [id, firstName, lastName, email, luckyNumber, city, score, active, tagsJSON, createdAt, updatedAt]
    }

    public static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { t in
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
    }
}

/// `PRAGMA synchronous` of a GRDB pool's writer connection.
public enum GRDBSynchronous: String, Sendable {
    /// What `DatabasePool` sets up with WAL: commits not fsynced (a power loss may lose the last ones).
    case normal = "NORMAL"
    /// Every commit fsynced, as Strata's `durability: .synchronous`.
    case full = "FULL"

    /// Opens a `DatabasePool` at `path` (GRDB turns on WAL and synchronous=NORMAL on its writer),
    /// then sets this synchronous level on the writer, the one connection that commits.
    public func openPool(path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(rawValue)") }
        return pool
    }

    /// How `GRDBEngine` and `IndexedGRDBEngine` reach their rows, for their settings lines.
    public static let recordAccess = "`db.cachedStatement(sql:)` for every upsert and read, hand-written `init(row:)` by column index"

    /// The pool's settings as SQLite reports them (writer and a reader), for the tables; `access`
    /// says how the benchmark runs its SQL and decodes its rows.
    public static func describe(_ pool: DatabasePool, access: String = recordAccess, indexes: String) throws -> String {
        let names = [0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"]
        let (journal, sync, writerCache) = try pool.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?", try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1,
             try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0)
        }
        let readerCache = try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0 }
        let version = try pool.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "?" }
        return "GRDB 7.10.0 `DatabasePool` on SQLite \(version): journal_mode=\(journal.uppercased()), "
            + "synchronous=\(names[sync] ?? "\(sync)") (writer), cache_size=\(writerCache) on the writer and \(readerCache) on "
            + "each reader (SQLite's default: 2,000 KiB), \(access), indexes: \(indexes)"
    }
}

/// GRDB 7 on SQLite set up for an app: a `DatabasePool` (WAL) on a file, SQL statements prepared
/// once per connection through `db.cachedStatement(sql:)`, records decoded by `init(row:)`.
public final class GRDBEngine: ComparedEngine {
    public let name: String
    public private(set) var settings = ""

    let directory: ScratchDirectory
    let pool: DatabasePool
    let records: [GRDBUser]

    public init(workload: Workload, synchronous: GRDBSynchronous) throws {
        name = synchronous == .normal ? EngineKind.grdbNormal.name : EngineKind.grdbFull.name
        directory = try ScratchDirectory(prefix: "grdb-bench")
        pool = try synchronous.openPool(path: directory.url.appendingPathComponent("db.sqlite").path)
        try pool.write { db in try GRDBUser.createTable(db) }
        records = workload.users.map(GRDBUser.init)
        settings = try GRDBSynchronous.describe(pool, indexes: "none (INTEGER PRIMARY KEY only)")
    }

    public func insertAll() throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: UserTable.upsertSQL)
            let tagsEncoder = GRDBUser.databaseJSONEncoder(for: "tags")
            for user in records { try statement.execute(arguments: user.upsertArguments(tagsEncoder: tagsEncoder)) }
        }
    }

    public func verifyContents() throws {
        let count = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") ?? -1 }
        try check(count == records.count, "\(count) records after upsert, expected \(records.count)")
        let probe = records[records.count / 2]
        let read = try pool.read { db in try GRDBUser.fetchOne(db.cachedStatement(sql: UserTable.selectByIDSQL), arguments: [probe.id]) }
        try check(read == probe, "a record read back differs from the one written")
    }

    public func readPoints(_ keys: ArraySlice<Int64>) throws {
        let found = try pool.read { db in
            let statement = try db.cachedStatement(sql: UserTable.selectByIDSQL)
            var found = 0
            for key in keys where try GRDBUser.fetchOne(statement, arguments: [key]) != nil { found += 1 }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsBatched(_ keys: ArraySlice<Int64>, batchSize: Int) throws {
        let found = try pool.read { db in
            var found = 0
            var start = keys.startIndex
            while start < keys.endIndex {
                let end = min(start + batchSize, keys.endIndex)
                let statement = try db.cachedStatement(sql: UserTable.selectByIDsSQL(count: end - start))
                found += try GRDBUser.fetchAll(statement, arguments: StatementArguments(keys[start..<end])).count
                start = end
            }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsOneTransactionEach(_ keys: ArraySlice<Int64>) throws {
        var found = 0
        for key in keys where try pool.read({ db in
            try GRDBUser.fetchOne(db.cachedStatement(sql: UserTable.selectByIDSQL), arguments: [key])
        }) != nil { found += 1 }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func scanAll() throws {
        let all = try pool.read { db in try GRDBUser.fetchAll(db.cachedStatement(sql: UserTable.selectAllSQL)) }
        try check(all.count == records.count, "scan returned \(all.count) records, expected \(records.count)")
    }

    public func scanStreaming() throws {
        var seen = 0
        var scoreSum = 0.0
        try pool.read { db in
            let cursor = try GRDBUser.fetchCursor(db.cachedStatement(sql: UserTable.selectAllSQL))
            while let user = try cursor.next() {
                seen += 1
                scoreSum += user.score
            }
        }
        try check(seen == records.count && scoreSum >= 0, "streaming scan saw \(seen) records, expected \(records.count)")
    }

    public func databaseSize() -> Int {
        ScratchDirectory.size(of: directory.url)
    }

    public func close() {
        try? pool.close()
        directory.remove()
    }
}
