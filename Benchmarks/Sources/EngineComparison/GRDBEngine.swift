import Dataset
import Foundation
import GRDB

/// The benchmark's user as a GRDB record: same fields, `tags` stored as JSON text (GRDB's
/// default for a nested Codable value), dates as GRDB's default `YYYY-MM-DD HH:MM:SS.SSS` text.
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

    static func createTable(_ db: Database) throws {
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

/// GRDB 7 on SQLite with its defaults: a `DatabaseQueue` on a file, rollback journal (DELETE
/// mode, not WAL), `synchronous=FULL`, so commits are durable like Strata's.
public final class GRDBEngine: ComparedEngine {
    public static let name = "GRDB"

    let directory: ScratchDirectory
    let dbQueue: DatabaseQueue
    let records: [GRDBUser]

    public init(workload: Workload) throws {
        directory = try ScratchDirectory(prefix: "grdb-bench")
        dbQueue = try DatabaseQueue(path: directory.url.appendingPathComponent("db.sqlite").path)
        try dbQueue.write { db in try GRDBUser.createTable(db) }
        records = workload.users.map(GRDBUser.init)
    }

    public func insertAll() throws {
        try dbQueue.write { db in
            for user in records { try user.upsert(db) }
        }
    }

    public func verifyContents() throws {
        let count = try dbQueue.read { db in try GRDBUser.fetchCount(db) }
        try check(count == records.count, "\(count) records after upsert, expected \(records.count)")
        try check(
            try dbQueue.read { db in try GRDBUser.fetchOne(db, key: records[records.count / 2].id) } == records[records.count / 2],
            "a record read back differs from the one written")
    }

    public func readPoints(_ keys: ArraySlice<Int64>) throws {
        let found = try dbQueue.read { db in
            var found = 0
            for key in keys where try GRDBUser.fetchOne(db, key: key) != nil { found += 1 }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    /// GRDB's fastest point-read path, for reference: one SQL statement prepared once and reused,
    /// instead of the query interface's `fetchOne(db, key:)`, which builds its SQL on every call.
    public func readPointsCachedStatement(_ keys: ArraySlice<Int64>) throws {
        let found = try dbQueue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM user WHERE id = ?")
            var found = 0
            for key in keys where try GRDBUser.fetchOne(statement, arguments: [key]) != nil { found += 1 }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsBatched(_ keys: ArraySlice<Int64>, batchSize: Int) throws {
        let found = try dbQueue.read { db in
            var found = 0
            var start = keys.startIndex
            while start < keys.endIndex {
                let end = min(start + batchSize, keys.endIndex)
                found += try GRDBUser.fetchAll(db, keys: keys[start..<end]).count
                start = end
            }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsOneTransactionEach(_ keys: ArraySlice<Int64>) throws {
        var found = 0
        for key in keys where try dbQueue.read({ db in try GRDBUser.fetchOne(db, key: key) }) != nil { found += 1 }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func scanAll() throws {
        let all = try dbQueue.read { db in try GRDBUser.fetchAll(db) }
        try check(all.count == records.count, "scan returned \(all.count) records, expected \(records.count)")
    }

    public func scanStreaming() throws {
        var seen = 0
        var scoreSum = 0.0
        try dbQueue.read { db in
            let cursor = try GRDBUser.fetchCursor(db)
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
        try? dbQueue.close()
        directory.remove()
    }
}
