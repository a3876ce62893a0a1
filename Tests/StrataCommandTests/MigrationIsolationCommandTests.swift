import Dispatch
import Foundation
@testable import Strata
import Testing
import TestSupport

/// `strata import` without a schema file imports into the entity as stored when its write
/// transaction starts, so an import queued behind a migration keeps what the migration did; and
/// `strata migrate` and `strata schema --history` print names with their control characters
/// escaped, and a dry run lists every refused step.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
struct MigrationIsolationCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws {
        dir = try TemporaryDirectory("strata-isolation-command")
        let seed = try write(#"[{"id": 1, "name": "a", "qty": "1"}, {"id": 2, "name": "b", "qty": "2"}]"#, "seed.json")
        let run = try StrataCLI.run(["import", store, seed, "--entity", "Item"])
        try #require(run.status == 0, "\(run.error)")
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Whether the main thread of process `pid` sleeps in `clock_nanosleep` or `nanosleep`: where
    /// a Strata writer polls another process's write lock (`flock`, with growing pauses).
    static func isPolling(_ pid: Int32) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return false }
        let number = text.split(separator: " ").first.map(String.init)
        return number == "230" || number == "35"
    }

    @Test(.enabled(if: FileManager.default.isReadableFile(atPath: "/proc/self/syscall"), "needs /proc/PID/syscall"))
    func anImportWaitingBehindAMigrationImportsIntoTheMigratedSchema() throws {
        let payload = try write(#"[{"id": 2, "name": "B", "qty": "20"}, {"id": 3, "name": "C", "qty": "30", "plan": "paid"}]"#, "payload.json")
        let migrating = try Store(path: store)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        var migrator = Migrator()
        migrator.registerMigration("v2") { tx in
            try tx.changeFieldType("qty", in: "Item", to: .integer)
            try tx.addField(FieldDescription("plan", .string, default: .string("free")), to: "Item")
            inside.signal()
            release.wait()
        }
        let plan = migrator
        let migration = Thread { _ = try? migrating.migrate(with: plan); inside.signal() }
        migration.start()
        inside.wait()
        // The migration's write transaction is open. The import reads what it needs, then
        // polls the write lock: only then is the migration let go.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: StrataCLI.binary)
        process.arguments = ["import", store, payload, "--entity", "Item"]
        let error = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        try process.run()
        while process.isRunning, !Self.isPolling(process.processIdentifier) { usleep(500) }
        release.signal()
        inside.wait()
        let errorText = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(try migrating.migrationHistory().map(\.name) == ["v2"])
        let described = try migrating.read { tx in try tx.entityDescription(named: "Item") }
        #expect(described.field("qty")?.type == .integer)
        #expect(described.field("plan")?.defaultValue == .string("free"))
        let export = try StrataCLI.run(["export", store, "Item", "--format", "jsonl"])
        #expect(export.output == """
            {"id":1,"name":"a","qty":1,"plan":"free"}
            {"id":2,"name":"B","qty":20,"plan":"free"}
            {"id":3,"name":"C","qty":30,"plan":"paid"}

            """, "\(export.error)")
        #expect(try migrating.read { tx in try tx.verifyIndexes(entity: "Item") }.isConsistent)
    }

    @Test func aDryRunListsEveryRefusedStepAndChangesNothing() throws {
        let plan = try write(#"""
            {"migrations": [{"name": "v2", "steps": [
              {"op": "renameField", "entity": "Item", "field": "name", "to": "a.b"},
              {"op": "renameField", "entity": "Item", "field": "qty", "to": "q\u001B[2J"},
              {"op": "addField", "entity": "Item", "field": "tier", "type": "string"}]}]}
            """#, "plan.json")
        let before = try StrataCLI.run(["export", store, "Item"]).output
        let dry = try StrataCLI.run(["migrate", store, plan, "--dry-run"])
        #expect(dry.status == 1)
        #expect(dry.error.contains("refused 3 times") && dry.error.contains("step 1") && dry.error.contains("step 2")
                && dry.error.contains("step 3") && !dry.error.contains("\u{1B}"), "\(dry.error)")
        #expect(try StrataCLI.run(["export", store, "Item"]).output == before)
        #expect(try StrataCLI.run(["schema", store, "--history"]).output == "no migrations\n")
    }

    @Test func theHistoryPrintsAStoredNameWithItsControlCharactersEscaped() throws {
        // A name an older program let in: written as the history entry it made.
        let handle = try Store(path: store)
        try handle.write { tx in try tx.noteMigration(AppliedMigration(name: "v1\u{1B}[2J\nv2", order: 1, date: Date(timeIntervalSince1970: 0))) }
        let history = try StrataCLI.run(["schema", store, "--history"])
        #expect(history.output == "1\t1970-01-01T00:00:00Z\tv1\\u{1B}[2J\\u{A}v2\n", "\(history.error)")
    }
}
