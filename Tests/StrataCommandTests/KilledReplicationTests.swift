import Foundation
import LMDB
import Strata
import Testing
import TestSupport

/// The change log under SIGKILL: a logging primary killed mid-import holds exactly the changes
/// its log holds (replaying the log onto the store as it was reproduces it), and a replica killed
/// at any moment of `strata replicate -` holds exactly its primary's state at the commit it
/// records, index entries included, and resumes from there to the primary's last commit.
///
/// `swift test` kills 8 replications and 4 imports; `STRATA_CRASH_KILLS=N` sets the
/// replications (`STRATA_EXTENDED=1`: 60 replications and 10 imports; see ``KillRuns``).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
struct KilledReplicationTests {
    static let records = 2000
    static let batchSize = 50

    static var kills: Int { KillRuns.count(default: 8, extended: 60) }
    /// The logging imports killed.
    static var importKills: Int { KillRuns.extended ? 10 : 4 }

    static let schema = #"""
        { "entities": { "Doc": { "primaryKey": "id",
            "fields": { "id": {"type": "int"}, "group": {"type": "int"}, "name": {"type": "string"} },
            "indexes": [ {"fields": ["group"]} ] } } }
        """#

    let dir: TemporaryDirectory
    var primary: String { dir.path("primary") }
    var base: String { dir.path("base") }

    init() throws { dir = try TemporaryDirectory("strata-killed-replication") }

    /// Version `version` of every record, as a file.
    func file(_ version: Int) throws -> String {
        let path = dir.path("v\(version).json")
        let objects = (1...Self.records).map { id in ["id": id, "group": (id * 7 + version) % 13, "name": "doc-\(id)-v\(version)"] as [String: Any] }
        try JSONSerialization.data(withJSONObject: objects).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A primary with version 0 imported, its log on, and a backup of it at `base`.
    func makePrimary() throws {
        let schema = dir.path("schema.json")
        try Data(Self.schema.utf8).write(to: URL(fileURLWithPath: schema))
        let first = try StrataCLI.run(["import", primary, try file(0), "--entity", "Doc", "--schema", schema])
        try #require(first.status == 0, "\(first.error)")
        try #require(try StrataCLI.run(["changelog", primary, "--enable"]).status == 0)
        try #require(try StrataCLI.run(["backup", primary, base]).status == 0)
    }

    /// Every record of every entity as text (key and stored bytes), in key order; and whether the
    /// indexes hold exactly what the records call for.
    static func contents(_ path: String) throws -> (records: [String], indexesClean: Bool) {
        let store = try Store(path: path, configuration: { var c = Store.Configuration(); c.readOnly = true; return c }())
        return try store.read { tx in
            var rows: [String] = []
            try tx.query(entity: "Doc").forEach { record in rows.append("\(record.key) \(record.jsonObject().jsonText)") }
            let clean = try tx.verifyIndexes(entity: "Doc").problems.isEmpty
            return (rows, clean)
        }
    }

    /// The state of `base` with the primary's first `count` logged commits applied, in a scratch copy.
    func expected(after count: UInt64, commits: [LoggedCommit]) throws -> [String] {
        let copy = dir.path("expected-\(count)-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: base, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let store = try Store(path: copy)
        if count > 0 { try store.applyChanges(Array(commits.prefix(Int(count)))) }
        return try Self.contents(copy).records
    }

    @Test func aKilledReplicaHoldsItsPrimaryAtSomeCommitAndResumes() throws {
        try makePrimary()
        for version in 1...2 {
            let run = try StrataCLI.run(["import", primary, try file(version), "--entity", "Doc", "--batch-size", "\(Self.batchSize)"])
            try #require(run.status == 0, "\(run.error)")
        }
        try #require(try StrataCLI.run(["delete", primary, "Doc", "group == 3"]).status == 0)
        let feed = dir.path("feed.jsonl")
        let lines = try StrataCLI.run(["changes", primary])
        try Data(lines.output.utf8).write(to: URL(fileURLWithPath: feed))
        let commits = try Store(path: primary).read { tx in try tx.loggedCommits(after: 0, limit: 100_000) }
        let last = try #require(commits.last?.sequence)
        #expect(last == UInt64(2 * Self.records / Self.batchSize + 1))
        let final = try Self.contents(primary).records

        var generation = 0
        var replica: String { dir.path("replica-\(generation)") }   // a new path per start: no environment of a removed one is reused
        var random = SeededGenerator(seed: 0xFEED)
        var killed = 0, attempts = 0, resumed = 0
        var longest = 0.3
        var expectedByPosition: [UInt64: [String]] = [:]
        while killed < Self.kills, attempts < Self.kills * 6 {
            attempts += 1
            if !FileManager.default.fileExists(atPath: replica) { try FileManager.default.copyItem(atPath: base, toPath: replica) }
            let delay = Double.random(in: 0.005...longest, using: &random)
            let run = try StrataCLI.runKilling(["replicate", "-", replica], input: feed, after: delay)
            let position = try Store(path: replica).replicaPosition() ?? 0
            let (records, clean) = try Self.contents(replica)
            #expect(clean, "the replica's index disagrees with its records at commit \(position)")
            if expectedByPosition[position] == nil { expectedByPosition[position] = try expected(after: position, commits: commits) }
            #expect(records == expectedByPosition[position], "killed after \(delay) s at commit \(position): the replica is not its primary at that commit")
            if run.killed && position < last {
                killed += 1
                if position > 0 { resumed += 1 }
            } else {
                // Not killed, or killed once it had applied the last commit (on its way out).
                #expect((run.status == 0 || run.killed) && position == last, "not killed: status \(run.status), at commit \(position) of \(last)")
                longest = max(longest, run.seconds)
                #expect(records == final)
                generation += 1   // start again from the backup
            }
        }
        KillRuns.expectCoverage(killed == Self.kills, "only \(killed) of \(attempts) replications were still running when killed")
        // The last replica left mid-way resumes to the end.
        if FileManager.default.fileExists(atPath: replica) {
            #expect(try StrataCLI.run(["replicate", primary, replica]).status == 0)
            #expect(try Self.contents(replica).records == final)
        }
        print("killed replications: \(killed) of \(attempts) killed, \(resumed) mid-feed; each replica equal to its primary at its commit, indexes clean")
    }

    @Test func aKilledLoggingImportLogsExactlyWhatItCommitted() throws {
        try makePrimary()
        var random = SeededGenerator(seed: 0xBEEF)
        var killed = 0, attempts = 0
        while killed < Self.importKills, attempts < Self.importKills * 6 {
            attempts += 1
            let delay = Double.random(in: 0.01...0.4, using: &random)
            let run = try StrataCLI.runKilling(["import", primary, try file(attempts), "--entity", "Doc", "--batch-size", "\(Self.batchSize)"],
                                               after: delay)
            if run.killed { killed += 1 }
            // Replaying the whole log onto the store as it was before the log reproduces the primary.
            let commits = try Store(path: primary).read { tx in try tx.loggedCommits(after: 0, limit: 100_000) }
            #expect(try expected(after: UInt64(commits.count), commits: commits) == Self.contents(primary).records,
                    "after import \(attempts) (killed: \(run.killed)) the log and the data disagree")
            #expect(try StrataCLI.run(["verify", primary]).status == 0)
        }
        KillRuns.expectCoverage(killed >= Self.importKills, "only \(killed) of \(attempts) imports were still running when killed")
        print("killed logging imports: \(killed) of \(attempts) killed, the log reproduced the data after each")
    }
}
