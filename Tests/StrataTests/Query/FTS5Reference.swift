import CSQLite
import Foundation

/// An in-memory SQLite database holding one FTS5 table, `documents(title, body)`, tokenized by
/// `unicode61` with diacritics removed (`remove_diacritics 2`): the reference Strata's full-text
/// search is checked against. Documents are keyed by rowid.
final class FTS5Reference {
    /// An error SQLite reported, with its message and the statement or query it was given.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var db: OpaquePointer?

    init() throws {
        guard sqlite3_open(":memory:", &db) == SQLITE_OK else { throw Failure(description: "sqlite3_open failed") }
        try execute("CREATE VIRTUAL TABLE documents USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2')")
    }

    deinit { sqlite3_close(db) }

    /// Writes a document under `id`, replacing the one there.
    func upsert(id: Int64, title: String, body: String) throws {
        try delete(id: id)
        try run("INSERT INTO documents(rowid, title, body) VALUES (?, ?, ?)", id: id, texts: [title, body]) { _ in }
    }

    /// Removes the document under `id`, if there is one.
    func delete(id: Int64) throws {
        try run("DELETE FROM documents WHERE rowid = ?", id: id, texts: []) { _ in }
    }

    /// The rowids of the documents matching an FTS5 query, ascending.
    func matches(_ query: String) throws -> [Int64] {
        var ids: [Int64] = []
        try run("SELECT rowid FROM documents WHERE documents MATCH ? ORDER BY rowid", id: nil, texts: [query]) { row in
            ids.append(sqlite3_column_int64(row, 0))
        }
        return ids
    }

    /// The rowids of the best `limit` documents matching an FTS5 query by `bm25()`, best first,
    /// ties by rowid (as Strata breaks them).
    func top(_ limit: Int, _ query: String) throws -> [Int64] {
        var found: [Int64] = []
        try run("SELECT rowid FROM documents WHERE documents MATCH ? ORDER BY bm25(documents), rowid LIMIT \(limit)",
                id: nil, texts: [query]) { row in found.append(sqlite3_column_int64(row, 0)) }
        return found
    }

    /// Every document matching an FTS5 query with its relevance: `-bm25()` (FTS5's is negative,
    /// lower is better; Strata's positive, higher is better), by rowid.
    func scores(_ query: String) throws -> [Int64: Double] {
        var found: [Int64: Double] = [:]
        try run("SELECT rowid, -bm25(documents) FROM documents WHERE documents MATCH ?", id: nil, texts: [query]) { row in
            found[sqlite3_column_int64(row, 0)] = sqlite3_column_double(row, 1)
        }
        return found
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    private func run(_ sql: String, id: Int64?, texts: [String], row: (OpaquePointer?) -> Void) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(sql) }
        defer { sqlite3_finalize(statement) }
        var parameter: Int32 = 1
        if let id {
            sqlite3_bind_int64(statement, parameter, id)
            parameter += 1
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for text in texts {
            sqlite3_bind_text(statement, parameter, text, -1, transient)
            parameter += 1
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return
            default: throw failure("\(sql) with \(texts)")
            }
        }
    }

    private func failure(_ context: String) -> Failure {
        Failure(description: "SQLite: \(String(cString: sqlite3_errmsg(db))) (\(context))")
    }
}
