import Foundation
import Testing
import TestSupport

/// Every command that only reads a store opens it read-only by itself (and takes `--read-only`):
/// it works on a store the user may read but not write (another user's, made read-only with
/// `chmod -R a-w`) and on read-only media, and creates no file in the store's directory (no
/// `writer.lock`, no `lock.mdb`). They used to fail with `the store directory … is not writable;
/// open it with readOnly`, an option the tool did not have.
@Suite struct UnwritableStoreCommandTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory("strata-unwritable")
        // Another user runs the commands: it must reach the store and the files beside it.
        #expect(chmod(dir.path, 0o755) == 0)
    }

    /// Where the store cannot be written.
    enum Setting: String, CaseIterable, CustomTestStringConvertible {
        case anotherUsersReadOnlyStore, readOnlyMedia
        var testDescription: String { rawValue }
    }

    /// The read commands, `STORE` for the store's path, `DEST` for a new directory the user may
    /// create, `FILE` for a schema file.
    static let commands: [[String]] = [
        ["query", "STORE", "User"], ["query", "STORE", "User", "--count"],
        ["query", "STORE", "User", "luckyNumber > 1", "--read-only", "--format", "jsonl"],
        ["explain", "STORE", "User", "id == 2"], ["explain", "STORE", "User", "id == 2", "--analyze"],
        ["get", "STORE", "User", "2"], ["get", "STORE", "User", "2", "--read-only"],
        ["export", "STORE", "User", "--json-keys"], ["export", "STORE", "User", "--format", "csv", "--read-only"],
        ["schema", "STORE"], ["schema", "STORE", "--history"], ["schema", "diff", "STORE", "FILE"],
        ["stats", "STORE"], ["verify", "STORE", "--read-only"], ["index", "list", "STORE", "User"],
        ["changes", "STORE"], ["changelog", "STORE"], ["backup", "STORE", "DEST"],
    ]

    /// The store's entries with their sizes.
    static func listing(_ path: String) throws -> [String: Int] {
        var entries: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            entries[name] = (try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int) ?? -1
        }
        return entries
    }

    /// Runs `strata arguments` as `uid` (unchanged when nil).
    static func run(_ arguments: [String], as user: passwd?) throws -> StrataCLI.Result {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid", "\(user.pw_uid)", "--regid", "\(user.pw_gid)", "--clear-groups", StrataCLI.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: StrataCLI.binary)
            process.arguments = arguments
        }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return StrataCLI.Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                                error: String(decoding: errorData, as: UTF8.self))
    }

    static let available = OtherUser.uid != nil && ReadOnlyMount.available
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test(.enabled(if: available, "needs root: a second user (useradd, setpriv) and a tmpfs mounted read-only"),
          arguments: Setting.allCases)
    func readCommandsReadAnUnwritableStoreAndCreateNothingInIt(_ setting: Setting) throws {
        let mount = setting == .readOnlyMedia ? try ReadOnlyMount() : nil
        defer { mount?.unmount() }
        let store = (mount?.path ?? dir.path) + "/store"
        let users = dir.path("users.json")
        try Data(#"[{"id": 1, "name": "Ann", "lucky_number": 1}, {"id": 2, "name": "Bob", "lucky_number": 7}]"#.utf8)
            .write(to: URL(fileURLWithPath: users))
        try #require(try StrataCLI.run(["import", store, users, "--entity", "User"]).status == 0)
        try #require(try StrataCLI.run(["changelog", store, "--enable"]).status == 0)
        try Data(#"[{"id": 3, "name": "Cyd", "lucky_number": 3}]"#.utf8).write(to: URL(fileURLWithPath: users))
        try #require(try StrataCLI.run(["import", store, users, "--entity", "User"]).status == 0)
        let schema = dir.path("schema.json")
        try Data(try StrataCLI.run(["schema", store]).output.utf8).write(to: URL(fileURLWithPath: schema))
        #expect(chmod(schema, 0o644) == 0)
        // The backups go where the user may write.
        let out = dir.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        var user: passwd?
        switch setting {
        case .anotherUsersReadOnlyStore:
            user = getpwnam(OtherUser.name)?.pointee
            try OtherUser.give(out)
            #expect(try Self.runShell(["chmod", "-R", "a+rX,a-w", store]) == 0)
        case .readOnlyMedia:
            try mount?.remount(readOnly: true)
        }
        let before = try Self.listing(store)
        for (number, command) in Self.commands.enumerated() {
            let arguments = command.map { $0 == "STORE" ? store : $0 == "DEST" ? "\(out)/backup\(number)" : $0 == "FILE" ? schema : $0 }
            let result = try Self.run(arguments, as: user)
            #expect(result.status == 0, "\(setting): strata \(arguments.joined(separator: " ")): \(result.error)")
            #expect(!result.error.contains("not writable"), "\(result.error)")
        }
        let query = try Self.run(["query", store, "User", "--format", "jsonl", "--fields", "name"], as: user)
        #expect(query.output == #"{"name":"Ann"}"# + "\n" + #"{"name":"Bob"}"# + "\n" + #"{"name":"Cyd"}"# + "\n", "\(query.error)")
        #expect(try Self.listing(store) == before, "\(setting): the commands changed the store's directory")
        #expect(before.keys.sorted() == ["data.mdb", "lock.mdb", "writer.lock"])
        #expect(try Self.runShell(["chmod", "-R", "u+w", store]) == 0 || setting == .readOnlyMedia)
    }

    @Test(.enabled(if: OtherUser.uid != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root: a second user (useradd, setpriv)"))
    func aStoreThisUserMayNotReadIsNamedAsSuchNotAsMissing() throws {
        let users = dir.path("users.json")
        try Data(#"[{"id": 1}]"#.utf8).write(to: URL(fileURLWithPath: users))
        let store = dir.path("private")
        try #require(try StrataCLI.run(["import", store, users, "--entity", "User"]).status == 0)
        #expect(chmod(store, 0o700) == 0)
        let user = getpwnam(OtherUser.name)?.pointee
        for arguments in [["query", store, "User"], ["stats", store]] {
            let result = try Self.run(arguments, as: user)
            #expect(result.status == 1)
            #expect(result.error.contains("cannot be read by this user") && !result.error.contains("no store at"), "\(result.error)")
        }
        let missing = try Self.run(["query", dir.path("nothing"), "User"], as: user)
        #expect(missing.error.contains("no store at"), "\(missing.error)")
    }

    @Test func commandsThatWriteDoNotTakeReadOnly() throws {
        let users = dir.path("users.json")
        try Data(#"[{"id": 1}]"#.utf8).write(to: URL(fileURLWithPath: users))
        let store = dir.path("store")
        for arguments in [["import", store, users, "--entity", "User", "--read-only"], ["delete", store, "User", "--key", "1", "--read-only"],
                          ["index", "add", store, "User", "id", "--read-only"]] {
            let result = try StrataCLI.run(arguments)
            #expect(result.status != 0)
            #expect(result.error.contains("--read-only"), "\(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    static func runShell(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
