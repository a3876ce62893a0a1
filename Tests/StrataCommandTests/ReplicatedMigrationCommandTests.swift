import Foundation
import Strata
import Testing
import TestSupport

/// A program's record that takes the name `Member` in the commit that renames `Member` away.
private struct NewMember: Record {
    static let entityName = "Member"
    var handle: String
    var since: Int
    static let primaryKey = \NewMember.handle
}

/// `strata replicate --follow` keeps running while its primary migrates: an entity renamed and
/// its old name taken by a new entity, in the same commit or the next, arrive on the replica as
/// on the primary.
@Suite struct ReplicatedMigrationCommandTests {
    let dir: TemporaryDirectory
    var primary: String { dir.path("primary") }
    var replica: String { dir.path("replica") }

    init() throws {
        dir = try TemporaryDirectory("strata-replicated-migration")
        try importJSON(#"[{"id": 1, "name": "Ann", "age": "31"}, {"id": 2, "name": "Bob", "age": "42"}]"#, entity: "Person")
        let enable = try StrataCLI.run(["changelog", primary, "--enable"])
        try #require(enable.status == 0, "\(enable.error)")
    }

    func importJSON(_ json: String, entity: String) throws {
        let path = dir.path("in-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try StrataCLI.run(["import", primary, path, "--entity", entity])
        try #require(result.status == 0, "\(result.error)")
    }

    func exported(_ store: String, _ entity: String) throws -> String {
        let result = try StrataCLI.run(["export", store, entity, "--format", "jsonl"])
        #expect(result.status == 0, "\(store) \(entity): \(result.error)")
        return result.output
    }

    func entities(_ store: String) throws -> [String] {
        let result = try StrataCLI.run(["schema", store, "--read-only"])
        let entities = (try? StrataCLI.json(result.output) as? [String: Any])?["entities"] as? [String: Any]
        return (entities ?? [:]).keys.sorted()
    }

    @Test func aFollowingReplicaTakesRenamesAndReusedNames() throws {
        let seeded = try StrataCLI.run(["replicate", primary, replica])
        try #require(seeded.status == 0, "\(seeded.error)")
        let errors = dir.path("follow.err")
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: StrataCLI.binary)
        follower.arguments = ["replicate", primary, replica, "--follow"]
        follower.standardOutput = FileHandle.nullDevice
        follower.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try follower.run()
        defer { kill(follower.processIdentifier, SIGKILL); follower.waitUntilExit() }

        let plan = dir.path("plan.json")
        try Data("""
            {"migrations": [{"name": "people are members", "steps": [
              {"op": "renameEntity", "entity": "Person", "to": "Member"},
              {"op": "renameField", "entity": "Member", "field": "name", "to": "fullName"},
              {"op": "changeType", "entity": "Member", "field": "age", "type": "int"},
              {"op": "addIndex", "entity": "Member", "fields": ["fullName"]}
            ]}]}
            """.utf8).write(to: URL(fileURLWithPath: plan))
        let migrated = try StrataCLI.run(["migrate", primary, plan])
        try #require(migrated.status == 0, "\(migrated.error)")
        try importJSON(#"[{"id": 9, "title": "a new person"}]"#, entity: "Person")   // the old name again
        try importJSON(#"[{"id": 3, "name": "Cy", "age": 5}]"#, entity: "Member")   // the JSON key stays "name"
        // A program's next migration renames Member away and takes its name for a new entity, in one commit.
        var migrator = try MigrationPlan(json: Data(contentsOf: URL(fileURLWithPath: plan))).migrator
        migrator.registerMigration("members are former") { tx in
            try tx.renameEntity("Member", to: "Former")
            try tx.insert(NewMember(handle: "@new", since: 2026))
        }
        var configuration = Store.Configuration()
        configuration.migrator = migrator
        let store = try Store(path: primary, configuration: configuration)   // runs the migrations it lacks
        #expect(try store.migrationHistory().last?.name == "members are former")

        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, follower.isRunning, try entities(replica) != ["Former", "Member", "Person"] || exported(replica, "Former").split(separator: "\n").count != 3 {
            usleep(50_000)
        }
        #expect(follower.isRunning, "the follower stopped: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        #expect(try entities(replica) == entities(primary))
        for entity in ["Former", "Member", "Person"] {
            #expect(try exported(replica, entity) == exported(primary, entity), "\(entity)")
        }
        let verify = try StrataCLI.run(["verify", replica])
        #expect(verify.status == 0, "\(verify.output) \(verify.error)")
        let indexes = try StrataCLI.run(["index", "list", replica, "Former"])
        let primaryIndexes = try StrataCLI.run(["index", "list", primary, "Former"])
        #expect(indexes.output.contains("fullName") && indexes.output == primaryIndexes.output,
                "\(indexes.output) \(indexes.error)")
    }
}
