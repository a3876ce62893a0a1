import CSQLite
import EngineComparison
import Foundation
import Strata

/// A paragraph in Strata, with an ordinary index on `section` and the full-text index on
/// (title, body): no stemming, no stop words, the rules FTS5's `unicode61 remove_diacritics 2`
/// has (case and diacritics folded).
struct TextDoc: Record {
    var id: Int64
    var page: String
    var section: String
    var title: String
    var body: String
    static let primaryKey = \TextDoc.id
    static let indexes: [IndexDefinition<TextDoc>] = [.index(\.section), .fullText(\.title, \.body)]

    init(_ p: ManualParagraph) { (id, page, section, title, body) = (p.id, p.page, p.section, p.title, p.body) }
}

/// The same paragraph without the full-text index: the baseline of the incremental upsert.
struct PlainDoc: Record {
    var id: Int64
    var page: String
    var section: String
    var title: String
    var body: String
    static let primaryKey = \PlainDoc.id
    static let indexes: [IndexDefinition<PlainDoc>] = [.index(\.section)]

    init(_ p: ManualParagraph) { (id, page, section, title, body) = (p.id, p.page, p.section, p.title, p.body) }
}

/// Strata's side: one store in a scratch directory, default configuration.
final class StrataText {
    let directory: ScratchDirectory
    let store: Store

    init(prefix: String) throws {
        directory = try ScratchDirectory(prefix: prefix)
        store = try Store(path: directory.url.appendingPathComponent("store").path)
    }

    func load(_ documents: [ManualParagraph]) throws {
        try store.write { tx in try tx.upsert(documents.map(TextDoc.init)) }
    }

    func loadPlain(_ documents: [ManualParagraph]) throws {
        try store.write { tx in try tx.upsert(documents.map(PlainDoc.init)) }
    }

    /// The store's size: LMDB's used pages (what a compacted copy would hold), and the file's
    /// allocated bytes.
    func size() throws -> (used: Int, allocated: Int) {
        (try store.statistics().usedBytes, ScratchDirectory.size(of: directory.url.appendingPathComponent("store")))
    }

    func topTen(_ tx: ReadTransaction, _ query: String, section: String? = nil) throws -> [Int64] {
        var request = tx.query(TextDoc.self).where(.matches(\.body, query))
        if let section { request = tx.query(TextDoc.self).where(.matches(\.body, query) && \.section == section) }
        return try request.sorted(by: .relevance).limit(10).ids()
    }

    func matches(_ tx: ReadTransaction, _ query: String) throws -> [Int64] {
        try tx.query(TextDoc.self).where(.matches(\.body, query)).ids()
    }

    func close() { directory.remove() }
}

