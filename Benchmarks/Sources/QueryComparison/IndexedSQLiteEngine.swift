import Dataset
import EngineComparison
import Foundation

/// SQLite through its C API with ``SQLiteSettings`` (WAL, synchronous=NORMAL, 256 MiB page cache,
/// memory map), SQLite-C's table of `side-by-side` plus the six indexes of ``QueryIndexes``. Each
/// shape's SQL is prepared once (`SQLITE_PREPARE_PERSISTENT`) and reset and bound per query; every
/// row is decoded, every column, into `BenchUser`.
public final class IndexedSQLiteEngine: IndexedEngine {
    public let name = EngineKind.sqlite.name
    public private(set) var settings = ""
    let directory: ScratchDirectory
    let connection: SQLiteConnection
    let upsert, count, begin, commit: SQLiteStatement
    var statements: [QueryShape: SQLiteStatement] = [:]
    var records: [BenchUser] = []

    public init() throws {
        try QueryIndexes.check()
        directory = try ScratchDirectory(prefix: "sqlite-query-bench")
        connection = try SQLiteConnection(path: directory.url.appendingPathComponent("db.sqlite").path, settings: SQLiteSettings())
        try connection.execute(UserTable.createSQLiteSQL)
        for index in QueryIndexes.createSQL { try connection.execute(index) }
        upsert = try connection.prepare(UserTable.upsertSQL)
        count = try connection.prepare("SELECT COUNT(*) FROM user")
        begin = try connection.prepare("BEGIN")
        commit = try connection.prepare("COMMIT")
        settings = try SQLiteSettings.describe(connection, statements: SQLiteEngine.statements + ", `ANALYZE` after the upsert (not measured), indexes: "
                                               + QueryIndexes.description)
    }

    public func load(_ users: [GeneratedUser]) { records = users.map(BenchUser.init) }

    func run(_ statement: SQLiteStatement) throws {
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// `body` inside `BEGIN` … `COMMIT` (a thrown error rolls back).
    func transaction<R>(_ body: () throws -> R) throws -> R {
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

    public func upsertAll() throws {
        try transaction {
            for user in records {
                upsert.bind(user)
                try run(upsert)
            }
        }
    }

    public func finishLoading() throws {
        defer { records = [] }
        let rows = try { () throws -> Int64 in
            defer { count.reset() }
            return try count.step() ? count.int64(at: 0) : -1
        }()
        guard rows == Int64(records.count) else { throw ComparisonError("SQLite-C: \(rows) records after upsert, expected \(records.count)") }
        let probe = records[records.count / 2]
        let select = try connection.prepare(UserTable.selectByIDSQL)
        select.bind(probe.id, at: 1)
        guard try select.step(), BenchUser(sqliteRow: select) == probe else {
            throw ComparisonError("SQLite-C: a record read back differs from the one written")
        }
        select.reset()
        try connection.analyze()
    }

    func bind(_ arguments: [SQLValue], to statement: SQLiteStatement) {
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            switch argument {
            case .text(let text): statement.bind(text, at: index)
            case .integer(let number): statement.bind(number, at: index)
            case .date(let date): statement.bind(date.timeIntervalSince1970, at: index)
            }
        }
    }

    /// Runs one query: the shape's prepared statement, bound, stepped, every row decoded.
    func run(_ shape: QueryShape, _ p: QueryParameters) throws -> [Int64] {
        let statement = try statements[shape] ?? connection.prepare(QuerySQL.sql(shape))
        statements[shape] = statement
        defer { statement.reset() }
        bind(QuerySQL.arguments(shape, p), to: statement)
        if shape.isCount { return try statement.step() ? [statement.int64(at: 0)] : [] }
        var users: [BenchUser] = []    // the records, as Strata's `all()` and GRDB's `fetchAll` return them
        while try statement.step() { users.append(BenchUser(sqliteRow: statement)) }
        return users.map(\.id)
    }

    public func withReader<R>(_ body: (_ run: (QueryShape, QueryParameters) throws -> [Int64]) throws -> R) throws -> R {
        try transaction { try body { shape, p in try run(shape, p) } }
    }

    public func explain(_ shape: QueryShape, _ p: QueryParameters) throws -> String {
        try connection.explain(QuerySQL.sql(shape)) { statement in bind(QuerySQL.arguments(shape, p), to: statement) }
    }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url) }

    public func close() {
        statements = [:]
        directory.remove()
    }
}
