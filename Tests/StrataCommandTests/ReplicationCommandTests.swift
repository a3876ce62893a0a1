import Foundation
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

    func importJSON(_ json: String, into store: String? = nil, sync: Bool = false) throws {
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", store ?? primary, path, "--entity", "Person"] + (sync ? ["--sync"] : []))
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

    @Test func followingPrintsCommitsAsTheyArrive() throws {
        let output = dir.path("follow.out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: StrataCLI.binary)
        process.arguments = ["changes", primary, "--follow"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let errors = dir.path("follow.err")
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try importJSON(#"[{"id": 7, "name": "Gil"}]"#)
        let deadline = Date().addingTimeInterval(20)
        var text = ""
        while Date() < deadline {
            text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if text.contains("\"key\":7") { break }
            usleep(20_000)
        }
        #expect(text.contains(#""operation":"insert","key":7"#), "\(text) \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
    }
}
