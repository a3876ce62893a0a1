import Foundation
import Testing
import TestSupport
@testable import Strata

/// Several `Store` values on one path in one process share one LMDB environment, yet each keeps
/// its own configuration: a read-only one writes nothing, each waits its own write-lock timeout,
/// and a setting one environment cannot have twice is refused with an error naming it.
@Suite struct SharedEnvironmentTests {
    static func configuration(_ change: (inout Store.Configuration) -> Void) -> Store.Configuration {
        var configuration = Store.Configuration()
        change(&configuration)
        return configuration
    }

    /// A read-only `Store` opened while a writable one is open refuses writes with
    /// `.permissionDenied` (it used to commit them).
    @Test func aReadOnlyStoreBesideAWritableOneRefusesWrites() throws {
        let (writable, dir) = try makeStore()
        try writable.write { tx in try tx.insert(User.sample(1)) }
        let readOnly = try Store(path: writable.path, configuration: Self.configuration { $0.readOnly = true })
        let error = #expect(throws: StrataError.self) { try readOnly.write { tx in try tx.insert(User.sample(2)) } }
        #expect(error?.code == .permissionDenied)
        #expect(error?.message.contains("readOnly") == true, "\(error?.message ?? "")")
        #expect(throws: StrataError.self) { try readOnly.prepare(User.self) }
        #expect(try writable.read { tx in try tx.count(User.self) } == 1)
        #expect(try readOnly.read { tx in try tx.count(User.self) } == 1)
        try writable.write { tx in try tx.insert(User.sample(3)) }
        #expect(try readOnly.read { tx in try tx.count(User.self) } == 2)
        withExtendedLifetime(dir) {}
    }

    /// A read-only and a writable `Store` on one path, opened in either order, each keep their
    /// own policy over the one environment: the writable one writes (opened after a read-only
    /// one it used to throw `.configurationConflict`), the read-only one refuses writes, and both
    /// read every commit.
    @Test(arguments: [true, false])
    func aReadOnlyAndAWritableStoreWorkSideBySideInEitherOrder(readOnlyFirst: Bool) throws {
        let dir = try TemporaryDirectory("shared")
        let path = dir.path("store")
        try Store(path: path).write { tx in try tx.insert(User.sample(1)) }
        let readOnlyConfiguration = Self.configuration { $0.readOnly = true }
        let first = try Store(path: path, configuration: readOnlyFirst ? readOnlyConfiguration : Store.Configuration())
        let second = try Store(path: path, configuration: readOnlyFirst ? Store.Configuration() : readOnlyConfiguration)
        let (readOnly, writable) = readOnlyFirst ? (first, second) : (second, first)
        try writable.write { tx in try tx.insert(User.sample(2)) }
        let error = #expect(throws: StrataError.self) { try readOnly.write { tx in try tx.insert(User.sample(3)) } }
        #expect(error?.code == .permissionDenied && error?.message.contains("readOnly") == true, "\(String(describing: error))")
        for store in [readOnly, writable] {
            #expect(try store.read { tx in try tx.all(User.self) } == [User.sample(1), User.sample(2)])
        }
        try writable.write { tx in try tx.delete(User.self, key: 1) }
        #expect(try readOnly.read { tx in try tx.all(User.self) } == [User.sample(2)])
    }

    /// On read-only media a read-only `Store` reads (its environment opened read-only, as it can
    /// only be), and a writable one opened beside it is refused with an error saying the store
    /// cannot be written; the read-only one goes on reading.
    @Test(.enabled(if: ReadOnlyMount.available, "needs root (or CAP_SYS_ADMIN) to mount a tmpfs read-only"))
    func onReadOnlyMediaAReadOnlyStoreReadsAndAWritableOneIsRefused() throws {
        let mount = try ReadOnlyMount()
        defer { mount.unmount() }
        let path = mount.path + "/store"
        try Store(path: path).write { tx in try tx.insert(User.sample(1)) }
        try mount.remount(readOnly: true)
        let readOnly = try Store(path: path, configuration: Self.configuration { $0.readOnly = true })
        #expect(try readOnly.read { tx in try tx.all(User.self) } == [User.sample(1)])
        let error = #expect(throws: StrataError.self) { try Store(path: path) }
        #expect(error?.code == .permissionDenied && error?.message.contains("not writable") == true, "\(String(describing: error))")
        #expect(throws: StrataError.self) { try readOnly.write { tx in try tx.insert(User.sample(2)) } }
        #expect(try readOnly.read { tx in try tx.count(User.self) } == 1)
    }

