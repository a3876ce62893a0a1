import Foundation
import Testing
import TestSupport

/// The `strata` binary killed with SIGKILL by this process at a random moment of a batched import
/// (`--batch-size`: a commit every 400 records), an index build or a delete: afterwards
/// `strata verify` is clean and the store holds exactly a state that a sequence of whole commits
/// explains. For an import, records 1…k·400 of the file (in file order) carry the new version and
/// the others their previous one; for an index build, the index is there or not; for a delete,
/// every matching record is gone or none is.
///
/// `swift test` kills 4 commands; `STRATA_EXTENDED=1` kills 50 (`STRATA_CRASH_KILLS=N` sets it).
@Suite struct KilledCommandTests {
    static let records = 4000
    static let batchSize = 400

    static var kills: Int { KillRuns.count(default: 4, extended: 50) }

    /// The record with `id` as version `version` writes it.
    static func record(_ id: Int, _ version: Int) -> [String: Any] {
        ["id": id, "group": (id * 7 + version) % 13, "name": "name-\(id)-v\(version)",
         "blob": String(repeating: "x", count: id % 97 == 0 ? 5000 : id % 40) + "\(version)"]
    }

    static let schema = #"""
        { "entities": { "Doc": { "primaryKey": "id",
            "fields": { "id": {"type": "int"}, "group": {"type": "int"}, "name": {"type": "string"}, "blob": {"type": "string"} },
            "indexes": [ {"fields": ["group"]} ] } } }
        """#

    /// Runs `strata arguments` and kills it after `delay` seconds unless it exited first; returns
    /// whether it was killed.
    static func run(_ arguments: [String], killAfter delay: Double?) throws -> (killed: Bool, status: Int32, seconds: Double) {
        let run = try StrataCLI.runKilling(arguments, after: delay)
        return (run.killed, run.status, run.seconds)
    }

    /// Every record of Doc as id → (group, name, blob).
    static func export(_ store: String) throws -> [Int: [String: Any]] {
        let result = try StrataCLI.run(["export", store, "Doc", "--format", "jsonl"])
        guard result.status == 0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: result.error]) }
        var records: [Int: [String: Any]] = [:]
        for line in result.output.split(separator: "\n") {
            let object = try #require(try StrataCLI.json(String(line)) as? [String: Any])
            records[try #require(object["id"] as? Int)] = object
        }
        return records
    }

    static func same(_ found: [String: Any]?, _ expected: [String: Any]) -> Bool {
        guard let found else { return false }
        return found["group"] as? Int == expected["group"] as? Int && found["name"] as? String == expected["name"] as? String
            && found["blob"] as? String == expected["blob"] as? String
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func killedImportsIndexBuildsAndDeletesLeaveWholeCommits() throws {
        let dir = try TemporaryDirectory("strata-kill")
        let store = dir.path("store"), schema = dir.path("schema.json")
        try Data(Self.schema.utf8).write(to: URL(fileURLWithPath: schema))
        // The first version, imported whole.
        func writeVersion(_ version: Int) throws -> String {
            let path = dir.path("v\(version).json")
            let objects = (1...Self.records).map { Self.record($0, version) }
            try JSONSerialization.data(withJSONObject: objects).write(to: URL(fileURLWithPath: path))
            return path
        }
        let first = try StrataCLI.run(["import", store, try writeVersion(0), "--entity", "Doc", "--schema", schema])
        try #require(first.status == 0, "\(first.error)")
        var model: [Int: Int] = Dictionary(uniqueKeysWithValues: (1...Self.records).map { ($0, 0) })   // id → version
        var hasNameIndex = false
        var random = SeededGenerator(seed: 0xDEAD)
        var killed = 0, attempts = 0
        var longest: [String: Double] = ["import": 0.3, "index": 0.1, "delete": 0.1]

        while killed < Self.kills, attempts < Self.kills * 6 {
            attempts += 1
            let kind = ["import", "import", "index", "delete"][attempts % 4]
            let delay = Double.random(in: 0.005...max(0.01, longest[kind]!), using: &random)
            let run: (killed: Bool, status: Int32, seconds: Double)
            switch kind {
            case "import":
                let version = attempts
                let file = try writeVersion(version)
                run = try Self.run(["import", store, file, "--entity", "Doc", "--batch-size", "\(Self.batchSize)"], killAfter: delay)
                let found = try Self.export(store)
                // Records 1…k·batchSize carry the new version, for one k; the others are as before.
                let updated = (1...Self.records).prefix { Self.same(found[$0], Self.record($0, version)) }.count
                if run.killed {
                    #expect(updated % Self.batchSize == 0 || updated == Self.records, "\(updated) records updated: not whole batches")
                } else {
                    #expect(run.status == 0 && updated == Self.records)
                }
                for id in 1...Self.records { model[id] = id <= updated ? version : model[id] }
                #expect(found.count == model.count, "import: \(found.count) records, expected \(model.count)")
                for (id, version) in model where !Self.same(found[id], Self.record(id, version)) {
                    Issue.record("import killed after \(delay) s: record \(id) is \(found[id].map { "\($0)" } ?? "missing"), expected version \(version)")
                    break
                }
            case "index":
                let arguments = hasNameIndex ? ["index", "drop", store, "Doc", "name"] : ["index", "add", store, "Doc", "name"]
                run = try Self.run(arguments, killAfter: delay)
                let list = try StrataCLI.run(["index", "list", store, "Doc", "--json"])
                let names = (try StrataCLI.json(list.output) as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
                let present = names.contains("name")
                if !run.killed { #expect(run.status == 0 && present != hasNameIndex) }
                hasNameIndex = present
                #expect(names.contains("group"))
            default:
                let cut = Int.random(in: 1...Self.records, using: &random)
                run = try Self.run(["delete", store, "Doc", "id > \(cut)"], killAfter: delay)
                let found = try Self.export(store)
                let expectedAfter = model.filter { $0.key <= cut }
                if found.count == expectedAfter.count {
                    model = expectedAfter
                } else {
                    #expect(run.killed && found.count == model.count, "delete of id > \(cut): \(found.count) records, expected \(expectedAfter.count) or (killed) \(model.count)")
                }
                #expect(Set(found.keys) == Set(model.keys))
            }
            let verify = try StrataCLI.run(["verify", store])
            #expect(verify.status == 0, "verify after \(kind) (killed: \(run.killed)): \(verify.output) \(verify.error)")
            if verify.status != 0 { return }
            if run.killed { killed += 1 } else { longest[kind] = max(longest[kind]!, run.seconds) }
        }
        KillRuns.expectCoverage(killed == Self.kills, "only \(killed) of \(attempts) commands were still running when killed")
        print("killed commands: \(killed) of \(attempts) commands killed, verify clean after each")
    }
}
