import ArgumentParser
import Foundation
import StrataToolSupport

/// `strata studio`: runs the program `strata-studio` (``StudioLauncher``) with the arguments
/// given, which serves the web inspector. Declared here with the studio's own arguments
/// (``StrataToolSupport/StudioArguments``) so that `strata --help`, the manual and the
/// completions describe it; `StrataTool.main()` hands `strata studio ...` over before parsing,
/// so `strata studio --help` is the studio's own help.
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio", abstract: StudioArguments.abstract, discussion: StudioArguments.discussion)

    @OptionGroup var arguments: StudioArguments

    func run() throws {
        // Only reached when the parser, not main(), found the subcommand: the words after `studio`, unparsed.
        try StudioLauncher.execute(Array(CommandLine.arguments.drop { $0 != "studio" }.dropFirst()))
    }
}

/// Finds `strata-studio` and replaces this process with it (`execv`): the studio's web server
/// (Hummingbird, SwiftNIO) is linked into that program only, so a one-shot `strata get` does not
/// pay for it at start-up (Benchmarks/Results/2026-11-29-startup-studio.md).
enum StudioLauncher {
    /// The program's file name.
    static let program = "strata-studio"

    /// Where `strata-studio` is looked for, in order: beside the running executable (its
    /// directory `executableDirectory`, when known), then each directory of `path` (`PATH`; an
    /// empty entry is the current directory, as for a shell).
    static func candidates(executableDirectory: String?, path: String?) -> [String] {
        let directories = (executableDirectory.map { [$0] } ?? [])
            + (path ?? "").split(separator: ":", omittingEmptySubsequences: false).map { $0.isEmpty ? "." : String($0) }
        return directories.map { ($0 as NSString).appendingPathComponent(program) }
    }

    /// The directory of the running executable: `/proc/self/exe`'s on Linux.
    static var executableDirectory: String? {
        #if os(Linux)
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (target as NSString).deletingLastPathComponent
        #else
        return Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent().path
        #endif
    }

    /// Runs `strata-studio arguments...` in place of this process; returns only by throwing, when
    /// no such program is found or it cannot be run.
    static func execute(_ arguments: [String]) throws -> Never {
        let directory = executableDirectory
        let path = environmentVariable("PATH")
        let places = candidates(executableDirectory: directory, path: path)
        guard let found = places.first(where: { isExecutableFile($0) }) else {
            throw CommandFailure(message: """
                strata studio runs the program \(program), and there is none beside strata \
                (\(directory.map { ($0 as NSString).appendingPathComponent(program) } ?? "its directory is unknown")) or on PATH (\(path ?? "not set")); \
                build it with `swift build --product \(program)` (it is put beside strata), or install both with tools/install
                """)
        }
        Terminal.flush()
        let argv = ([found] + arguments).map { strdup($0) } + [nil]
        execv(found, argv)
        let reason = String(cString: strerror(errno))
        argv.forEach { free($0) }
        throw CommandFailure(message: "could not run \(found): \(reason)")
    }

    /// Whether `path` is a regular file this process may execute.
    private static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
