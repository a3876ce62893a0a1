import Foundation
import Testing
import TestSupport
@testable import Strata

/// A store's directory entries are opened as what they are: a symbolic link or a file that is not
/// regular in place of `data.mdb`, `lock.mdb` or `writer.lock` is refused, and so are a directory
/// or files of another user or writable by others, before LMDB writes anything anywhere.
@Suite struct StoreFileSafetyTests {
    /// A closed store holding one user in `dir/store`.
    static func closedStore() throws -> (path: String, dir: TemporaryDirectory) {
        let dir = try TemporaryDirectory("files")
        let path = dir.path("store")
        try Store(path: path).write { tx in try tx.insert(User.sample(1)) }
        return (path, dir)
    }

    static var readOnly: Store.Configuration {
        var configuration = Store.Configuration()
        configuration.readOnly = true
        return configuration
    }

    /// Opens `path` (writable, then read-only unless `writableOnly`) and expects `code` with a
    /// message naming `name`.
    static func expectRefused(_ path: String, _ code: StrataError.Code, naming name: String, writableOnly: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        for configuration in writableOnly ? [Store.Configuration()] : [Store.Configuration(), readOnly] {
            do {
                _ = try Store(path: path, configuration: configuration)
                Issue.record("opened \(path) (readOnly: \(configuration.readOnly)) with \(name) unsafe", sourceLocation: sourceLocation)
            } catch let error as StrataError {
                #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
                #expect(error.message.contains(name), "\(error.message)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A store file replaced by a link to another file: opening refuses it, and the other file
    /// keeps its bytes (LMDB wrote its lock table over a linked `lock.mdb`, and made an empty
    /// file linked as `data.mdb` an LMDB file).
    @Test(arguments: ["lock.mdb", "data.mdb", "writer.lock"])
    func aStoreFileThatIsASymbolicLinkIsRefused(file: String) throws {
        let (path, dir) = try Self.closedStore()
        let victim = dir.path("victim")
        let original = file == "data.mdb" ? Data() : Data("precious text\n".utf8)
        try original.write(to: URL(fileURLWithPath: victim))
        try FileManager.default.removeItem(atPath: path + "/" + file)
        try FileManager.default.createSymbolicLink(atPath: path + "/" + file, withDestinationPath: victim)
        Self.expectRefused(path, .invalidPath, naming: path + "/" + file)
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == original, "the file \(file) linked to was written")
    }

    /// A dangling link in place of a store file creates nothing where it points.
    @Test(arguments: ["lock.mdb", "writer.lock", "data.mdb"])
    func aDanglingSymbolicLinkCreatesNothingElsewhere(file: String) throws {
        let dir = try TemporaryDirectory("files")
        let path = dir.path("store"), elsewhere = dir.path("elsewhere")
        for folder in [path, elsewhere] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        try FileManager.default.createSymbolicLink(atPath: path + "/" + file, withDestinationPath: elsewhere + "/planted")
        if file == "data.mdb" {
            Self.expectRefused(path, .invalidPath, naming: path + "/" + file)
        } else {
            // Without a data.mdb, a read-only opening finds no store before it looks at lock files.
            #expect { try Store(path: path) } throws: { error in
                (error as? StrataError)?.code == .invalidPath && (error as? StrataError)?.message.contains(path + "/" + file) == true
            }
            #expect { try Store(path: path, configuration: Self.readOnly) } throws: { ($0 as? StrataError)?.code == .notFound }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    /// A directory in place of a store file is refused too.
    @Test func aStoreFileThatIsNotARegularFileIsRefused() throws {
        let (path, dir) = try Self.closedStore()
        defer { withExtendedLifetime(dir) {} }
        try FileManager.default.removeItem(atPath: path + "/lock.mdb")
        try FileManager.default.createDirectory(atPath: path + "/lock.mdb", withIntermediateDirectories: false)
        Self.expectRefused(path, .invalidPath, naming: path + "/lock.mdb")
    }

    /// A directory or file others may write to is refused with `.permissionDenied`, unless the
    /// store's `filePermissions` share writing.
    @Test func storesWritableByOthersAreRefused() throws {
        let (path, dir) = try Self.closedStore()
        defer { withExtendedLifetime(dir) {} }
        let files = FileManager.default
        try files.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path)
        Self.expectRefused(path, .permissionDenied, naming: "the store directory \(path)")
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        for file in ["data.mdb", "lock.mdb", "writer.lock"] {
            try files.setAttributes([.posixPermissions: 0o620], ofItemAtPath: path + "/" + file)
            Self.expectRefused(path, .permissionDenied, naming: path + "/" + file)
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + "/" + file)
        }
        #expect(try Store(path: path).read { tx in try tx.count(User.self) } == 1)

        // Shared writing, asked for by the configuration, is accepted.
        try files.setAttributes([.posixPermissions: 0o770], ofItemAtPath: path)
        for file in ["data.mdb", "lock.mdb", "writer.lock"] {
            try files.setAttributes([.posixPermissions: 0o660], ofItemAtPath: path + "/" + file)
        }
        var shared = Store.Configuration()
        shared.filePermissions = 0o660
        #expect(try Store(path: path, configuration: shared).read { tx in try tx.count(User.self) } == 1)
    }

    /// A store directory or file of another user is refused to a writable opening, even to root;
    /// a read-only one reads it, writing nothing there (lockless, when the lock file or the
    /// directory is the other user's).
    @Test(.enabled(if: OtherUser.uid != nil, "needs root, to create a second user with useradd and give it the store's files"))
    func storesOfAnotherUserAreRefusedToWritersAndReadByReaders() throws {
        let (path, dir) = try Self.closedStore()
        defer { withExtendedLifetime(dir) {} }
        for file in ["lock.mdb", "data.mdb", "writer.lock"] {
            try OtherUser.give(path + "/" + file)
            Self.expectRefused(path, .permissionDenied, naming: path + "/" + file, writableOnly: true)
            #expect(try Store(path: path, configuration: Self.readOnly).read { tx in try tx.count(User.self) } == 1)
            #expect(lchown(path + "/" + file, getuid(), getgid()) == 0)
        }
        try OtherUser.give(path)
        Self.expectRefused(path, .permissionDenied, naming: "the store directory \(path)", writableOnly: true)
        #expect(try Store(path: path, configuration: Self.readOnly).read { tx in try tx.count(User.self) } == 1)
        do {
            _ = try Store(path: path)
        } catch let error as StrataError {
            #expect(error.message.contains("user \(OtherUser.name)"), "\(error.message)")
        }
        #expect(lchown(path, getuid(), getgid()) == 0)
        #expect(try Store(path: path).read { tx in try tx.count(User.self) } == 1)
    }

    /// New store files get the store's mode exactly, whatever the umask.
    @Test func newStoreFilesAreCreatedWithTheStoresMode() throws {
        let dir = try TemporaryDirectory("files")
        var configuration = Store.Configuration()
        configuration.filePermissions = 0o640
        let store = try Store(path: dir.path("store"), configuration: configuration)
        for file in ["data.mdb", "lock.mdb", "writer.lock"] {
            let mode = (try FileManager.default.attributesOfItem(atPath: store.path + "/" + file)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o640, "\(file): \(String(mode ?? -1, radix: 8))")
        }
    }
}
