import Foundation
import Testing
import TestSupport

/// `tools/install` puts the binaries (`strata`, `strata-studio`), the generated man page and the bash, zsh and fish completions
/// under a prefix; `tools/check-static-binary` refuses a binary that needs Swift's libraries (CI
/// runs it on the release build, which must pass).
@Suite struct InstallTests {
    let dir: TemporaryDirectory
    var prefix: String { dir.path("prefix") }
    static var tools: String { ReleaseTests.root.appendingPathComponent("tools").path }

    init() throws { dir = try TemporaryDirectory("strata-install") }

    /// Installs the tool this test run built (`$STRATA`) under `prefix`.
    func install() throws -> StrataCLI.Result {
        try StrataCLI.bash("'\(Self.tools)/install' --prefix '\(prefix)' --strata \"$STRATA\"", in: dir.path)
    }

    func contents(_ path: String) throws -> String {
        try String(contentsOfFile: prefix + "/" + path, encoding: .utf8)
    }

    @Test func installPutsTheBinaryTheManPageAndTheCompletionsUnderThePrefix() throws {
        let installed = try install()
        try #require(installed.status == 0, "tools/install failed: \(installed.error)")
        let files = ["bin/strata", "bin/strata-studio", "share/man/man1/strata.1", "share/bash-completion/completions/strata",
                     "share/zsh/site-functions/_strata", "share/fish/vendor_completions.d/strata.fish"]
        #expect(installed.output == files.map { "installed \(prefix)/\($0)\n" }.joined())
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/strata"))
        let version = try StrataCLI.bash("'\(prefix)/bin/strata' --version", in: dir.path)
        #expect(version.output == (try ReleaseTests.version()) + "\n")
        // `strata studio` finds the strata-studio installed beside it.
        let studio = try StrataCLI.bash("PATH=/nonexistent '\(prefix)/bin/strata' studio --help", in: dir.path)
        #expect(studio.status == 0, "\(studio.error)")
        #expect(studio.output.contains("USAGE: strata studio <store>"), "\(studio.output)")

        // The completions are the tool's own, and know the subcommands.
        for file in files.dropFirst(3) {
            let script = try contents(file)
            for command in ["import", "query", "explain", "replicate", "changelog", "migrate"] {
                #expect(script.contains(command), "\(file) does not mention \(command)")
            }
        }
        #expect(try contents(files[4]).hasPrefix("#compdef strata"))
        #expect(try contents(files[5]).contains("complete -c 'strata'"))
    }

    @Test func theManPageIsReadByManAndShowsEveryCommand() throws {
        try #require(try install().status == 0)
        let page = prefix + "/share/man/man1/strata.1"
        let shown = try StrataCLI.bash("MANWIDTH=100 man --nj --nh --warnings -P cat -l '\(page)'", in: dir.path)
        #expect(shown.status == 0, "man -l failed: \(shown.error)")
        #expect(shown.error.isEmpty, "groff warned: \(shown.error)")
        let text = shown.output
        #expect(text.contains("strata - Import JSON into a Strata store"))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "SEE ALSO"] {
            #expect(text.contains("\n" + section + "\n"), "no \(section) section")
        }
        // A subsection per command, nested ones by their whole path, with their options.
        let help = try StrataCLI.run(["--experimental-dump-help"])
        let tree = try #require(try StrataCLI.json(help.output) as? [String: Any])
        let command = try #require(tree["command"] as? [String: Any])
        for sub in (command["subcommands"] as? [[String: Any]] ?? []) {
            let name = try #require(sub["commandName"] as? String)
            guard name != "help" else { continue }
            #expect(text.contains("   strata \(name)\n"), "no subsection for strata \(name)")
        }
        #expect(text.contains("   strata index add\n"))
        #expect(text.contains("--primary-key <field>"))
        #expect(text.contains("Exit status: 0 success, 1 the work failed, 2 usage error."))
    }

    @Test func theStaticCheckRefusesABinaryThatNeedsSwiftLibraries() throws {
        // The tool the tests run is a debug build, linked to the Swift runtime's shared libraries.
        let checked = try StrataCLI.bash("'\(Self.tools)/check-static-binary' --strata \"$STRATA\"", in: dir.path)
        #expect(checked.status == 1)
        #expect(checked.error.contains("needs libraries of the Swift toolchain"), "\(checked.error)")
        #expect(checked.error.contains("libswiftCore.so"), "\(checked.error)")
    }
}
