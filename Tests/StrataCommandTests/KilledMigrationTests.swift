import Foundation
import Strata
import Testing
import TestSupport

/// `strata migrate` under SIGKILL: a migration killed at any moment leaves the store exactly as it
/// was before it or exactly as a completed run leaves it (records, index entries, catalog and
/// history), and `strata verify` finds it clean. The kills rotate through four plans: renames
/// (catalog only), a backfill (every record rewritten), a transform (a type change of every
/// record) and an index rebuild (a type change of an indexed field, and a new index).
///
/// `swift test` kills 8 migrations, two of each plan; `STRATA_CRASH_KILLS=N` sets the number
/// (`STRATA_EXTENDED=1`: 80, where at least 5 of each plan must land; see ``KillRuns``).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
struct KilledMigrationTests {
    static let records = 4000

    static var kills: Int { KillRuns.count(default: 8, extended: 80) }

    static let plans: [(name: String, json: String)] = [
        ("rename", #"{"migrations": [{"name": "rename", "steps": [{"op": "renameField", "entity": "Doc", "field": "name", "to": "title"}, {"op": "renameEntity", "entity": "Doc", "to": "Item"}]}]}"#),
        ("backfill", #"{"migrations": [{"name": "backfill", "steps": [{"op": "addField", "entity": "Doc", "field": "score", "type": "int", "default": 7}]}]}"#),
        ("transform", #"{"migrations": [{"name": "transform", "steps": [{"op": "changeType", "entity": "Doc", "field": "note", "type": "int"}]}]}"#),
        ("index", #"{"migrations": [{"name": "index", "steps": [{"op": "changeType", "entity": "Doc", "field": "group", "type": "string"}, {"op": "addIndex", "entity": "Doc", "fields": ["note"]}]}]}"#),
    ]

    let dir: TemporaryDirectory
    var base: String { dir.path("base") }

    init() throws {
        dir = try TemporaryDirectory("strata-killed-migration")
        let input = dir.path("docs.json")
        let objects = (1...Self.records).map { id in ["id": id, "group": id % 13, "name": "doc-\(id)", "note": "\(id * 3)"] as [String: Any] }
        try JSONSerialization.data(withJSONObject: objects).write(to: URL(fileURLWithPath: input))
        let schema = dir.path("schema.json")
        try Data(#"""
            {"entities": {"Doc": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "group": {"type": "int"},
              "name": {"type": "string"}, "note": {"type": "string"}}, "indexes": [{"fields": ["group"]}, {"fields": ["name"]}]}}}
            """#.utf8).write(to: URL(fileURLWithPath: schema))
        let run = try StrataCLI.run(["import", base, input, "--entity", "Doc", "--schema", schema])
        try #require(run.status == 0, "\(run.error)")
    }

    /// Everything a migration may change, as text: each entity's catalog description and index
    /// names, its records as JSON in key order, and the history; and whether the indexes agree.
    static func contents(_ path: String) throws -> (state: [String], indexesClean: Bool) {
        let store = try Store(path: path, configuration: { var c = Store.Configuration(); c.readOnly = true; return c }())
        return try store.read { tx in
            var lines: [String] = []
            var clean = true
            for entity in try tx.entityNames() {
                let description = try tx.entityDescription(named: entity)
                lines.append("\(entity) \(description.fields.map { "\($0.name):\($0.type)" }) \(description.indexes.map(\.fields))")
                try tx.query(entity: entity).forEach { record in lines.append("\(record.key) \(record.jsonObject().jsonText)") }
                clean = try clean && tx.verifyIndexes(entity: entity).isConsistent
            }
            lines += try tx.migrationHistory().map(\.name)
            return (lines, clean)
        }
    }

    @Test func aKilledMigrationLeavesTheStoreExactlyBeforeOrAfterIt() throws {
        let before = try Self.contents(base).state
        var after: [String: [String]] = [:]
        var longest: [String: Double] = [:]
        var planFiles: [String: String] = [:]
        for plan in Self.plans {
            let file = dir.path("\(plan.name).json")
            try Data(plan.json.utf8).write(to: URL(fileURLWithPath: file))
            planFiles[plan.name] = file
            let copy = dir.path("complete-\(plan.name)")
            try FileManager.default.copyItem(atPath: base, toPath: copy)
            let run = try StrataCLI.runKilling(["migrate", copy, file], after: nil)
            try #require(run.status == 0, "the \(plan.name) plan fails unkilled")
            after[plan.name] = try Self.contents(copy).state
            try #require(after[plan.name] != before)
            longest[plan.name] = run.seconds
        }

        var random = SeededGenerator(seed: 0x5EED)
        var killed = 0, attempts = 0
        var killedBefore = 0, killedAfter = 0
        var killedByPlan: [String: Int] = [:]
        while killed < Self.kills, attempts < Self.kills * 6 {
            let plan = Self.plans[attempts % Self.plans.count].name
            attempts += 1
            let copy = dir.path("killed-\(attempts)")   // a new path per run: no environment of another is reused
            try FileManager.default.copyItem(atPath: base, toPath: copy)
            let delay = Double.random(in: 0.002...max(0.01, longest[plan]!), using: &random)
            let run = try StrataCLI.runKilling(["migrate", copy, planFiles[plan]!], after: delay)
            let (state, clean) = try Self.contents(copy)
            #expect(clean, "killed \(plan) after \(delay) s: the indexes disagree with the records")
            let isBefore = state == before, isAfter = state == after[plan]
            #expect(isBefore || isAfter, "killed \(plan) after \(delay) s: the store is neither before nor after the migration")
            let verify = try StrataCLI.run(["verify", copy])
            #expect(verify.status == 0, "killed \(plan) after \(delay) s: verify failed: \(verify.output) \(verify.error)")
            if run.killed {
                killed += 1
                killedByPlan[plan, default: 0] += 1
                if isBefore { killedBefore += 1 } else if isAfter { killedAfter += 1 }
            } else {
                #expect(run.status == 0 && isAfter)
                longest[plan] = max(longest[plan]!, run.seconds)
            }
            try? FileManager.default.removeItem(atPath: copy)
        }
        KillRuns.expectCoverage(killed == Self.kills, "only \(killed) of \(attempts) migrations were still running when killed")
        KillRuns.expectCoverage(Self.plans.allSatisfy { killedByPlan[$0.name, default: 0] >= min(5, Self.kills / Self.plans.count) },
                                "kills by plan: \(killedByPlan)")
        print("killed migrations: \(killed) of \(attempts) killed (\(killedByPlan)); \(killedBefore) left before, \(killedAfter) after; verify clean after each")
    }
}
