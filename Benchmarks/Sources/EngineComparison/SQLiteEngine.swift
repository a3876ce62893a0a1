import Foundation

extension BenchUser {
    /// The current row of a `SELECT` ``UserTable/columnList`` of SQLite-C's table, every column decoded.
    public init(sqliteRow row: SQLiteStatement) {
        let tags = row.withText(at: 8) { bytes in
            bytes.split(separator: UserTable.tagSeparator, omittingEmptySubsequences: true)
                .map { String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self) }
        }
        self.init(id: row.int64(at: 0), firstName: row.text(at: 1), lastName: row.text(at: 2), email: row.text(at: 3),
                  luckyNumber: row.isNull(at: 4) ? nil : Int(row.int64(at: 4)), city: row.text(at: 5),
                  score: row.double(at: 6), active: row.int64(at: 7) != 0, tags: tags,
                  createdAt: Date(timeIntervalSince1970: row.double(at: 9)),
                  updatedAt: Date(timeIntervalSince1970: row.double(at: 10)))
    }
}

extension SQLiteStatement {
    /// Binds `user` to the parameters of ``UserTable/upsertSQL``.
    public func bind(_ user: BenchUser) {
        bind(user.id, at: 1)
        bind(user.firstName, at: 2)
        bind(user.lastName, at: 3)
        bind(user.email, at: 4)
        bind(user.luckyNumber, at: 5)
        bind(user.city, at: 6)
        bind(user.score, at: 7)
        bind(Int64(user.active ? 1 : 0), at: 8)
        bind(user.tags.joined(separator: String(UnicodeScalar(UserTable.tagSeparator))), at: 9)
        bind(user.createdAt.timeIntervalSince1970, at: 10)
        bind(user.updatedAt.timeIntervalSince1970, at: 11)
    }
}

/// SQLite through its C API, with the best settings this benchmark knows (``SQLiteSettings``):
/// one connection, WAL, synchronous=NORMAL, a page cache larger than the database, a memory map,
/// and every statement prepared once (`SQLITE_PREPARE_PERSISTENT`), then reset and bound per use.
/// Rows are decoded column by column into ``BenchUser``, the struct Strata decodes.
public final class SQLiteEngine: ComparedEngine {
    public let name = EngineKind.sqlite.name
    public private(set) var settings = ""

    let directory: ScratchDirectory
    let connection: SQLiteConnection
    let records: [BenchUser]
    let upsert, selectByID, selectAll, count, begin, commit: SQLiteStatement
    /// `WHERE id IN (…)` statements by number of ids, prepared at their first use.
    var selectByIDs: [Int: SQLiteStatement] = [:]

    public init(workload: Workload) throws {
        directory = try ScratchDirectory(prefix: "sqlite-bench")
        connection = try SQLiteConnection(path: directory.url.appendingPathComponent("db.sqlite").path, settings: SQLiteSettings())
        try connection.execute(UserTable.createSQLiteSQL)
        upsert = try connection.prepare(UserTable.upsertSQL)
        selectByID = try connection.prepare(UserTable.selectByIDSQL)
        selectAll = try connection.prepare(UserTable.selectAllSQL)
        count = try connection.prepare("SELECT COUNT(*) FROM user")
        begin = try connection.prepare("BEGIN")
        commit = try connection.prepare("COMMIT")
        records = workload.users.map(BenchUser.init)
        settings = try SQLiteSettings.describe(connection, statements: SQLiteEngine.statements + ", indexes: none (INTEGER PRIMARY KEY only)")
    }

    /// How the engines built on the C API run their SQL, for the settings line.
    public static let statements = "statements prepared once (`sqlite3_prepare_v3`, `SQLITE_PREPARE_PERSISTENT`), reset and bound per use, "
        + "dates as REAL, tags as one TEXT joined by U+001F"

    /// Runs `body` inside one transaction (`BEGIN` … `COMMIT`; a thrown error rolls back).
    public func transaction<R>(_ body: () throws -> R) throws -> R {
        try run(begin)
        do {
            let result = try body()
            try run(commit)
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    func run(_ statement: SQLiteStatement) throws {
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// The user with `key`, or nil; in the current transaction, or in one of its own (autocommit).
    func user(_ key: Int64) throws -> BenchUser? {
        defer { selectByID.reset() }
        selectByID.bind(key, at: 1)
        return try selectByID.step() ? BenchUser(sqliteRow: selectByID) : nil
    }

    public func insertAll() throws {
        try transaction {
            for user in records {
                upsert.bind(user)
                try run(upsert)
            }
        }
    }

    public func verifyContents() throws {
        let rows = try { () throws -> Int64 in
            defer { count.reset() }
            return try count.step() ? count.int64(at: 0) : -1
        }()
        try check(rows == Int64(records.count), "\(rows) records after upsert, expected \(records.count)")
        let probe = records[records.count / 2]
        try check(try user(probe.id) == probe, "a record read back differs from the one written")
    }

    public func readPoints(_ keys: ArraySlice<Int64>) throws {
        let found = try transaction {
            var found = 0
            for key in keys where try user(key) != nil { found += 1 }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsBatched(_ keys: ArraySlice<Int64>, batchSize: Int) throws {
        let found = try transaction {
            var found = 0
            var start = keys.startIndex
            while start < keys.endIndex {
                let end = min(start + batchSize, keys.endIndex)
                let statement = try selectByIDs[end - start] ?? connection.prepare(UserTable.selectByIDsSQL(count: end - start))
                selectByIDs[end - start] = statement
                for (offset, key) in keys[start..<end].enumerated() { statement.bind(key, at: Int32(offset + 1)) }
                defer { statement.reset() }
                var batch: [BenchUser] = []
                batch.reserveCapacity(end - start)
                while try statement.step() { batch.append(BenchUser(sqliteRow: statement)) }
                found += batch.count
                start = end
            }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    /// Each `SELECT` alone: SQLite runs it in a read transaction of its own (autocommit).
    public func readPointsOneTransactionEach(_ keys: ArraySlice<Int64>) throws {
        var found = 0
        for key in keys where try user(key) != nil { found += 1 }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func scanAll() throws {
        let all = try transaction {
            defer { selectAll.reset() }
            var all: [BenchUser] = []
            while try selectAll.step() { all.append(BenchUser(sqliteRow: selectAll)) }
            return all
        }
        try check(all.count == records.count, "scan returned \(all.count) records, expected \(records.count)")
    }

    public func scanStreaming() throws {
        var seen = 0
        var scoreSum = 0.0
        try transaction {
            defer { selectAll.reset() }
            while try selectAll.step() {
                let user = BenchUser(sqliteRow: selectAll)
                seen += 1
                scoreSum += user.score
            }
        }
        try check(seen == records.count && scoreSum >= 0, "streaming scan saw \(seen) records, expected \(records.count)")
    }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url) }

    public func close() { directory.remove() }
}
