import Foundation
import Strata
import Testing
import TestSupport

/// `strata replicate` follows one store and one run of its log (issue 29): a source replaced by
/// another store, restored from an older backup or with its log restarted is refused with a
/// non-zero exit naming what differs; a replica of a store whose records predate its log is
/// seeded from a copy, and one made from a backup taken before the log is refused.
@Suite struct ReplicaSourceCommandTests {
    let dir: TemporaryDirectory
    var primary: String { dir.path("primary") }
    var replica: String { dir.path("replica") }

    init() throws {
        dir = try TemporaryDirectory("strata-replica-source")
        try importJSON((1...30).map { #"{"id": \#($0), "name": "N\#($0)"}"# })   // records before the log
        try run(["changelog", primary, "--enable"])
        try importJSON([#"{"id": 31, "name": "N31"}"#])
    }

    func importJSON(_ rows: [String], into store: String? = nil) throws {
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(("[" + rows.joined(separator: ",") + "]").utf8).write(to: URL(fileURLWithPath: path))
        try run(["import", store ?? primary, path, "--entity", "Person"])
    }

    @discardableResult
    func run(_ arguments: [String], input: Data? = nil) throws -> StrataCLI.Result {
        let result = try StrataCLI.run(arguments, input: input)
        try #require(result.status == 0, "strata \(arguments.joined(separator: " ")): \(result.error)")
        return result
    }

    func exported(_ store: String) throws -> String {
        try run(["export", store, "Person", "--format", "jsonl"]).output
    }

    /// Moves `store` away and `other` to its path.
    func replace(_ store: String, with other: String) throws {
        try FileManager.default.moveItem(atPath: store, toPath: store + "-old-\(UUID().uuidString)")
        try FileManager.default.moveItem(atPath: other, toPath: store)
    }

    @Test func aReplicaIntoAnEmptyDirectoryIsSeededWithTheRecordsThatPredateTheLog() throws {
        let seeded = try run(["replicate", primary, replica])
        #expect(seeded.error.contains("seeded from a copy"), "\(seeded.error)")
        try importJSON([#"{"id": 32, "name": "N32"}"#])
        try run(["replicate", primary, replica])
        #expect(try exported(replica) == exported(primary))
        #expect(try exported(replica).split(separator: "\n").count == 32)
        try run(["verify", replica])
    }

    @Test func aReplicaFromABackupTakenBeforeTheLogIsRefusedNamingTheGap() throws {
        let store = dir.path("late")
        try importJSON((1...30).map { #"{"id": \#($0), "name": "N\#($0)"}"# }, into: store)
        try run(["backup", store, replica])   // before the log
        try run(["changelog", store, "--enable"])
        try importJSON([#"{"id": 31, "name": "N31"}"#], into: store)
        let refused = try StrataCLI.run(["replicate", store, replica])
        #expect(refused.status != 0 && refused.error.contains("already held records"), "\(refused.error)")
        // And into an empty store, by feed: the feed does not hold the records either.
        let feed = try run(["changes", store]).output
        let empty = try StrataCLI.run(["replicate", "-", dir.path("empty")], input: Data(feed.utf8))
        #expect(empty.status != 0 && empty.error.contains("already held records"), "\(empty.error)")
    }

    /// A replica made the way earlier versions made them: a backup taken with the log on.
    func replicaFromBackup() throws {
        try run(["backup", primary, replica])
        try run(["replicate", primary, replica])
    }

    @Test func aSourceReplacedByAnotherStoreIsRefused() throws {
        try replicaFromBackup()
        let other = dir.path("other")
        try importJSON([#"{"id": 1, "name": "X"}"#], into: other)
        try run(["changelog", other, "--enable"])
        for id in 2...6 { try importJSON([#"{"id": \#(id), "name": "X"}"#], into: other) }
        let feed = try run(["changes", other]).output
        try replace(primary, with: other)
        let before = try exported(replica)
        let refused = try StrataCLI.run(["replicate", primary, replica])
        #expect(refused.status != 0 && refused.error.contains("it is another store"), "\(refused.error)")
        let piped = try StrataCLI.run(["replicate", "-", replica], input: Data(feed.utf8))
        #expect(piped.status != 0 && piped.error.contains("it is another store") && piped.error.contains("line 1"), "\(piped.error)")
        #expect(try exported(replica) == before)
    }

    @Test func aSourceRestoredFromAnOlderBackupAndWrittenAgainIsRefused() throws {
        try replicaFromBackup()
        let backup = dir.path("backup")
        try run(["backup", primary, backup])
        try importJSON([#"{"id": 40, "name": "A"}"#])
        try importJSON([#"{"id": 41, "name": "B"}"#])
        try run(["replicate", primary, replica])
        try replace(primary, with: backup)
        try importJSON([#"{"id": 50, "name": "C"}"#])
        let behind = try StrataCLI.run(["replicate", primary, replica])
        #expect(behind.status != 0 && behind.error.contains("restored from an older backup"), "\(behind.error)")
        try importJSON([#"{"id": 51, "name": "D"}"#])
        try importJSON([#"{"id": 52, "name": "E"}"#])
        let differs = try StrataCLI.run(["replicate", primary, replica])
        #expect(differs.status != 0 && differs.error.contains("history changed"), "\(differs.error)")
        #expect(!(try exported(replica).contains("\"C\"")))
    }

    @Test func aSourceWhoseLogWasRestartedIsRefused() throws {
        try replicaFromBackup()
        try run(["changelog", primary, "--disable"])
        try run(["changelog", primary, "--enable"])
        try importJSON([#"{"id": 10, "name": "changed"}"#])
        let refused = try StrataCLI.run(["replicate", primary, replica])
        #expect(refused.status != 0 && refused.error.contains("restarted"), "\(refused.error)")
        #expect(try exported(replica).contains(#""N10""#))
    }
}
