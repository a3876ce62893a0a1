import Foundation
import Testing
import TestSupport

/// Commands that read, inspect or copy a store never create one: a mistyped path is an error
/// (exit status 1, `no store at PATH`) and leaves nothing behind, not an empty store reported as fine.
@Suite struct ReadOnlyCommandTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory("strata-missing") }

    static let commands: [[String]] = [
        ["query", "STORE", "User"], ["explain", "STORE", "User"], ["get", "STORE", "User", "1"],
        ["export", "STORE", "User"], ["schema", "STORE"], ["stats", "STORE"], ["verify", "STORE"],
        ["index", "list", "STORE", "User"], ["index", "add", "STORE", "User", "name"],
        ["index", "drop", "STORE", "User", "name"], ["delete", "STORE", "User", "--key", "1"],
        ["backup", "STORE", "DEST"],
    ]

    @Test(arguments: commands)
    func aCommandOnAMissingStoreFailsAndCreatesNothing(_ arguments: [String]) throws {
        let missing = dir.path("typo/w.strata")
        let destination = dir.path("backup")
        let resolved = arguments.map { $0 == "STORE" ? missing : $0 == "DEST" ? destination : $0 }
        let result = try StrataCLI.run(resolved)
        #expect(result.status == 1, "\(resolved): \(result.output) \(result.error)")
        #expect(result.error.contains("no store at \(missing)"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("typo")), "\(arguments[0]) created the store's parent")
        #expect(!FileManager.default.fileExists(atPath: destination), "\(arguments[0]) created the backup")
    }

    @Test func aCommandOnAnExistingDirectoryWithoutAStoreLeavesItEmpty() throws {
        let empty = dir.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let result = try StrataCLI.run(["stats", empty])
        #expect(result.status == 1)
        #expect(result.error.contains("no store at \(empty)"), "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
    }
}
