import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// Bad input of every kind gets a typed error that names what and where, and never loses data.
@Suite struct BadInputTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// Writes raw bytes as the stored record of `User` with key `key`, behind the codec's back.
    func overwriteStoredUser(_ key: Int64, with bytes: [UInt8]) throws {
        try store.environment.write { txn in
            let db = try #require(try txn.openDatabase("records/User"))
            try txn.put(bytes, forKey: key.orderedKey, in: db)
        }
    }

    @Test func corruptedRecordBytesAreACorruptRecordErrorNamingEntityAndKey() throws {
        try store.write { tx in try tx.insert([User.sample(1), User.sample(2)]) }
        try overwriteStoredUser(2, with: [0xff, 0x00, 0x13, 0x37])
        do {
            _ = try store.read { tx in try tx.all(User.self) }
            Issue.record("expected corruptRecord")
        } catch let error as StrataError {
            #expect(error.code == .corruptRecord)
            #expect(error.entity == "User")
            #expect(error.key == "2")
        }
        // The intact record is still there.
        #expect(try store.read { tx in try tx.get(User.self, key: 1) } == User.sample(1))
    }

    @Test func aCorruptRecordDeepInALargeParallelScanIsReportedWithItsKey() throws {
        try store.write { tx in try tx.insert((1...5000).map { User.sample(Int64($0)) }) }
        try overwriteStoredUser(3001, with: [0xa1, 0x01, 0x01]) // {id: 1}: most fields missing
        try overwriteStoredUser(4500, with: [0x1f])        // not CBOR at all
        do {
            try store.read { tx in try tx.forEach(User.self) { _ in } }
            Issue.record("expected an error")
        } catch let error as StrataError {
            #expect(error.key == "3001", "\(error)")
            #expect(error.code == .missingField)
        }
    }

    @Test func everyTruncationOfAStoredRecordIsATypedError() throws {
        try store.write { tx in try tx.insert(User.sample(1)) }
        let good = try store.environment.read { txn in
            try txn.value(forKey: Int64(1).orderedKey, in: try #require(try txn.openDatabase("records/User")))
        }
        let bytes = try #require(good)
        for length in 0..<bytes.count {
            try overwriteStoredUser(1, with: length == 0 ? [0xa0] : Array(bytes.prefix(length)))
            #expect(throws: StrataError.self, "prefix of \(length) bytes") {
                try store.read { tx in try tx.get(User.self, key: 1) }
            }
        }
    }

    @Test func wrongTypesInStoredDataAreATypeMismatch() throws {
        try store.write { tx in try tx.insert(User.sample(1)) }
        let fields = try store.read { tx in try #require(try tx.context(for: User.self)).schema.fields }
        let lucky = try #require(fields.id(for: "luckyNumber"))
        // A map whose luckyNumber holds a text string: {id: 1, ..., luckyNumber: "seven"}.
        var fixed = fields
        let record = User.sample(1)
        var bytes = try RecordEncoder().encode(record, fields: &fixed, entity: "User")
        // Rebuild the map by hand: header a5, then pairs in id order with luckyNumber replaced.
        bytes = [0xa5]
        for (id, name) in fields.entries {
            bytes.append(UInt8(id))
            switch name {
            case "id": bytes.append(0x01)
            case "firstName": bytes += [0x61, 0x4a]
            case "lastName": bytes += [0x61, 0x4b]
            case "createdDate": bytes += [0xc1, 0x00]
            default:
                #expect(id == lucky)
                bytes += [0x65] + Array("seven".utf8)
            }
        }
        try overwriteStoredUser(1, with: bytes)
        do {
            _ = try store.read { tx in try tx.get(User.self, key: 1) }
            Issue.record("expected typeMismatch")
        } catch let error as StrataError {
            #expect(error.code == .typeMismatch)
            #expect(error.field == "luckyNumber")
            #expect(error.key == "1")
        }
    }

    @Test func aPrimaryKeyOverLMDBsKeyLimitIsAnInvalidValueError() throws {
        try store.write { tx in try tx.insert(Tag(name: "short", uses: 1)) }
        let long = String(repeating: "k", count: 600)
        do {
            try store.write { tx in try tx.insert(Tag(name: long, uses: 1)) }
            Issue.record("expected invalidValue")
        } catch let error as StrataError {
            #expect(error.code == .invalidValue)
            #expect(error.entity == "Tag")
            #expect(error.message.contains("511"))
        }
        #expect {
            try store.read { tx in try tx.get(Tag.self, key: long) }
        } throws: { ($0 as? StrataError)?.code == .invalidValue }
    }

    @Test func aPathThatIsAFileIsAnInvalidPathError() throws {
        let file = dir.path("plain-file")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: file))
        #expect { try Store(path: file) } throws: { ($0 as? StrataError)?.code == .invalidPath }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "hello")
    }

    @Test func aDamagedDataFileIsAnIncompatibleStoreError() throws {
        let path = dir.path("damaged")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(repeating: 0x5a, count: 16_384).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        #expect { try Store(path: path) } throws: { ($0 as? StrataError)?.code == .incompatibleStore }
    }

    @Test func aStoreFromANewerFormatIsRefusedAndLeftUntouched() throws {
        try store.write { tx in try tx.insert(User.sample(1)) }
        try store.environment.write { txn in
            let catalog = try #require(try txn.openDatabase("catalog"))
            try txn.put(Array(#"{"version":99}"#.utf8), forKey: Array("format".utf8), in: catalog)
        }
        do {
            _ = try Store(path: store.path)
            Issue.record("expected incompatibleStore")
        } catch let error as StrataError {
            #expect(error.code == .incompatibleStore)
            #expect(error.message.contains("99"))
        }
        let format = try store.environment.read { txn in
            try txn.value(forKey: Array("format".utf8), in: try #require(try txn.openDatabase("catalog")))
        }
        #expect(format == Array(#"{"version":99}"#.utf8))
    }

    @Test func aReadOnlyStoreRefusesWritesWithPermissionDenied() throws {
        try store.write { tx in try tx.insert(User.sample(1)) }
        var configuration = Store.Configuration()
        configuration.readOnly = true
        // A second environment on the same file in one process is not allowed, so the read-only
        // store shares the open one; its writes must still be refused by the store.
        try FileManager.default.createDirectory(atPath: dir.path("ro-copy"), withIntermediateDirectories: true)
        try store.environment.copy(to: dir.path("ro-copy"))
        let readOnly = try Store(path: dir.path("ro-copy"), configuration: configuration)
        #expect(try readOnly.read { tx in try tx.get(User.self, key: 1) } == User.sample(1))
        #expect {
            try readOnly.write { tx in try tx.insert(User.sample(2)) }
        } throws: { ($0 as? StrataError)?.code == .permissionDenied }
    }

    @Test(.enabled(if: ReadOnlyMount.available, "needs root (or CAP_SYS_ADMIN) to mount a read-only tmpfs"))
    func aStoreOnAReadOnlyFileSystemIsAPermissionError() throws {
        let mount = try ReadOnlyMount()
        defer { mount.unmount() }
        // A store created while writable, then the file system made read-only.
        let path = mount.path + "/store"
        do {
            let store = try Store(path: path)
            try store.write { tx in try tx.insert(User.sample(1)) }
        }
        try mount.remount(readOnly: true)
        #expect { try Store(path: path) } throws: { ($0 as? StrataError)?.code == .permissionDenied }
        #expect { try Store(path: mount.path + "/new") } throws: { error in
            let code = (error as? StrataError)?.code
            return code == .permissionDenied || code == .invalidPath
        }
        var configuration = Store.Configuration()
        configuration.readOnly = true
        #expect(try Store(path: path, configuration: configuration).read { tx in try tx.count(User.self) } == 1)
    }

    @Test(.enabled(if: ReadOnlyMount.available, "needs root (or CAP_SYS_ADMIN) to mount a small tmpfs"))
    func aFullDiskIsAStorageFullErrorAndLosesNothingCommitted() throws {
        let mount = try ReadOnlyMount(sizeKiB: 2048)
        defer { mount.unmount() }
        let store = try Store(path: mount.path + "/store")
        try store.write { tx in try tx.insert(User.sample(1)) }
        let big = String(repeating: "x", count: 100_000)
        do {
            try store.write { tx throws in
                for i in 0..<100 { try tx.insert(Tag(name: "t\(i)", uses: i)); try tx.upsert(User.sample(Int64(i + 2), big)) }
            }
            Issue.record("expected storageFull")
        } catch let error as StrataError {
            #expect(error.code == .storageFull, "\(error)")
        }
        #expect(try store.read { tx in try tx.all(User.self) } == [User.sample(1)])
        #expect(try store.read { tx in try tx.count(Tag.self) } == 0)
    }

    @Test(.enabled(if: Python.hasModules([]), "needs python3 to hold the lock from another process"))
    func aWriterLockedByAnotherProcessTimesOutWithBusy() throws {
        var configuration = Store.Configuration()
        configuration.writeLockTimeout = 0.3
        let path = dir.path("locked")
        _ = try Store(path: path)
        let holder = try Python.start("""
            import fcntl, sys, time
            f = open(sys.argv[1] + "/writer.lock", "a")
            fcntl.flock(f, fcntl.LOCK_EX)
            print("locked", flush=True)
            time.sleep(5)
            """, arguments: [path])
        defer { holder.terminate() }
        try holder.waitForLine("locked")
        let locked = try Store(path: path, configuration: configuration)
        let started = Date()
        do {
            try locked.write { tx in try tx.insert(User.sample(1)) }
            Issue.record("expected busy")
        } catch let error as StrataError {
            #expect(error.code == .busy)
            #expect(error.message.contains(path))
        }
        #expect(Date().timeIntervalSince(started) < 3)
        holder.terminate()
        try locked.write { tx in try tx.insert(User.sample(1)) }
        #expect(try locked.read { tx in try tx.count(User.self) } == 1)
    }
}
