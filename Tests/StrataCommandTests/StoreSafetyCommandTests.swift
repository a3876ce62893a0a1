import Foundation
import Testing
import TestSupport

/// The `strata` binary on stores it must not trust or cannot wait for: store files replaced by
/// symbolic links, a backup under a permissive umask, another program holding LMDB's writer lock.
@Suite struct StoreSafetyCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws {
        dir = try TemporaryDirectory("strata-safety")
    }

    func importedStore() throws {
        let input = dir.path("users.json")
        try Data(#"[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#.utf8).write(to: URL(fileURLWithPath: input))
        let result = try StrataCLI.run(["import", store, input, "--entity", "User"])
        try #require(result.status == 0, "\(result.error)")
    }

    /// Runs `command` to its end with `environment` added, returning its status and standard error.
    static func run(_ command: [String], environment: [String: String] = [:]) throws -> (status: Int32, error: String, seconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let error = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        let start = Date()
        try process.run()
        let data = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), Date().timeIntervalSince(start))
    }

    /// `strata verify` with `lock.mdb` linked to another file refused the store instead of
    /// writing LMDB's lock table over that file; `strata stats` with a dangling `writer.lock`
    /// link refuses too, instead of creating the file the link names.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func linkedStoreFilesAreRefused() throws {
        try importedStore()
        let victim = dir.path("victim"), elsewhere = dir.path("elsewhere")
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: store + "/lock.mdb")
        try FileManager.default.createSymbolicLink(atPath: store + "/lock.mdb", withDestinationPath: victim)
        let verify = try StrataCLI.run(["verify", store])
        #expect(verify.status == 1)
        #expect(verify.error.contains("error: the store file \(store)/lock.mdb is a symbolic link"), "\(verify.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("precious\n".utf8))

        try FileManager.default.removeItem(atPath: store + "/lock.mdb")
        try FileManager.default.removeItem(atPath: store + "/writer.lock")
        try FileManager.default.createSymbolicLink(atPath: store + "/writer.lock", withDestinationPath: elsewhere + "/writer.lock")
        let stats = try StrataCLI.run(["stats", store])
        #expect(stats.status == 1)
        #expect(stats.error.contains("\(store)/writer.lock is a symbolic link"), "\(stats.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

        try FileManager.default.removeItem(atPath: store + "/writer.lock")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    /// A backup made under umask 000 into an existing 0755 directory is as private as the store
    /// (0700 directory, 0600 data file); it used to be 0755 and 0666.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
    func backupsKeepTheStoresModesUnderAnyUmask() throws {
        try importedStore()
        let copy = dir.path("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let result = try Self.run(["/bin/sh", "-c", #"umask 000 && exec "$0" "$@""#, StrataCLI.binary, "backup", store, copy])
        #expect(result.status == 0, "\(result.error)")
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        let directoryMode = try mode(copy), fileMode = try mode(copy + "/data.mdb")
        #expect(directoryMode == 0o700, "backup directory \(String(directoryMode, radix: 8))")
        #expect(fileMode == 0o600, "backup data.mdb \(String(fileMode, radix: 8))")
    }

    /// While another program (Python's `lmdb`) holds a write transaction, `strata import` waits
    /// for it, and says why on standard error once its write-lock timeout has passed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary) && Python.hasModules(["lmdb"]),
                   "needs the strata binary next to the tests and python3 with its lmdb module"))
    func anImportWaitingForAnotherProgramsWriterSaysSo() throws {
        try importedStore()
        let input = dir.path("more.json")
        try Data(#"[{"id": 3, "name": "Cy"}]"#.utf8).write(to: URL(fileURLWithPath: input))
        let script = """
            import lmdb, sys, time
            env = lmdb.open(sys.argv[1], max_dbs=1024, map_size=1 << 30, create=False)
            txn = env.begin(write=True)
            print("holding", flush=True)
            time.sleep(2.5)
            txn.abort()
            """
        let python = try Python.start(script, arguments: [store])
        defer { python.terminate() }
        try python.waitForLine("holding")
        let result = try Self.run([StrataCLI.binary, "import", store, input, "--entity", "User"], environment: ["STRATA_WRITE_LOCK_TIMEOUT": "0.5"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.seconds > 1.5, "the import did not wait for the other program (\(result.seconds) s)")
        #expect(result.error.contains("warning: waiting for LMDB's writer lock on ") && result.error.contains("another program (not Strata) holds a write transaction"),
                "\(result.error)")
    }
}
