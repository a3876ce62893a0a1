import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Strata

/// Backups appear whole or not at all, and are no more readable than their store. (Killed backups
/// are in StrataCommandTests/KilledBackupTests.)
@Suite struct BackupTests {
    /// The permission bits of `path`.
    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Entries of `dir` that a backup into `dir/name` works in.
    static func partials(_ dir: TemporaryDirectory, _ name: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix(".\(name).partial-") }
    }

    static func storeWithUsers(_ count: Int, _ configure: (inout Store.Configuration) -> Void = { _ in }) throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore(configure)
        try store.write { tx in try tx.insert((1...count).map { User.sample(Int64($0), String(repeating: "n", count: 500)) }) }
        return (store, dir)
    }

    /// A backup into an existing directory open to everyone (0755) carries the store's modes, the
    /// default ones and ones set by `filePermissions`, not the umask's.
    @Test(arguments: [UInt16(0o600), 0o640])
    func backupsCarryTheStoresPermissions(permissions: UInt16) throws {
        let (store, dir) = try Self.storeWithUsers(10) { $0.filePermissions = permissions }
        let destination = dir.path("copy")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try store.backup(to: destination)
        let expectedDirectory = Int(permissions | ((permissions & 0o444) >> 2))
        let directoryMode = try Self.mode(destination), fileMode = try Self.mode(destination + "/data.mdb")
        #expect(directoryMode == expectedDirectory, "backup directory \(String(directoryMode, radix: 8))")
        #expect(fileMode == Int(permissions), "backup data.mdb \(String(fileMode, radix: 8))")
        #expect(try Store(path: destination).read { tx in try tx.count(User.self) } == 10)
    }

    /// What a killed backup leaves beside its destination holds no `data.mdb`, so it is no store;
    /// the next backup to that destination succeeds and removes it, but not the directory of a
    /// backup still running (which holds it locked).
    @Test func aPartialBackupIsNoStoreAndTheNextBackupClearsIt() throws {
        let (store, dir) = try Self.storeWithUsers(50)
        let stale = dir.path(".copy.partial-Ab12Cd")
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data(count: 12_288).write(to: URL(fileURLWithPath: stale + "/data.mdb.partial"))
        var readOnly = Store.Configuration()
        readOnly.readOnly = true
        #expect(throws: StrataError.self) { try Store(path: stale, configuration: readOnly) }

        let running = dir.path(".copy.partial-Running")
        try FileManager.default.createDirectory(atPath: running, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let lock = open(running, O_RDONLY | O_DIRECTORY)
        try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
        defer { close(lock) }

        try store.backup(to: dir.path("copy"))
        #expect(try Store(path: dir.path("copy")).read { tx in try tx.count(User.self) } == 50)
        #expect(Self.partials(dir, "copy") == [".copy.partial-Running"])
    }

    /// `progress` reports sizes up to the copy's, and never after `backup` returned.
    @Test func progressReportsStopWhenTheBackupReturns() throws {
        let (store, dir) = try Self.storeWithUsers(2000)
        let reports = Mutex<[Int]>([])
        let returned = Mutex(false)
        let late = Mutex(0)
        try store.backup(to: dir.path("copy")) { size in
            reports.withLock { $0.append(size) }
            if returned.withLock({ $0 }) { late.withLock { $0 += 1 } }
        }
        returned.withLock { $0 = true }
        Thread.sleep(forTimeInterval: 0.5)
        let size = (try FileManager.default.attributesOfItem(atPath: dir.path("copy/data.mdb"))[.size] as? Int) ?? 0
        #expect(late.withLock { $0 } == 0)
        #expect(reports.withLock { $0 }.allSatisfy { $0 <= size })
    }

    /// A destination that is a file or a directory that is not empty is refused and left as it
    /// was, and the refused backup leaves nothing beside it.
    @Test func occupiedDestinationsAreRefusedAndUntouched() throws {
        let (store, dir) = try Self.storeWithUsers(5)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir.path("file")))
        try FileManager.default.createDirectory(atPath: dir.path("full"), withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir.path("full/note")))
        for name in ["file", "full"] {
            let error = #expect(throws: StrataError.self) { try store.backup(to: dir.path(name)) }
            #expect(error?.code == .invalidPath)
            #expect(error?.message.contains(dir.path(name)) == true, "\(error?.message ?? "")")
            #expect(Self.partials(dir, name).isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path("file"))) == Data("keep".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("full")) == ["note"])
    }

    /// A backup that fails midway (its disk fills) leaves no destination and no partial copy:
    /// before, it left a truncated `data.mdb` at the destination.
    @Test(.enabled(if: ReadOnlyMount.available, "needs root (or CAP_SYS_ADMIN) to mount a small tmpfs"))
    func aBackupThatFailsMidwayLeavesNothing() throws {
        let (store, dir) = try Self.storeWithUsers(4000)
        defer { withExtendedLifetime(dir) {} }
        let mount = try ReadOnlyMount(sizeKiB: 512)
        defer { mount.unmount() }
        let destination = mount.path + "/copy"
        let error = #expect(throws: StrataError.self) { try store.backup(to: destination) }
        #expect(error?.code == .storageFull, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(try FileManager.default.contentsOfDirectory(atPath: mount.path).isEmpty)
    }
}
