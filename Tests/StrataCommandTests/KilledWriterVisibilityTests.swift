import Foundation
import Strata
import Testing
import TestSupport

/// A writer killed inside its commit, after LMDB wrote the commit's meta page and before it
/// published the transaction in the lock file, leaves the commit on disk where new reads do not
/// see it; LMDB repairs the lock file only when the next writer takes its lock. Strata publishes
/// such a commit itself: a follower delivers it, and a store opened afterwards reads it, with no
/// write in between; the next commit then follows it without a gap.
@Suite struct KilledWriterVisibilityTests {
    let dir: TemporaryDirectory
    var primary: String { dir.path("primary") }

    init() throws {
        dir = try TemporaryDirectory("strata-killed-writer")
        try importJSON(#"[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#)
        let enable = try StrataCLI.run(["changelog", primary, "--enable"])
        try #require(enable.status == 0, "\(enable.error)")
        try importJSON(#"[{"id": 3, "name": "Cy"}]"#)
    }

    func importJSON(_ json: String) throws {
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", primary, path, "--entity", "Person"])
        try #require(result.status == 0, "\(result.error)")
    }

    /// The transaction id of the newest meta page and the one a read sees now.
    func transactionIDs() throws -> (meta: Int, visible: Int) {
        var configuration = Store.Configuration()
        configuration.readOnly = true
        let store = try Store(path: primary, configuration: configuration)
        return (store.lastTransactionID, try store.read { tx in tx.snapshotID })
    }

    /// Starts an import of record 7 whose commit's meta page write does not return for a minute,
    /// waits until the meta page shows the commit, and kills the import there.
    func killWriterInsideItsCommit() throws -> Int {
        guard let library = try SlowMetaPage.library(in: dir) else {
            Issue.record("no C compiler to build the slow-meta-page library with")
            return 0
        }
        let before = try transactionIDs()
        try #require(before.meta == before.visible)
        let path = dir.path("seven.json")
        try Data(#"[{"id": 7, "name": "Gil"}]"#.utf8).write(to: URL(fileURLWithPath: path))
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: StrataCLI.binary)
        writer.arguments = ["import", primary, path, "--entity", "Person"]
        writer.environment = ProcessInfo.processInfo.environment.merging(["LD_PRELOAD": library, "STRATA_TEST_META_DELAY_US": "60000000"]) { $1 }
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        let deadline = Date().addingTimeInterval(60)
        var ids = before
        while Date() < deadline, writer.isRunning {
            ids = try transactionIDs()
            if ids.meta > before.meta { break }
            usleep(10_000)
        }
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        try #require(ids.meta == before.meta + 1 && ids.visible == before.visible,
                     "the writer's commit did not stop between its meta page and its publication: \(ids), before \(before)")
        return ids.meta
    }

    @Test func aFollowerDeliversTheKilledWritersLastCommit() throws {
        let output = dir.path("follow.out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: StrataCLI.binary)
        follower.arguments = ["changes", primary, "--follow", "--after", "1"]
        follower.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        follower.standardError = FileHandle.nullDevice
        try follower.run()
        defer { kill(follower.processIdentifier, SIGKILL); follower.waitUntilExit() }
        guard try killWriterInsideItsCommit() > 0 else { return }
        // No write follows: the follower must publish the commit itself.
        let deadline = Date().addingTimeInterval(60)
        var text = ""
        while Date() < deadline {
            text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if text.contains(#""key":7"#) { break }
            usleep(20_000)
        }
        #expect(text.contains(#""key":7"#), "the follower did not deliver the killed writer's commit: \(text)")
        #expect(try transactionIDs().meta == transactionIDs().visible)
    }

    @Test func aStoreOpenedAfterTheKillReadsTheCommitAndTheNextFollowsIt() throws {
        // This process keeps the store open throughout, as a long-running program would: the
        // first process to open a store resets its lock file, which would publish the commit.
        let holder = try Store(path: primary)
        defer { withExtendedLifetime(holder) {} }
        guard try killWriterInsideItsCommit() > 0 else { return }
        let found = try StrataCLI.run(["get", primary, "Person", "7"])
        #expect(found.status == 0 && found.output.contains("Gil"), "\(found.output) \(found.error)")
        try importJSON(#"[{"id": 8, "name": "Hal"}]"#)
        let changes = try StrataCLI.run(["changes", primary])
        let sequences = changes.output.split(separator: "\n").compactMap { line in
            (try? StrataCLI.json(String(line)) as? [String: Any])?["sequence"] as? Int
        }
        #expect(sequences == [1, 2, 3], "\(changes.output)")
    }
}