    /// An infinite `writeLockTimeout` waits for another writer without limit (its deadline, past
    /// every clock, stopped the process when converted to a `timespec`); a negative or NaN one is
    /// refused when the store opens.
    @Test func anInfiniteWriteLockTimeoutWaitsAndANegativeOneIsRefused() throws {
        let dir = try TemporaryDirectory("shared")
        let path = dir.path("store")
        let holder = try Store(path: path)
        let waiter = try Store(path: path, configuration: Self.configuration { $0.writeLockTimeout = .infinity })
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            try? holder.write { tx in
                inside.signal()
                release.wait()
                try tx.upsert(User.sample(1))
            }
            done.signal()
        }.start()
        inside.wait()
        Thread {
            Thread.sleep(forTimeInterval: 0.2)   // the waiter is (most likely) waiting by then; either way it must write
            release.signal()
        }.start()
        try waiter.write { tx in try tx.upsert(User.sample(2)) }
        done.wait()
        #expect(try waiter.read { tx in try tx.count(User.self) } == 2)
        for timeout in [-1, Double.nan, -Double.infinity] {
            let error = #expect(throws: StrataError.self) { try Store(path: dir.path("other"), configuration: Self.configuration { $0.writeLockTimeout = timeout }) }
            #expect(error?.code == .invalidValue && error?.message.contains("write lock timeout") == true, "\(String(describing: error))")
        }
    }

    /// Each `Store` waits its own `writeLockTimeout` for the writer of another `Store` on the
    /// same path, whichever was opened first (the second used to wait the first one's).
    @Test func eachStoreWaitsItsOwnWriteLockTimeout() throws {
        let dir = try TemporaryDirectory("shared")
        let path = dir.path("store")
        let patient = try Store(path: path, configuration: Self.configuration { $0.writeLockTimeout = 4 })
        let hasty = try Store(path: path, configuration: Self.configuration { $0.writeLockTimeout = 0.5 })

        /// Holds the write lock through `holder` for `seconds`, then measures a write through `waiter`.
        func measure(holder: Store, waiter: Store, holding seconds: Double) throws -> (seconds: Double, error: StrataError?) {
            let inside = DispatchSemaphore(value: 0)
            let thread = Thread {
                try? holder.write { tx in
                    inside.signal()
                    Thread.sleep(forTimeInterval: seconds)
                    try tx.upsert(User.sample(99))
                }
            }
            thread.start()
            inside.wait()
            let start = Date()
            var failure: StrataError?
            do { try waiter.write { tx in try tx.upsert(User.sample(100)) } } catch let error as StrataError { failure = error }
            let waited = Date().timeIntervalSince(start)
            Thread.sleep(forTimeInterval: max(0, seconds - waited) + 0.2)   // let the holder finish
            return (waited, failure)
        }

        let short = try measure(holder: patient, waiter: hasty, holding: 2.5)
        #expect(short.error?.code == .busy, "the 0.5 s Store's write: \(String(describing: short.error))")
        #expect(short.seconds < 1.5, "the 0.5 s Store waited \(short.seconds) s")
        #expect(short.error?.message.contains("0.5 s") == true, "\(short.error?.message ?? "")")

        let long = try measure(holder: hasty, waiter: patient, holding: 1.5)
        #expect(long.error == nil, "the 4 s Store's write failed after \(long.seconds) s: \(String(describing: long.error))")
        #expect(long.seconds >= 1.0)
    }

    /// Settings one environment cannot have twice are refused with an error naming them;
    /// `initialMapSize` and `filePermissions` (harmless once the files exist) are taken from
    /// the first opening.
    @Test func settingsThatCannotDifferAreRefusedNamingThem() throws {
        let (first, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try first.write { tx in try tx.insert(User.sample(1)) }
        let conflicting: [(String, Store.Configuration)] = [
            ("maxReaders", Self.configuration { $0.maxReaders = 500 }),
            ("maxMapSize", Self.configuration { $0.maxMapSize = 1 << 32 }),
        ]
        for (setting, configuration) in conflicting {
            do {
                _ = try Store(path: first.path, configuration: configuration)
                Issue.record("a Store with another \(setting) opened beside the first")
            } catch let error as StrataError {
                #expect(error.code.name == "configurationConflict", "\(error)")
                #expect(error.message.contains(setting), "\(error.message)")
            }
        }
        let harmless = Self.configuration { $0.initialMapSize = 1 << 20; $0.filePermissions = 0o640 }
        #expect(try Store(path: first.path, configuration: harmless).read { tx in try tx.count(User.self) } == 1)
    }
}
