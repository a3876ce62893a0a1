import Foundation
import Testing
import TestSupport

/// The `strata` binary on a small tmpfs that is full: creating a store there, or growing one,
/// is the "disk is full" error (exit status 1), never a `SIGBUS`, and leaves no half-made file.
/// Needs root (or CAP_SYS_ADMIN) to mount the tmpfs.
@Suite struct FullDiskTests {
    static let canRun = ReadOnlyMount.available && FileManager.default.isExecutableFile(atPath: StrataCLI.binary)

    /// Fills the file system holding `directory` with a file until a write fails.
    static func fill(_ directory: String) -> String {
        let path = directory + "/filler"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xAB, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        return path
    }

    /// `count` users as JSON, in a file of the temporary directory.
    static func users(_ dir: TemporaryDirectory, _ range: Range<Int>, name: String) throws -> String {
        let path = dir.path(name)
        let users = range.map { ["id": $0, "name": "user\($0)", "bio": String(repeating: "x", count: 500)] as [String: Any] }
        try JSONSerialization.data(withJSONObject: users).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: canRun, "needs root (or CAP_SYS_ADMIN) to mount a small tmpfs, and the strata binary (swift build)"))
    func creatingAStoreOnAFullDiskIsADiskFullErrorNotASignal() throws {
        let dir = try TemporaryDirectory("strata-full")
        let json = try Self.users(dir, 0..<50, name: "users.json")
        let mount = try ReadOnlyMount(sizeKiB: 1024)
        defer { mount.unmount() }
        let filler = Self.fill(mount.path)
        let store = mount.path + "/new"
        let result = try StrataCLI.run(["import", store, json, "--entity", "User"])
        #expect(result.status == 1, "exit status \(result.status): \(result.error.prefix(400))")
        #expect(result.error.contains("disk") && result.error.contains("full"), "\(result.error.prefix(400))")
        #expect(!FileManager.default.fileExists(atPath: store + "/data.mdb"), "a data file was left on the full disk")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []
        #expect(!left.contains { $0.hasPrefix("data.mdb.") }, "temporary files left: \(left)")
        // With space again, the same command creates the store.
        try FileManager.default.removeItem(atPath: filler)
        let again = try StrataCLI.run(["import", store, json, "--entity", "User"])
        #expect(again.status == 0, "\(again.error)")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    @Test(.enabled(if: canRun, "needs root (or CAP_SYS_ADMIN) to mount a small tmpfs, and the strata binary (swift build)"))
    func growingAStoreOnAFullDiskIsADiskFullErrorAndKeepsWhatWasCommitted() throws {
        let dir = try TemporaryDirectory("strata-full")
        let mount = try ReadOnlyMount(sizeKiB: 2048)
        defer { mount.unmount() }
        let store = mount.path + "/store"
        let first = try StrataCLI.run(["import", store, try Self.users(dir, 0..<100, name: "first.json"), "--entity", "User"])
        try #require(first.status == 0, "\(first.error)")
        let filler = Self.fill(mount.path)
        let big = try StrataCLI.run(["import", store, try Self.users(dir, 100..<3000, name: "big.json"), "--entity", "User"])
        #expect(big.status == 1, "exit status \(big.status): \(big.error.prefix(400))")
        #expect(big.error.contains("disk") && big.error.contains("full"), "\(big.error.prefix(400))")
        // Reading needs no space: the store holds exactly the first import, and verifies.
        let count = try StrataCLI.run(["query", store, "User", "--count"])
        #expect(count.status == 0 && count.output.trimmingCharacters(in: .whitespacesAndNewlines) == "100", "\(count.output) \(count.error)")
        try FileManager.default.removeItem(atPath: filler)
        #expect(try StrataCLI.run(["verify", store]).status == 0)
        #expect(try StrataCLI.run(["import", store, try Self.users(dir, 100..<3000, name: "big.json"), "--entity", "User"]).status == 0)
    }
}
