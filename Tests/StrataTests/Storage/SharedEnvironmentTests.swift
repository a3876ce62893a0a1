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

    /// A writable `Store` opened while a read-only one is open cannot share its read-only
    /// environment: opening it fails with an error naming `readOnly` (it used to open and then
    /// fail every write).
    @Test func aWritableStoreBesideAReadOnlyOneIsRefusedNamingTheSetting() throws {
        let dir = try TemporaryDirectory("shared")
        let path = dir.path("store")
        try Store(path: path).write { tx in try tx.insert(User.sample(1)) }
        do {
            let readOnly = try Store(path: path, configuration: Self.configuration { $0.readOnly = true })
            do {
                let writable = try Store(path: path)
                try writable.write { tx in try tx.insert(User.sample(2)) }
                Issue.record("a writable Store opened beside a read-only one on \(path)")
            } catch let error as StrataError {
                #expect(error.code.name == "configurationConflict", "\(error)")
                #expect(error.message.contains("readOnly") && error.message.contains(path), "\(error.message)")
            }
            #expect(try readOnly.read { tx in try tx.count(User.self) } == 1)
        }
        // Once the read-only one is closed, a writable one opens.
        try Store(path: path).write { tx in try tx.insert(User.sample(2)) }
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
