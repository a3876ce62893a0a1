import Foundation
import Testing
import TestSupport

/// `strata import STORE -` killed with SIGKILL while it copies standard input or imports it:
/// its temporary directory (`TMPDIR`, one per test) holds no `strata-stdin-*` file afterwards,
/// `strata verify` is clean, and the store holds the previous payload or the new one, whole (the
/// import is one transaction). A full temporary disk (a real 1 MiB tmpfs, as root) fails with a
/// message naming the directory and the reason.
///
/// `swift test` kills 4 imports; `STRATA_EXTENDED=1` kills 30 (`STRATA_CRASH_KILLS=N` sets it).
@Suite struct KilledStdinImportTests {
    static let records = 6000

    static var kills: Int { KillRuns.count(default: 4, extended: 30) }

    static let schema = #"""
        { "entities": { "Doc": { "primaryKey": "id",
            "fields": { "id": {"type": "int"}, "group": {"type": "int"}, "name": {"type": "string"} },
            "indexes": [ {"fields": ["group"]} ] } } }
        """#

    static func payload(version: Int, records: Int = records) -> Data {
        let objects = (1...records).map { id -> [String: Any] in
            ["id": id, "group": (id * 7 + version) % 13, "name": "name-\(id)-v\(version)" + String(repeating: "x", count: id % 50)]
        }
        return try! JSONSerialization.data(withJSONObject: objects)
    }

    /// The `strata-stdin-*` files in `directory`.
    static func spools(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("strata-stdin-") }
    }

    /// Runs `strata arguments` with `input` on standard input and `TMPDIR` set to `temporary`;
    /// kills it after `delay` seconds unless it exited first.
    static func run(_ arguments: [String], input: String, temporary: String, killAfter delay: Double?)
        throws -> (killed: Bool, status: Int32, seconds: Double, error: String) {
        let errorFile = temporary + "/../stderr.txt"
        let run = try StrataCLI.runKilling(arguments, environment: ["TMPDIR": temporary], input: input, errorFile: errorFile, after: delay)
        let error = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        return (run.killed, run.status, run.seconds, error)
    }

    /// The version every record of Doc carries, or nil when they differ or some are missing.
    static func storedVersion(_ store: String) throws -> Int? {
        let result = try StrataCLI.run(["export", store, "Doc", "--format", "jsonl"])
        guard result.status == 0 else { return nil }
        var versions = Set<String>()
        var count = 0
        for line in result.output.split(separator: "\n") {
            let object = try #require(try StrataCLI.json(String(line)) as? [String: Any])
            let name = try #require(object["name"] as? String)
            versions.insert(String(name.split(separator: "-")[2].prefix { $0 != "x" }))
            count += 1
        }
        guard count == records, versions.count == 1, let only = versions.first else { return nil }
        return Int(only.dropFirst())
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func killedStandardInputImportsLeaveNoSpoolFileAndWholeCommits() throws {
        let dir = try TemporaryDirectory("strata-kill-stdin")
        let store = dir.path("store"), schema = dir.path("schema.json"), temporary = dir.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        try Data(Self.schema.utf8).write(to: URL(fileURLWithPath: schema))
        let inputs = [0, 1].map { dir.path("v\($0).json") }
        for (version, path) in inputs.enumerated() { try Self.payload(version: version).write(to: URL(fileURLWithPath: path)) }
        let arguments = ["import", store, "-", "--entity", "Doc", "--schema", schema]
        let first = try Self.run(arguments, input: inputs[0], temporary: temporary, killAfter: nil)
        try #require(first.status == 0, "\(first.error)")
        #expect(Self.spools(in: temporary).isEmpty, "a finished import left \(Self.spools(in: temporary))")
        var version = 0
        var random = SeededGenerator(seed: 0x5707)
        // Kills land anywhere from start-up to the commit: the delays reach the longest whole run.
        var killed = 0, attempts = 0, longest = max(0.05, first.seconds), killedAfterCommit = 0
        while killed < Self.kills, attempts < Self.kills * 6 {
            attempts += 1
            let next = 1 - version
            let delay = Double.random(in: 0.005...longest, using: &random)
            let run = try Self.run(arguments, input: inputs[next], temporary: temporary, killAfter: delay)
            let left = Self.spools(in: temporary)
            #expect(left.isEmpty, "import - killed after \(delay) s (killed: \(run.killed)) left \(left) in TMPDIR")
            let verify = try StrataCLI.run(["verify", store])
            #expect(verify.status == 0, "verify after import - (killed: \(run.killed)): \(verify.output) \(verify.error)")
            let found = try Self.storedVersion(store)
            if run.killed {
                #expect(found == version || found == next, "killed after \(delay) s: the store holds no whole payload")
                if found == next { killedAfterCommit += 1 }
            } else {
                #expect(run.status == 0 && found == next, "import - exited \(run.status): \(run.error)")
            }
            if let found { version = found }
            if !left.isEmpty || verify.status != 0 { return }
            if run.killed { killed += 1 } else { longest = max(longest, run.seconds) }
        }
        KillRuns.expectCoverage(killed == Self.kills, "only \(killed) of \(attempts) imports were still running when killed")
        print("killed stdin imports: \(killed) of \(attempts) imports killed (\(killedAfterCommit) after their commit), no spool file left, verify clean after each")
    }

    @Test(.enabled(if: getuid() == 0, "mounting a full tmpfs needs root"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func aFullTemporaryDiskFailsInStrataWordsNamingTheDirectory() throws {
        let dir = try TemporaryDirectory("strata-full-tmp")
        let temporary = dir.path("tmp"), input = dir.path("input.json")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let mount = try StrataCLI.runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", temporary])
        try #require(mount == 0, "mount -t tmpfs failed")
        defer { _ = try? StrataCLI.runTool("/bin/umount", [temporary]) }
        try Self.payload(version: 0, records: 40_000).write(to: URL(fileURLWithPath: input))   // about 3 times the tmpfs
        let run = try Self.run(["import", dir.path("store"), "-", "--entity", "Doc"], input: input, temporary: temporary, killAfter: nil)
        #expect(run.status != 0)
        #expect(run.error.contains("No space left on device") && run.error.contains(temporary), "\(run.error)")
        #expect(!run.error.contains("NSCocoaErrorDomain") && !run.error.contains("Error Domain"), "\(run.error)")
        #expect(Self.spools(in: temporary).isEmpty, "the failed import left \(Self.spools(in: temporary))")
    }
}

extension StrataCLI {
    /// Runs a system tool and returns its exit status.
    static func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
