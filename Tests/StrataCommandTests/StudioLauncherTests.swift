import Foundation
import Testing
import TestSupport

/// `strata studio ARGS...` is the program `strata-studio ARGS...` (exec'd: the words unchanged,
/// its exit status the command's), found beside `strata`, else on PATH; and `strata` itself links
/// no module of the studio's web server.
@Suite struct StudioLauncherTests {
    let dir: TemporaryDirectory

    init() throws { dir = try TemporaryDirectory("strata-studio-launch") }

    /// A copy of the built `strata` alone in a folder of its own (a hard link where it can be),
    /// so that what lies beside it is what the test puts there.
    func strataAlone(in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let copy = folder + "/strata"
        do { try FileManager.default.linkItem(atPath: StrataCLI.binary, toPath: copy) } catch {
            try FileManager.default.copyItem(atPath: StrataCLI.binary, toPath: copy)
        }
        return copy
    }

    /// A stand-in `strata-studio` in `folder` that prints each argument on a line of its own
    /// (after its name, `marker`) and exits with `status`.
    func fakeStudio(in folder: String, marker: String, status: Int32) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = "#!/bin/sh\necho '\(marker)'\nfor word in \"$@\"; do printf '%s\\n' \"$word\"; done\nexit \(status)\n"
        let path = folder + "/strata-studio"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    /// Runs `executable arguments...` with `PATH` set to `path` and nothing on standard input.
    func run(_ executable: String, _ arguments: [String], path: String) throws -> StrataCLI.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }
        let output = dir.path("run.out"), error = dir.path("run.err")
        FileManager.default.createFile(atPath: output, contents: nil)
        FileManager.default.createFile(atPath: error, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: error))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return StrataCLI.Result(status: process.terminationStatus, output: try String(contentsOfFile: output, encoding: .utf8),
                                error: try String(contentsOfFile: error, encoding: .utf8))
    }

    static let words = ["my store.strata", "--port", "0", "--write", "--timeout", "none", "--help", "", "ünï code", "studio"]

    @Test func theWordsAfterStudioGoUnchangedToTheStrataStudioBesideStrataAndItsStatusIsTheCommands() throws {
        let strata = try strataAlone(in: dir.path("bin"))
        try fakeStudio(in: dir.path("bin"), marker: "beside", status: 7)
        try fakeStudio(in: dir.path("path"), marker: "on PATH", status: 9)
        let result = try run(strata, ["studio"] + Self.words, path: dir.path("path"))
        #expect(result.status == 7, "\(result.error)")
        #expect(result.output == (["beside"] + Self.words).map { $0 + "\n" }.joined())
        #expect(result.error == "")
    }

    @Test func withNoneBesideStrataTheStrataStudioOnPathRuns() throws {
        let strata = try strataAlone(in: dir.path("bin"))
        try FileManager.default.createDirectory(atPath: dir.path("empty"), withIntermediateDirectories: true)
        try fakeStudio(in: dir.path("path"), marker: "on PATH", status: 0)
        let result = try run(strata, ["studio", "a.strata", "--port", "8080"], path: dir.path("empty") + ":" + dir.path("path"))
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "on PATH\na.strata\n--port\n8080\n")
    }

    @Test func withoutStrataStudioTheErrorSaysWhereItLookedAndHowToGetIt() throws {
        let strata = try strataAlone(in: dir.path("bin"))
        try FileManager.default.createDirectory(atPath: dir.path("empty"), withIntermediateDirectories: true)
        // Not executable: not taken.
        try "#!/bin/sh\nexit 0\n".write(toFile: dir.path("empty") + "/strata-studio", atomically: true, encoding: .utf8)
        let result = try run(strata, ["studio", "a.strata"], path: dir.path("empty"))
        #expect(result.status == 1)
        #expect(result.output == "")
        #expect(result.error == """
            error: strata studio runs the program strata-studio, and there is none beside strata \
            (\(dir.path("bin"))/strata-studio) or on PATH (\(dir.path("empty"))); build it with \
            `swift build --product strata-studio` (it is put beside strata), or install both with tools/install

            """)
    }

    @Test func theBuiltStrataStudioAnswersStrataStudio() throws {
        let help = try StrataCLI.run(["studio", "--help"])
        #expect(help.status == 0, "\(help.error)")
        #expect(help.output.contains("USAGE: strata studio <store> [--port <port>] [--write] [--timeout <seconds|none>]"), "\(help.output)")
        #expect(help.output.contains("strata-studio"))
        let missing = try StrataCLI.run(["studio", dir.path("no-such.strata")])
        #expect(missing.status == 1)
        #expect(missing.error.contains("error: no store at"), "\(missing.error)")
        let usage = try StrataCLI.run(["studio", dir.path("no-such.strata"), "--port", "70000"])
        #expect(usage.status == 2)
        #expect(usage.error.contains("--port must be from 0 to 65535 (it is 70000)"), "\(usage.error)")
    }

    /// The symbols of the binary at `path`, one a line, as `nm` prints them.
    func symbols(_ path: String) throws -> String {
        let result = try StrataCLI.bash("nm '\(path)' | cut -c 20-", in: dir.path)
        try #require(result.status == 0, "nm \(path) failed: \(result.error)")
        return result.output
    }

    static let serverModules = ["Hummingbird", "NIOCore", "NIOPosix", "NIOHTTP1", "StrataStudio"]

    @Test func strataLinksNoModuleOfTheStudiosWebServer() throws {
        let strata = try symbols(StrataCLI.binary)
        // The check looks at Swift symbols (module names are in their mangled names) …
        #expect(strata.contains("13StrataCommand"))
        // … and finds the server's where they are linked: in strata-studio.
        let studio = try symbols(URL(fileURLWithPath: StrataCLI.binary).deletingLastPathComponent().appendingPathComponent("strata-studio").path)
        for module in Self.serverModules {
            #expect(studio.contains(module), "strata-studio has no symbol naming \(module)")
            let found = strata.split(separator: "\n").filter { $0.contains(module) }
            #expect(found.isEmpty, "strata links \(found.count) symbols naming \(module), e.g. \(found.prefix(3))")
        }
    }
}