/// SQLite FTS5 through the C API: the paragraphs in an ordinary table `doc` (rowid = id, an index
/// on `section`), the full-text index an external-content FTS5 table over it (`content='doc'`,
/// `content_rowid='id'`, `tokenize='unicode61 remove_diacritics 2'`), both written by prepared
/// statements in the same transaction (no triggers).
final class SQLiteText {
    static let schema = [
        "CREATE TABLE doc(id INTEGER PRIMARY KEY, page TEXT NOT NULL, section TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL)",
        "CREATE INDEX doc_section ON doc(section)",
        "CREATE VIRTUAL TABLE doc_fts USING fts5(title, body, content='doc', content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    ]
    static let topSQL = "SELECT rowid FROM doc_fts WHERE body MATCH ? ORDER BY rank LIMIT 10"
    static let topInSectionSQL = "SELECT doc.id FROM doc_fts JOIN doc ON doc.id = doc_fts.rowid WHERE doc_fts.body MATCH ? AND doc.section = ? ORDER BY doc_fts.rank LIMIT 10"
    static let matchSQL = "SELECT rowid FROM doc_fts WHERE body MATCH ?"
    static let tiedTopSQL = topSQL.replacingOccurrences(of: "ORDER BY rank", with: "ORDER BY rank, rowid")
    static let tiedTopInSectionSQL = topInSectionSQL.replacingOccurrences(of: "ORDER BY doc_fts.rank", with: "ORDER BY doc_fts.rank, doc.id")

    let directory: ScratchDirectory
    let connection: SQLiteConnection
    let insertDoc, insertFTS, deleteFTS, selectDoc, begin, commit, top, topInSection, match, tiedTop, tiedTopInSection: SQLiteStatement
    let path: String
    var settings = ""

    init(prefix: String) throws {
        directory = try ScratchDirectory(prefix: prefix)
        path = directory.url.appendingPathComponent("db.sqlite").path
        connection = try SQLiteConnection(path: path, settings: SQLiteSettings())
        for sql in Self.schema { try connection.execute(sql) }
        insertDoc = try connection.prepare("INSERT OR REPLACE INTO doc(id, page, section, title, body) VALUES (?, ?, ?, ?, ?)")
        insertFTS = try connection.prepare("INSERT INTO doc_fts(rowid, title, body) VALUES (?, ?, ?)")
        deleteFTS = try connection.prepare("INSERT INTO doc_fts(doc_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)")
        selectDoc = try connection.prepare("SELECT title, body FROM doc WHERE id = ?")
        begin = try connection.prepare("BEGIN")
        commit = try connection.prepare("COMMIT")
        top = try connection.prepare(Self.topSQL)
        topInSection = try connection.prepare(Self.topInSectionSQL)
        match = try connection.prepare(Self.matchSQL)
        tiedTop = try connection.prepare(Self.tiedTopSQL)
        tiedTopInSection = try connection.prepare(Self.tiedTopInSectionSQL)
        settings = try SQLiteSettings.describe(connection, statements: "statements prepared once (`sqlite3_prepare_v3`, `SQLITE_PREPARE_PERSISTENT`), reset and bound per use; "
            + Self.schema.map { "`\($0)`" }.joined(separator: "; ") + "; queries: `\(Self.topSQL)`, `\(Self.topInSectionSQL)`, `\(Self.matchSQL)` (`rank` is `bm25(doc_fts)`, FTS5's default); for the top-10 overlap alone, the same with `ORDER BY rank, rowid` (ties broken as Strata breaks them, by the oldest document)")
    }

    func run(_ statement: SQLiteStatement) throws {
        defer { statement.reset() }
        while try statement.step() {}
    }

    func transaction<R>(_ body: () throws -> R) throws -> R {
        try run(begin)
        do { let r = try body(); try run(commit); return r } catch { try? connection.execute("ROLLBACK"); throw error }
    }

    func insert(_ d: ManualParagraph) throws {
        insertDoc.bind(d.id, at: 1); insertDoc.bind(d.page, at: 2); insertDoc.bind(d.section, at: 3)
        insertDoc.bind(d.title, at: 4); insertDoc.bind(d.body, at: 5)
        try run(insertDoc)
        insertFTS.bind(d.id, at: 1); insertFTS.bind(d.title, at: 2); insertFTS.bind(d.body, at: 3)
        try run(insertFTS)
    }

    func load(_ documents: [ManualParagraph]) throws {
        try transaction { for d in documents { try insert(d) } }
    }

    /// Replaces one document in its own transaction: the old text out of the index (FTS5's
    /// `'delete'` command takes the old values), the row replaced, the new text in.
    func upsert(_ d: ManualParagraph) throws {
        try transaction {
            selectDoc.bind(d.id, at: 1)
            if try selectDoc.step() {
                let (title, body) = (selectDoc.text(at: 0), selectDoc.text(at: 1))
                selectDoc.reset()
                deleteFTS.bind(d.id, at: 1); deleteFTS.bind(title, at: 2); deleteFTS.bind(body, at: 3)
                try run(deleteFTS)
            } else { selectDoc.reset() }
            try insert(d)
        }
    }

    /// The database file's size after a checkpoint into it (the WAL truncated), and the pages of
    /// the content table with its section index and of the FTS5 index's shadow tables.
    func size() throws -> Int {
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return ScratchDirectory.size(of: directory.url)
    }

    func ids(_ statement: SQLiteStatement) throws -> [Int64] {
        defer { statement.reset() }
        var ids: [Int64] = []
        while try statement.step() { ids.append(statement.int64(at: 0)) }
        return ids
    }

    func topTen(_ query: String, section: String? = nil, tiesByRowid: Bool = false) throws -> [Int64] {
        if let section {
            let statement = tiesByRowid ? tiedTopInSection : topInSection
            statement.bind(query, at: 1); statement.bind(section, at: 2)
            return try ids(statement)
        }
        let statement = tiesByRowid ? tiedTop : top
        statement.bind(query, at: 1)
        return try ids(statement)
    }

    func matches(_ query: String) throws -> [Int64] {
        match.bind(query, at: 1)
        return try ids(match)
    }

    func close() { directory.remove() }
}
