import Foundation
import Testing
import TestSupport

/// The change feed consumed by another system: `tools/changes-to-postgres` (the worked example of
/// docs/replication.md) loads `strata changes` into a table of a real PostgreSQL server, whose rows
/// then equal `strata export`, after inserts, updates, a sync's deletes and text JSON escapes; a
/// second run with `--after` applies only what came since. CI installs and starts PostgreSQL.
@Suite(.enabled(if: Postgres.serverReachable,
                "no PostgreSQL server reachable as its `postgres` user (CI installs postgresql and starts it; `apt-get install -y postgresql && pg_ctlcluster 15 main start`)"))
struct PostgresFeedTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }
    let table = "strata_feed_test_\(UInt32.random(in: 0...UInt32.max))"

    init() throws { dir = try TemporaryDirectory("strata-postgres") }

    func importJSON(_ json: String, sync: Bool = false) throws {
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store, path, "--entity", "Note"] + (sync ? ["--sync"] : []))
        try #require(result.status == 0, "\(result.error)")
    }

    /// Runs the example; returns the last sequence it applied.
    func load(after: Int) throws -> Int {
        let run = try Postgres.shell([Postgres.script, store, "Note", table, "--after", "\(after)"],
                                 environment: ["STRATA": StrataCLI.binary, "PSQL": Postgres.psql.joined(separator: " ")])
        try #require(run.status == 0, "changes-to-postgres failed: \(run.error)")
        return try #require(Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The table's rows and the store's records, each as key → record object.
    func compare() throws {
        let rows = try Postgres.shell(Postgres.psql + ["-Atc", "select record::text from \(table)"])
        try #require(rows.status == 0, "\(rows.error)")
        let inPostgres = try rows.output.split(separator: "\n").map { try #require(try StrataCLI.json(String($0)) as? NSDictionary) }
        let exported = try StrataCLI.run(["export", store, "Note", "--format", "jsonl"])
        let inStrata = try exported.output.split(separator: "\n").map { try #require(try StrataCLI.json(String($0)) as? NSDictionary) }
        let key = { (record: NSDictionary) in (record["id"] as? Int) ?? -1 }
        #expect(inPostgres.sorted { key($0) < key($1) } == inStrata.sorted { key($0) < key($1) })
        #expect(!inStrata.isEmpty)
    }

    @Test func theFeedLoadsIntoPostgresAndMatchesTheStore() throws {
        defer { _ = try? Postgres.shell(Postgres.psql + ["-c", "drop table if exists \(table)"]) }
        // The log from the start: the entity's first commit is in it.
        try importJSON(#"[{"id": 0, "text": "seed", "stars": 1}]"#)
        #expect(try StrataCLI.run(["changelog", store, "--enable"]).status == 0)
        try importJSON(#"""
            [{"id": 1, "text": "quote \" backslash \\ newline \n tab \t", "stars": 5},
             {"id": 2, "text": "Fünke 🇩🇪 ÉLAN", "stars": 3}, {"id": 3, "text": "comma, and ; semicolon", "stars": 4}]
            """#)
        try importJSON(#"[{"id": 2, "text": "Fünke, updated", "stars": 2}]"#)
        // The seed record predates the log: load it through a commit the log sees.
        try importJSON(#"[{"id": 0, "text": "seed, logged", "stars": 1}]"#)
        var position = try load(after: 0)
        try compare()
        // A sync deletes what the payload lacks; the next run takes only what came since.
        try importJSON(#"[{"id": 0, "text": "seed, logged", "stars": 1}, {"id": 2, "text": "Fünke, updated", "stars": 2}, {"id": 4, "text": "new", "stars": 0}]"#, sync: true)
        position = try load(after: position)
        try compare()
        #expect(position == 4, "the last sequence applied: four commits since the log began")
    }
}

/// A PostgreSQL server reachable as its `postgres` user, and a way to run programs.
enum Postgres {
    static let psql = ["runuser", "-u", "postgres", "--", "psql"]

    static var serverReachable: Bool {
        getuid() == 0 && ((try? shell(psql + ["-Atc", "select 1"]))?.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/changes-to-postgres").path

    /// Runs a program and returns its status and output.
    static func shell(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
