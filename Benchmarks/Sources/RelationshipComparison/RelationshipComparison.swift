import Dataset
import EngineComparison
import Foundation
import GRDB
import Strata

// Users with five notes each, as an API nests them, imported and queried through the
// relationship: Strata's nested JSON import and `ANY notes.text == ?` semi-join against GRDB
// with a foreign key, an index on it and one on the note text, `JSONDecoder` and an
// `IN (SELECT …)` subquery.

/// A user of the relationship benchmark.
public struct RelUser: Strata.Record, Equatable {
    public var id: Int64
    public var name: String
    public var email: String
    public var createdAt: Date
    public static let primaryKey = \RelUser.id
}

/// A note, which refers to its user; deleting a user deletes its notes.
public struct RelNote: Strata.Record, Equatable {
    public var id: Int64
    public var text: String
    public var createdAt: Date
    public var userID: Int64?
    public static let primaryKey = \RelNote.id
    public static let indexes: [IndexDefinition<RelNote>] = [.index(\.text)]
    public static let user = ToOne<RelNote, RelUser>("user", \.userID, inverse: "notes", deleteRule: .cascade)
    public static let relationships: [AnyRelationship<RelNote>] = [.init(user)]
}

/// The phrase of note `k` of user `id`: 2,000 phrases, so each is on about 250 notes of 500,000.
func phrase(_ id: Int, _ k: Int, seed: UInt64) -> String {
    var random = SplitMix64(seed: seed, index: UInt64(id * 8 + k))
    return "note phrase \(random.below(2_000))"
}

/// Writes `users` users with five notes each as one JSON array and returns the byte count.
public func writeNestedDataset(users: Int, seed: UInt64, to url: URL) throws -> Int {
    guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else {
        throw ComparisonError("cannot write \(url.path)")
    }
    defer { try? handle.close() }
    var text = "["
    var total = 0
    for id in 1...users {
        let created = 1_600_000_000 + id * 60
        var notes: [String] = []
        for k in 0..<5 {
            notes.append(#"{"id": \#(id * 10 + k), "text": "\#(phrase(id, k, seed: seed))", "created_at": \#(created + k)}"#)
        }
        text += (id == 1 ? "\n" : ",\n") + #"{"id": \#(id), "name": "User \#(id)", "email": "user\#(id)@example.com", "created_at": \#(created), "#
            + #""notes": [\#(notes.joined(separator: ", "))]}"#
        if text.utf8.count > 1 << 20 {
            total += text.utf8.count
            handle.write(Data(text.utf8))
            text = ""
        }
    }
    text += "\n]\n"
    total += text.utf8.count
    handle.write(Data(text.utf8))
    return total
}

/// What one engine did: the nested import, and `queries` relationship queries.
public struct RelationshipMeasurement: Sendable {
    public var engine: String
    public var importSeconds: Double
    public var querySeconds: Double
    public var queries: Int
    /// The users each query found, to compare the engines.
    public var results: [[Int64]]
    /// The engine's settings line (journal mode, synchronous, cache, statements, indexes).
    public var settings = ""
}

func elapsed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Strata: `importJSON(contentsOf:as:)` with the notes nested in each user (one write
/// transaction), then `ANY notes.text == ?` through the note text index and the reference index,
/// decoding the users found (as GRDB does).
public func measureStrataRelationships(file: URL, users: Int, phrases: [String]) throws -> RelationshipMeasurement {
    let directory = try ScratchDirectory(prefix: "strata-relationship-bench")
    defer { directory.remove() }
    let store = try Store(path: directory.url.appendingPathComponent("store").path)
    try store.prepare(RelNote.self)
    var report: ImportReport?
    let importSeconds = try elapsed {
        report = try store.importJSON(contentsOf: file, as: RelUser.self, options: ImportOptions(related: [.record(RelNote.self)]))
    }
    let notes = try store.read { tx in try tx.count(RelNote.self) }
    guard report?.inserted == users, notes == users * 5 else {
        throw ComparisonError("Strata: imported \(String(describing: report)) with \(notes) notes, expected \(users) users and \(users * 5) notes")
    }
    var results: [[Int64]] = []
    let querySeconds = try elapsed {
        try store.read { tx in
            for text in phrases { results.append(try tx.query(RelUser.self, "ANY notes.text == %@", text).all().map(\.id)) }
        }
    }
    let verification = try store.read { tx in try tx.verifyIndexes(entity: "RelNote") }
    guard verification.isConsistent else { throw ComparisonError("Strata: note indexes inconsistent: \(verification.problems.prefix(3))") }
    return RelationshipMeasurement(engine: "Strata", importSeconds: importSeconds, querySeconds: querySeconds, queries: phrases.count, results: results,
                                   settings: StrataEngine.settingsLine(records: "`RelUser`, `RelNote` through their synthesized `Codable`", indexes: "(RelNote.text), the relationship's own") + "; `importJSON` with `related: [.record(RelNote.self)]`")
}

struct GRDBRelNote: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "relNote"
    var id: Int64
    var text: String
    var createdAt: Date
    var userId: Int64?
}

struct GRDBRelUser: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "relUser"
    var id: Int64
    var name: String
    var email: String
    var createdAt: Date
}

