/// The SQL of the `user` table that the SQLite engines (GRDB and SQLite-C) share: the dataset's
/// fields as columns, in this order, with `id` as `INTEGER PRIMARY KEY` (the rowid itself).
///
/// Only the storage of two kinds of value differs between the engines: GRDB stores dates as its
/// `YYYY-MM-DD HH:MM:SS.SSS` text and `tags` as JSON text (its encoding of a Codable array);
/// SQLite-C stores dates as REAL seconds since 1970 and `tags` joined by U+001F in one TEXT.
public enum UserTable {
    public static let columns = [
        "id", "firstName", "lastName", "email", "luckyNumber", "city", "score", "active", "tags", "createdAt", "updatedAt",
    ]

    /// `id, firstName, …, updatedAt`: every column, in the order the row readers expect.
    public static let columnList = columns.joined(separator: ", ")

    /// One upsert for a prepared statement: an insert, or an update of every column on a
    /// conflicting id (the statement GRDB's `upsert` runs, without its `RETURNING`).
    public static let upsertSQL = "INSERT INTO user (\(columnList)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", "))) "
        + "ON CONFLICT(id) DO UPDATE SET " + columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// The point read by primary key.
    public static let selectByIDSQL = "SELECT \(columnList) FROM user WHERE id = ?"

    /// The many-keys read: `count` ids in one `IN` list (prepared once per count).
    public static func selectByIDsSQL(count: Int) -> String {
        "SELECT \(columnList) FROM user WHERE id IN (\(repeatElement("?", count: count).joined(separator: ", ")))"
    }

    /// Every row in primary-key order.
    public static let selectAllSQL = "SELECT \(columnList) FROM user ORDER BY id"

    /// SQLite-C's table: dates as REAL, `tags` as TEXT.
    public static let createSQLiteSQL = """
        CREATE TABLE user (id INTEGER PRIMARY KEY, firstName TEXT NOT NULL, lastName TEXT NOT NULL, \
        email TEXT NOT NULL, luckyNumber INTEGER, city TEXT NOT NULL, score REAL NOT NULL, active INTEGER NOT NULL, \
        tags TEXT NOT NULL, createdAt REAL NOT NULL, updatedAt REAL NOT NULL)
        """

    /// The separator of `tags` in SQLite-C's TEXT column (no tag contains it).
    public static let tagSeparator: UInt8 = 0x1F
}
