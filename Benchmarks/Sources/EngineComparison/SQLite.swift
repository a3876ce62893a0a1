import CSQLite
import Foundation

/// An error of SQLite's C API: the result code, the connection's message, and what was being done.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let description: String
}

/// One connection to a database file through SQLite's C API (the system libsqlite3), nothing in
/// between: the SQLite-C engines' only way to the database.
///
/// ```swift
/// let connection = try SQLiteConnection(path: "/tmp/db.sqlite", settings: SQLiteSettings())
/// let statement = try connection.prepare("SELECT COUNT(*) FROM user")   // prepared once
/// _ = try statement.step(); print(statement.int64(at: 0)); statement.reset()
/// ```
public final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens (creating) `path` with `SQLITE_OPEN_NOMUTEX` (the connection is used by one thread at a
    /// time, so SQLite's per-call mutex is left out) and applies `settings`' pragmas.
    public init(path: String, settings: SQLiteSettings) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, description: "sqlite3_open_v2 \(path): \(message)")
        }
        handle = db
        for pragma in settings.pragmas { try execute(pragma) }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs SQL without results (`sqlite3_exec`): schema, pragmas, BEGIN and COMMIT of a batch.
    public func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// Prepares `sql` once for many runs (`sqlite3_prepare_v3` with `SQLITE_PREPARE_PERSISTENT`:
    /// SQLite keeps it out of its lookaside memory, as for a statement that lives long).
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        guard let statement else { throw SQLiteError(code: SQLITE_MISUSE, description: "empty statement: \(sql)") }
        return SQLiteStatement(handle: statement, connection: self, sql: sql)
    }

    /// The first column of the first row of `sql` as text (a pragma's value, a plan's line).
    public func text(_ sql: String) throws -> String {
        let statement = try prepare(sql)
        guard try statement.step() else { return "" }
        return statement.text(at: 0)
    }

    /// SQLite's `EXPLAIN QUERY PLAN` for `sql` with the parameters `bind` sets, its rows' `detail`
    /// joined by "; ". The values matter: a `GLOB ?` uses an index only once its pattern is bound
    /// (SQLite prepares such a statement again when the binding changes).
    public func explain(_ sql: String, bind: (SQLiteStatement) -> Void = { _ in }) throws -> String {
        let statement = try prepare("EXPLAIN QUERY PLAN " + sql)
        bind(statement)
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(at: 3)) }
        return lines.joined(separator: "; ")
    }

    /// Gathers statistics for the planner (`ANALYZE`), as `PRAGMA optimize` would.
    public func analyze() throws { try execute("ANALYZE") }

    func check(_ code: Int32, _ what: String) throws {
        guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
            throw SQLiteError(code: code, description: "SQLite \(code) (\(String(cString: sqlite3_errmsg(handle)))) in: \(what)")
        }
    }

    /// The SQLite library's version (`sqlite3_libversion`).
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A statement prepared once and run many times: bind, step through its rows, reset.
///
/// Binding copies strings (`SQLITE_TRANSIENT`), so the bound values need not outlive the call.
public final class SQLiteStatement {
    @usableFromInline let handle: OpaquePointer
    // The connection stays open as long as a statement of it lives.
    let connection: SQLiteConnection
    let sql: String

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// `SQLITE_TRANSIENT`: SQLite copies a bound string (a C macro Swift cannot import).
    @usableFromInline static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// Binds parameter `index` (1-based) to an integer, a double, a string or NULL.
    @inlinable public func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    @inlinable public func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    @inlinable public func bind(_ value: Int?, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }
    @inlinable public func bind(_ value: String, at index: Int32) {
        var value = value
        value.withUTF8 { bytes in
            _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), Self.transient)
        }
    }

    /// Runs to the next row: true on a row, false when done (`sqlite3_step`).
    @inlinable public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw failure(code)
    }

    /// Makes the statement ready to run again; the bindings stay until replaced (`sqlite3_reset`).
    @inlinable public func reset() { sqlite3_reset(handle) }

    @usableFromInline func failure(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, description: "SQLite \(code) (\(String(cString: sqlite3_errmsg(connection.handle)))) in: \(sql)")
    }

    @inlinable public func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inlinable public func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }
    @inlinable public func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's UTF-8 bytes, lent to `body` (valid until the next step or reset).
    @inlinable public func withText<R>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        // Text first, then its length, as SQLite's documentation asks (the text may be converted).
        let text = sqlite3_column_text(handle, column)
        return try body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))))
    }

    @inlinable public func text(at column: Int32) -> String { withText(at: column) { String(decoding: $0, as: UTF8.self) } }
}

/// The settings of the SQLite-C engines: the strongest configuration this benchmark knows for a
/// single-connection embedded store, each a pragma run at opening and read back for the tables.
public struct SQLiteSettings: Sendable {
    /// `PRAGMA journal_mode`: WAL (readers never block the writer, commits append to the log).
    public var journalMode = "WAL"
    /// `PRAGMA synchronous`: NORMAL, SQLite's advice for WAL: a commit is not fsynced (the log is at
    /// checkpoints), so a power loss may lose the last commits; a process crash loses nothing.
    public var synchronous = "NORMAL"
    /// `PRAGMA cache_size` in KiB when negative: 256 MiB of page cache, larger than the
    /// benchmark's databases, so reads are served from memory like LMDB's mapped pages.
    public var cacheSizeKiB = 262_144
    /// `PRAGMA mmap_size`: reads through a memory map of up to 1 GiB instead of `read()` calls.
    public var mmapSize = 1 << 30
    /// `PRAGMA temp_store`: sorts (ORDER BY without an index) in memory.
    public var tempStore = "MEMORY"
    /// `PRAGMA secure_delete`: OFF, SQLite's own default (Debian's build turns it on, which zeroes
    /// the space freed on a page).
    public var secureDelete = "OFF"

    public init() {}

    var pragmas: [String] {
        ["PRAGMA journal_mode = \(journalMode)", "PRAGMA synchronous = \(synchronous)",
         "PRAGMA cache_size = -\(cacheSizeKiB)", "PRAGMA mmap_size = \(mmapSize)", "PRAGMA temp_store = \(tempStore)",
         "PRAGMA secure_delete = \(secureDelete)"]
    }

    /// The settings as SQLite reports them on `connection` (what is in force, not what was asked).
    public static func describe(_ connection: SQLiteConnection, statements: String) throws -> String {
        let synchronous = ["0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"]
        let tempStore = ["0": "DEFAULT", "1": "FILE", "2": "MEMORY"]
        let sync = try connection.text("PRAGMA synchronous"), temp = try connection.text("PRAGMA temp_store")
        let cache = Int(try connection.text("PRAGMA cache_size")) ?? 0
        let mmap = Int(try connection.text("PRAGMA mmap_size")) ?? 0
        return "SQLite \(SQLiteConnection.libraryVersion) C API, one connection (SQLITE_OPEN_NOMUTEX), "
            + "journal_mode=\(try connection.text("PRAGMA journal_mode").uppercased()), synchronous=\(synchronous[sync] ?? sync), "
            + "cache_size=\(cache) (\(cache < 0 ? "\(-cache / 1024) MiB" : "\(cache) pages")), mmap_size=\(mmap >> 20) MiB, "
            + "temp_store=\(tempStore[temp] ?? temp), secure_delete=\(try connection.text("PRAGMA secure_delete") == "1" ? "ON" : "OFF"), \(statements)"
    }
}