/// The JSON shape GRDB's users decode: a user with its notes.
struct NestedUser: Decodable {
    var id: Int64
    var name: String
    var email: String
    var createdAt: Date
    var notes: [NestedNote]
    struct NestedNote: Decodable { var id: Int64; var text: String; var createdAt: Date }
}

/// GRDB: `JSONDecoder` into nested users, then each user and its notes inserted in one write
/// transaction; a foreign key from notes to users (ON DELETE CASCADE), indexes on it and on the
/// note text; the query `… WHERE id IN (SELECT userId FROM relNote WHERE text = ?)`. On the pool of
/// the other comparisons: WAL, synchronous=NORMAL (GRDB checks foreign keys by default).
public func measureGRDBRelationships(file: URL, users: Int, phrases: [String]) throws -> RelationshipMeasurement {
    let directory = try ScratchDirectory(prefix: "grdb-relationship-bench")
    defer { directory.remove() }
    let pool = try GRDBSynchronous.normal.openPool(path: directory.url.appendingPathComponent("db.sqlite").path)
    defer { try? pool.close() }
    try pool.write { db in
        try db.create(table: "relUser") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text).notNull()
            t.column("email", .text).notNull()
            t.column("createdAt", .datetime).notNull()
        }
        try db.create(table: "relNote") { t in
            t.column("id", .integer).primaryKey()
            t.column("text", .text).notNull().indexed()
            t.column("createdAt", .datetime).notNull()
            t.column("userId", .integer).indexed().references("relUser", onDelete: .cascade)
        }
    }
    let importSeconds = try elapsed {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        let nested = try decoder.decode([NestedUser].self, from: Data(contentsOf: file))
        // Prepared statements, not `record.upsert(db)`, whose `RETURNING *` costs GRDB a third more.
        try pool.write { db in
            let upsertUser = try db.cachedStatement(sql: """
                INSERT INTO relUser (id, name, email, createdAt) VALUES (?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email, createdAt = excluded.createdAt
                """)
            let upsertNote = try db.cachedStatement(sql: """
                INSERT INTO relNote (id, text, createdAt, userId) VALUES (?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET text = excluded.text, createdAt = excluded.createdAt, userId = excluded.userId
                """)
            for user in nested {
                try upsertUser.execute(arguments: [user.id, user.name, user.email, user.createdAt])
                for note in user.notes {
                    try upsertNote.execute(arguments: [note.id, note.text, note.createdAt, user.id])
                }
            }
        }
    }
    let counts = try pool.read { db in (try GRDBRelUser.fetchCount(db), try GRDBRelNote.fetchCount(db)) }
    guard counts == (users, users * 5) else { throw ComparisonError("GRDB: \(counts) rows, expected \(users) users and \(users * 5) notes") }
    try pool.writeWithoutTransaction { db in try db.execute(sql: "ANALYZE") }
    var results: [[Int64]] = []
    let querySeconds = try elapsed {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM relUser WHERE id IN (SELECT userId FROM relNote WHERE text = ?) ORDER BY id")
            for text in phrases {
                results.append(try GRDBRelUser.fetchAll(statement, arguments: [text]).map(\.id))
            }
        }
    }
    let settings = try GRDBSynchronous.describe(
        pool, access: "`db.cachedStatement(sql:)` for the upserts and the query, Codable `GRDBRelUser` rows, foreign keys on",
        indexes: "(relNote.text), (relNote.userId); `ANALYZE` after the import (not measured)")
    return RelationshipMeasurement(engine: EngineKind.grdbNormal.name, importSeconds: importSeconds, querySeconds: querySeconds,
                                   queries: phrases.count, results: results, settings: settings)
}

/// `count` phrases that notes use, drawn deterministically.
public func queryPhrases(count: Int, users: Int, seed: UInt64) -> [String] {
    var random = SplitMix64(seed: seed ^ 0x5EED)
    return (0..<count).map { _ in phrase(1 + random.below(users), random.below(5), seed: seed) }
}
