import Foundation
import Testing
import TestSupport

/// `strata backup` killed with SIGKILL at a random moment, or just after its copy began: the
/// destination is then missing or a whole backup (it verifies, and its statistics are the
/// store's), never a partial file that crashes whoever opens it; what a kill leaves beside it is
/// no store (no `data.mdb`), and the next backup to the same destination works and clears it away.
///
/// `swift test` kills 4 backups; `STRATA_EXTENDED=1` kills 40 (`STRATA_BACKUP_KILLS=N` sets it).
@Suite struct KilledBackupTests {
    static var extended: Bool { KillRuns.extended }

    static var kills: Int { KillRuns.count(default: 4, extended: 40, variable: "STRATA_BACKUP_KILLS") }

    static let schema = #"""
        { "entities": { "Doc": { "primaryKey": "id",
            "fields": { "id": {"type": "int"}, "group": {"type": "int"}, "blob": {"type": "string"} },
            "indexes": [ {"fields": ["group"]} ] } } }
        """#

    /// Runs `strata arguments`, killing it once `trigger` is true (checked every half millisecond)
    /// and `delay` more seconds have passed, unless it exited first; returns whether it was killed.
    static func run(_ arguments: [String], delay: Double, trigger: () -> Bool) throws -> (killed: Bool, status: Int32, seconds: Double) {
        let run = try StrataCLI.runKilling(arguments, after: delay, when: trigger)
        return (run.killed, run.status, run.seconds)
    }

    /// `strata stats --json` of `store` without its path and map size (a backup has its own).
    static func statistics(_ store: String) throws -> String {
        let result = try StrataCLI.run(["stats", store, "--json"])
        guard result.status == 0, var object = try StrataCLI.json(result.output) as? [String: Any] else {
            return "stats failed with status \(result.status): \(result.error)"
        }
        object["path"] = nil
        object["mapSize"] = nil
        object["readers"] = nil
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The entries of `dir` a backup to `name` leaves beside its destination while it copies.
    static func partials(in dir: String, of name: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix(".\(name).partial-") }.sorted()
    }

    /// True once a backup to `name` in `dir` has a file in its destination or in a partial
    /// directory beside it: the copy has begun.
    static func copyStarted(in dir: String, of name: String) -> Bool {
        let files = FileManager.default
        for entry in [name] + partials(in: dir, of: name) {
            if let inside = try? files.contentsOfDirectory(atPath: dir + "/" + entry), !inside.isEmpty { return true }
        }
        return false
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func killedBackupsLeaveNoDestinationOrAWholeOne() throws {
        let dir = try TemporaryDirectory("strata-kill-backup")
        let store = dir.path("store"), schema = dir.path("schema.json"), input = dir.path("docs.json")
        try Data(Self.schema.utf8).write(to: URL(fileURLWithPath: schema))
        let records = Self.extended ? 4000 : 1500
        let objects = (1...records).map { id in ["id": id, "group": id % 13, "blob": String(repeating: "b\(id % 10)", count: 1000)] as [String: Any] }
        try JSONSerialization.data(withJSONObject: objects).write(to: URL(fileURLWithPath: input))
        let imported = try StrataCLI.run(["import", store, input, "--entity", "Doc", "--schema", schema])
        try #require(imported.status == 0, "\(imported.error)")
        let expected = try Self.statistics(store)
        try #require(expected.contains("\"records\":\(records)"), "\(expected)")

        let destination = dir.path("backup")
        var random = SeededGenerator(seed: 0xBAC0)
        var killed = 0, attempts = 0, triggered = 0, destinationsAfterKill = 0, partialsSeen = 0, bad = 0
        var longest = 0.05
        while killed < Self.kills, attempts < Self.kills * 6 {
            attempts += 1
            try? FileManager.default.removeItem(atPath: destination)
            // Every other run is killed just after its copy began, the others at any moment.
            let run: (killed: Bool, status: Int32, seconds: Double)
            if attempts % 2 == 0 {
                run = try Self.run(["backup", store, destination], delay: Double.random(in: 0...0.0015, using: &random)) {
                    Self.copyStarted(in: dir.path, of: "backup")
                }
            } else {
                run = try Self.run(["backup", store, destination], delay: Double.random(in: 0.002...longest, using: &random)) { true }
            }
            let exists = FileManager.default.fileExists(atPath: destination)
            if run.killed {
                killed += 1
                if attempts % 2 == 0 { triggered += 1 }
                if exists { destinationsAfterKill += 1 }
            } else {
                #expect(run.status == 0 && exists, "backup exited with status \(run.status) without being killed")
                longest = max(longest, run.seconds)
            }
            let left = Self.partials(in: dir.path, of: "backup")
            partialsSeen += left.count
            for partial in left {
                let inside = (try? FileManager.default.contentsOfDirectory(atPath: dir.path(partial))) ?? []
                // Looked at in a copy: opening the directory itself would add lock files to it.
                var whole = true
                if inside.contains("data.mdb") {
                    let scratch = dir.path("scratch")
                    try? FileManager.default.removeItem(atPath: scratch)
                    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                    try FileManager.default.copyItem(atPath: dir.path(partial) + "/data.mdb", toPath: scratch + "/data.mdb")
                    whole = try Self.statistics(scratch) == expected
                }
                if !whole { bad += 1 }
                #expect(whole,
                        "a kill left \(partial) holding \(inside) that is not a whole store")
            }
            if exists {
                let verify = try StrataCLI.run(["verify", destination])
                #expect(verify.status == 0, "verify of the destination after a backup (killed: \(run.killed)) exited \(verify.status): \(verify.output) \(verify.error)")
                let found = try Self.statistics(destination)
                #expect(found == expected, "the destination after a backup (killed: \(run.killed)) holds \(found), the store \(expected)")
                if verify.status != 0 || found != expected {
                    bad += 1
                    break
                }
            }
        }
        KillRuns.expectCoverage(killed == Self.kills, "only \(killed) of \(attempts) backups were still running when killed")

        // The next backup to the same destination works and clears what the kills left.
        try? FileManager.default.removeItem(atPath: destination)
        let last = try StrataCLI.run(["backup", store, destination])
        #expect(last.status == 0, "\(last.error)")
        #expect(try Self.statistics(destination) == expected)
        #expect(Self.partials(in: dir.path, of: "backup").isEmpty, "left beside the destination: \(Self.partials(in: dir.path, of: "backup"))")
        print("killed backups: \(killed) of \(attempts) backups killed (\(triggered) of them as or just after the copy began); "
              + "\(destinationsAfterKill) left a destination, \(partialsSeen) a partial directory beside it; "
              + "\(bad) destinations or partial directories were not whole")
    }
}
