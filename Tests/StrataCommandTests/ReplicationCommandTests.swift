import Foundation
import Strata
import Testing
import TestSupport

/// `strata changelog`, `changes` and `replicate`: a primary's log carried to a replica by a store
/// path or by lines on a pipe, killed replications resuming, damaged lines refused by number.
@Suite struct ReplicationCommandTests {
    let dir: TemporaryDirectory
    var primary: String { dir.path("primary") }

    init() throws {
        dir = try TemporaryDirectory("strata-replication")
        try importJSON(#"[{"id": 1, "name": "Ann", "city": "Berlin"}, {"id": 2, "name": "Bob"}]"#)   // city: optional
        let enable = try StrataCLI.run(["changelog", primary, "--enable", "--keep-commits", "1000"])
        try #require(enable.status == 0, "\(enable.error)")
        #expect(enable.output.contains("change log: on, keeping the last 1000 commits"), "\(enable.output)")
    }

    func importJSON(_ json: String, into store: String? = nil, sync: Bool = false, environment: [String: String] = [:]) throws {
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store ?? primary, path, "--entity", "Person"] + (sync ? ["--sync"] : []),
                                       environment: environment)
        try #require(result.status == 0, "\(result.error)")
    }

    func exported(_ store: String) throws -> String {
        let result = try StrataCLI.run(["export", store, "Person", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        return result.output
    }

    /// A backup taken once the log is on: where a replica starts.
    func replicaFromBackup() throws -> String {
        let replica = dir.path("replica")
        let backup = try StrataCLI.run(["backup", primary, replica])
        try #require(backup.status == 0, "\(backup.error)")
        return replica
    }

    @Test func changesOnAStoreWithoutALogSayHowToStartOne() throws {
        let unlogged = dir.path("unlogged")
        try importJSON(#"[{"id": 1, "name": "Ann"}]"#, into: unlogged)
        let result = try StrataCLI.run(["changes", unlogged])
        #expect(result.status == 1)
        #expect(result.error.contains("keeps no change log; `strata changelog \(unlogged) --enable` starts one"), "\(result.error)")
        #expect(!result.error.contains("Store.enableChangeLog"), "\(result.error)")
    }

    @Test func changesPrintOneDocumentedLinePerChange() throws {
        try importJSON(#"[{"id": 3, "name": "Cy"}, {"id": 1, "name": "Anne", "city": "Berlin"}]"#)
        let result = try StrataCLI.run(["changes", primary])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map { try? StrataCLI.json(String($0)) as? [String: Any] }
        #expect(lines.count == 2)
        #expect(lines.map { $0?["operation"] as? String } == ["insert", "update"])
        #expect(lines.map { $0?["key"] as? Int } == [3, 1])
        #expect((lines[1]?["record"] as? [String: Any])?["name"] as? String == "Anne")
        #expect(lines.allSatisfy { $0?["sequence"] as? Int == 1 && $0?["changes"] as? Int == 2 })
        #expect(try StrataCLI.run(["changes", primary, "--after", "1"]).output.isEmpty)
        let afterTheLast = try StrataCLI.run(["changes", primary, "--after", "18446744073709551615"])
        #expect(afterTheLast.status == 0 && afterTheLast.output.isEmpty, "\(afterTheLast.error)")
        #expect(try StrataCLI.run(["changes", primary, "--entity", "Nobody"]).output.isEmpty)
    }

    @Test func aReplicaFollowsByStorePathAndByPipe() throws {
        let replica = try replicaFromBackup()
        try importJSON(#"[{"id": 3, "name": "Cy"}]"#)
        try importJSON(#"[{"id": 3, "name": "Cy"}]"#, sync: true)   // deletes 1 and 2
        // By pipe: the lines of `strata changes` on standard input.
        let feed = try StrataCLI.run(["changes", primary])
        let piped = try StrataCLI.run(["replicate", "-", replica], input: Data(feed.output.utf8))
        #expect(piped.status == 0, "\(piped.error)")
        #expect(piped.error.contains("at commit 2"), "\(piped.error)")
        #expect(try exported(replica) == exported(primary))
        // The CBOR form carries the same commits: replayed, it changes nothing either.
        let cbor = try StrataCLI.runBytes(["changes", primary, "--format", "cbor"])
        #expect(cbor.status == 0 && !cbor.output.isEmpty && cbor.output.first != UInt8(ascii: "{"))
        let fromCBOR = try StrataCLI.run(["replicate", "-", replica], input: cbor.output)
        #expect(fromCBOR.status == 0 && fromCBOR.error.contains("at commit 2 (was 2)"), "\(fromCBOR.error)")
        // Replayed, it changes nothing; by store path it goes on from there.
        #expect(try StrataCLI.run(["replicate", "-", replica], input: Data(feed.output.utf8)).status == 0)
        try importJSON(#"[{"id": 4, "name": "Dee"}]"#)
        let byPath = try StrataCLI.run(["replicate", primary, replica])
        #expect(byPath.status == 0 && byPath.error.contains("at commit 3 (was 2)"), "\(byPath.error)")
        #expect(try exported(replica) == exported(primary))
        #expect(try StrataCLI.run(["verify", replica]).status == 0)
        // Programs cannot write to it.
        let path = dir.path("x.json")
        try Data(#"[{"id": 9, "name": "X"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        let write = try StrataCLI.run(["import", replica, path, "--entity", "Person"])
        #expect(write.status == 1 && write.error.contains("is a replica"), "\(write.error)")
        #expect(try StrataCLI.run(["changelog", replica]).output.contains("replica: applied its primary's commits through 3"))
    }

    @Test func aFeedStartingWithAByteOrderMarkIsReadAsJSONLines() throws {
        let replica = try replicaFromBackup()
        try importJSON(#"[{"id": 3, "name": "Cy"}]"#)
        let feed = try StrataCLI.run(["changes", primary])
        let piped = try StrataCLI.run(["replicate", "-", replica], input: Data([0xEF, 0xBB, 0xBF]) + Data(feed.output.utf8))
        #expect(piped.status == 0 && piped.error.contains("at commit 1"), "\(piped.error)")
        #expect(try exported(replica) == exported(primary))
    }

    @Test func aDamagedLineStopsTheReplicaWithItsNumberAtTheLastWholeCommit() throws {
        let replica = try replicaFromBackup()
        try importJSON(#"[{"id": 3, "name": "Cy"}]"#)
        try importJSON(#"[{"id": 4, "name": "Dee"}, {"id": 5, "name": "Eve"}]"#)
        var lines = try StrataCLI.run(["changes", primary]).output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        lines[2] = String(lines[2].prefix(40))
        let result = try StrataCLI.run(["replicate", "-", replica], input: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(result.status == 1)
        #expect(result.error.contains("change feed line 3"), "\(result.error)")
        #expect(try StrataCLI.run(["changelog", replica]).output.contains("through 1"))
        // A feed cut inside a commit is refused too, naming where it ends.
        let cut = try StrataCLI.run(["replicate", "-", replica], input: Data((lines[1] + "\n").utf8))
        #expect(cut.status == 1 && cut.error.contains("ends inside a commit at line 1"), "\(cut.error)")
    }

    /// Starts `strata arguments` (a follower), commits record 7 by `strata import` with
    /// `environment`, and waits up to 20 s for `seen` to find it; returns the follower's output.
    func follow(_ arguments: [String], importing environment: [String: String] = [:],
                until seen: (String) throws -> Bool) throws -> (found: Bool, output: String) {
        let output = dir.path("follow-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: StrataCLI.binary)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let errors = dir.path("follow-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        usleep(200_000)   // the follower has read the log and waits (not required: a head start)
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(#"[{"id": 7, "name": "Gil"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", primary, path, "--entity", "Person"], environment: environment)
        try #require(result.status == 0, "\(result.error)")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try seen((try? String(contentsOfFile: output, encoding: .utf8)) ?? "") { return (true, "") }
            usleep(20_000)
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return (false, "output: \(text) errors: \(error) running: \(process.isRunning)")
    }

    /// An idle `--follow` sleeps until a commit (inotify on the data file) instead of waking every
    /// 2 ms to poll: its threads switch context a few times in three idle seconds, not hundreds.
    @Test func anIdleFollowerSleeps() throws {
        for arguments in [["changes", primary, "--follow"], ["replicate", primary, try replicaFromBackup(), "--follow"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: StrataCLI.binary)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            /// Voluntary context switches of all the process's threads.
            func switches() throws -> Int {
                let tasks = "/proc/\(process.processIdentifier)/task"
                return try FileManager.default.contentsOfDirectory(atPath: tasks).reduce(0) { sum, task in
                    let status = (try? String(contentsOfFile: "\(tasks)/\(task)/status", encoding: .utf8)) ?? ""
                    let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
                    return sum + (line.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0)
                }
            }
            sleep(1)   // started and caught up
            let before = try switches()
            sleep(3)
            let idle = try switches() - before
            #expect(process.isRunning && idle < 60, "strata \(arguments[0]) --follow switched context \(idle) times in 3 idle seconds")
        }
    }

    @Test func followingPrintsCommitsAsTheyArrive() throws {
        let result = try follow(["changes", primary, "--follow"]) { $0.contains(#""operation":"insert","key":7"#) }
        #expect(result.found, "\(result.output)")
    }

    /// Before, the followers took the id to wait on from the meta page before their read: a read
    /// begun while the commit's meta page was being synced saw the old snapshot, and they then
    /// waited for a commit after the one they had missed (CI's disk made the window wide enough).
    @Test func followersSeeACommitWhoseMetaPageIsStillBeingSynced() throws {
        guard let library = try SlowMetaPage.library(in: dir) else {
            Issue.record("no C compiler (cc, clang or gcc) to build the slow-meta-page library with")
            return
        }
        let slow = ["LD_PRELOAD": library]
        let changes = try follow(["changes", primary, "--follow"], importing: slow) { $0.contains(#""key":7"#) }
        #expect(changes.found, "strata changes --follow: \(changes.output)")
        let replica = try replicaFromBackup()
        let replicate = try follow(["replicate", primary, replica, "--follow"], importing: slow) { _ in
            try Store(path: replica, configuration: { var c = Store.Configuration(); c.readOnly = true; return c }())
                .read { tx in try tx.query(entity: "Person").count() } == 3
        }
        #expect(replicate.found, "strata replicate --follow: \(replicate.output)")
    }

    /// As above, for the library's followers, which hear of other processes' commits by polling.
    /// Async, so that waiting frees its thread for the feed and the observation it waits for; the
    /// wait is long because the tests that block both of the pool's threads for minutes (the kill
    /// runs) can keep them from running: a follower that missed the commit never delivers it.
    @Test func theLibrarysFollowersSeeACommitWhoseMetaPageIsStillBeingSynced() async throws {
        guard let library = try SlowMetaPage.library(in: dir) else {
            Issue.record("no C compiler (cc, clang or gcc) to build the slow-meta-page library with")
            return
        }
        let slow = ["LD_PRELOAD": library]
        let store = try Store(path: primary)
        let start = try await store.read { tx in try tx.loggedCommits(after: 0, limit: 100_000).last?.sequence ?? 0 }
        let feed = Task { () -> Bool in
            for try await _ in store.changes(after: start) { return true }
            return false
        }
        try await Task.sleep(for: .milliseconds(200))
        try importJSON(#"[{"id": 8, "name": "Hal"}]"#, environment: slow)
        #expect(try await Self.value(of: feed, within: 180), "Store.changes(after:) did not deliver a commit of another process")

        let counts = store.observe(entities: ["Person"]) { tx in try tx.query(entity: "Person").count() }
        let observer = Task { () -> Bool in
            for try await count in counts where count == 4 { return true }
            return false
        }
        try await Task.sleep(for: .milliseconds(300))
        try importJSON(#"[{"id": 9, "name": "Ida"}]"#, environment: slow)
        #expect(try await Self.value(of: observer, within: 180), "an observation did not see a commit of another process")
    }

    /// `task`'s value, or false when it has none within `seconds` (the task is then cancelled).
    static func value(of task: Task<Bool, any Error>, within seconds: Double) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await task.value }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                task.cancel()
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            task.cancel()
            return first
        }
    }
}
