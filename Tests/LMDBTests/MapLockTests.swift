import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LMDB

/// The map lock prefers a pending grow over new readers (so steady readers cannot starve a write
/// that must grow the map), lets a thread that already holds it in (so it cannot deadlock), and
/// bounds the grow's wait.
@Suite struct MapLockTests {
    /// Waits (without a deadline: the test's own time limit applies) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) {
        while !condition() { usleep(1_000) }
    }

    @Test func aPendingGrowMakesNewReadersWaitUntilItIsDone() async throws {
        let lock = MapLock()
        let reading = DispatchSemaphore(value: 0), finishReading = DispatchSemaphore(value: 0)
        let reader = Thread.detachedResult {
            lock.lockShared()
            reading.signal()
            finishReading.wait()
            lock.unlockShared()
        }
        reading.wait()
        let grew = Atomic<Bool>(false)
        let grower = Thread.detachedResult {
            guard lock.lockExclusive(timeout: 600) else { return false }
            grew.store(true, ordering: .sequentiallyConsistent)
            lock.unlockExclusive()
            return true
        }
        Self.waitUntil { lock.pendingExclusive == 1 }
        // A new reader (this thread holds nothing) may not overtake the grow: glibc's rwlock let it.
        #expect(lock.tryLockShared() == false)
        #expect(grew.load(ordering: .sequentiallyConsistent) == false)
        finishReading.signal()
        try await reader.value
        #expect(try await grower.value)
        #expect(lock.tryLockShared())
        lock.unlockShared()
    }

    @Test func aThreadThatHoldsTheLockEntersWhileAGrowWaits() async throws {
        let lock = MapLock()
        let holding = DispatchSemaphore(value: 0), nest = DispatchSemaphore(value: 0)
        let reader = Thread.detachedResult { () -> Bool in
            lock.lockShared()
            holding.signal()
            nest.wait()
            // A nested read on a thread that holds the lock: waiting for the grow would deadlock
            // (the grow waits for this thread's first hold).
            let entered = lock.tryLockShared()
            lock.lockShared()
            lock.unlockShared()
            if entered { lock.unlockShared() }
            lock.unlockShared()
            return entered
        }
        holding.wait()
        let grower = Thread.detachedResult { () -> Bool in
            guard lock.lockExclusive(timeout: 600) else { return false }
            lock.unlockExclusive()
            return true
        }
        Self.waitUntil { lock.pendingExclusive == 1 }
        nest.signal()
        #expect(try await reader.value)
        #expect(try await grower.value)
    }

    @Test func aGrowGivesUpAfterItsTimeoutAndReadersGoOn() async throws {
        let lock = MapLock()
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let reader = Thread.detachedResult {
            lock.lockShared()
            holding.signal()
            release.wait()
            lock.unlockShared()
        }
        holding.wait()
        #expect(lock.lockExclusive(timeout: 0.05) == false)
        #expect(lock.pendingExclusive == 0)
        #expect(lock.tryLockShared(), "readers are no longer held back once the grow gave up")
        lock.unlockShared()
        release.signal()
        try await reader.value
        #expect(lock.lockExclusive(timeout: 600))
        lock.unlockExclusive()
    }
}

@Suite struct MapGrowthUnderReadersTests {
    /// A 1 MiB map and ~8 MB written in one transaction: the write must grow the map.
    static func fillingWrite(_ env: Environment, _ db: Database) throws {
        let value = [UInt8](repeating: 0xCD, count: 1000)
        try env.write { txn in
            for i in 0..<8_000 { try txn.put(value, forKey: withUnsafeBytes(of: UInt32(i).bigEndian, Array.init), in: db) }
        }
    }

    static func environment(timeout: Double) throws -> (Environment, Database, TemporaryDirectory) {
        let dir = try TemporaryDirectory("lmdb-grow-readers")
        var options = Environment.Options()
        options.mapSize = 1 << 20
        options.writeLockTimeout = timeout
        let env = try Environment(path: dir.path, options: options)
        let db = try env.write { txn in try #require(try txn.openDatabase("db", options: .create)) }
        return (env, db, dir)
    }

    /// Two reader threads whose transactions always overlap (each keeps its snapshot until the
    /// other has opened a newer one, or 50 ms passed) do not keep a write that must grow the map
    /// waiting: with glibc's reader-preferring rwlock the write waited until the readers stopped
    /// (here after 20,000 rounds each), with the writer gate held all along.
    @Test func aWriteThatMustGrowTheMapIsNotStarvedByOverlappingReaders() async throws {
        let (env, db, dir) = try Self.environment(timeout: 600)
        defer { withExtendedLifetime(dir) {} }
        let rounds = 20_000
        let stop = Atomic<Bool>(false)
        let state = ConditionLock<(entries: [Int], inside: [Bool])>(([0, 0], [false, false]))
        let readers = (0..<2).map { me in
            Thread.detachedResult { () -> Int in
                let other = 1 - me
                var round = 0
                while round < rounds, !stop.load(ordering: .relaxed) {
                    try env.read { txn in
                        _ = try txn.count(in: db)
                        let seen = state.withLock { state in
                            state.entries[me] += 1
                            state.inside[me] = true
                            return state.entries[other]
                        }
                        var waited = 0
                        while waited < 50, !stop.load(ordering: .relaxed),
                              !state.withLock({ $0.inside[other] && $0.entries[other] > seen }) {
                            usleep(1_000)
                            waited += 1
                        }
                        state.withLock { $0.inside[me] = false }
                    }
                    round += 1
                }
                return round
            }
        }
        MapLockTests.waitUntil { state.withLock { $0.entries.allSatisfy { $0 >= 4 } } }
        try Self.fillingWrite(env, db)
        stop.store(true, ordering: .relaxed)
        for reader in readers {
            let done = try await reader.value
            #expect(done < rounds, "the write finished only after the readers had stopped")
        }
        #expect(env.currentMapSize > 1 << 20)
        #expect(try env.read { txn in try txn.count(in: db) } == 8_000)
    }

    /// Another thread keeps a read open for longer than the write-lock timeout: the write that
    /// must grow the map fails with a busy error instead of waiting for ever (holding the writer
    /// gate), and succeeds once the read is over.
    @Test func aGrowThatAnOpenReadHoldsUpFailsBusyAfterTheTimeout() async throws {
        let (env, db, dir) = try Self.environment(timeout: 0.2)
        defer { withExtendedLifetime(dir) {} }
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let reader = Thread.detachedResult {
            try env.read { _ in
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        do {
            try Self.fillingWrite(env, db)
            Issue.record("expected a busy error")
        } catch let error as LMDBError {
            #expect(error.isBusy, "\(error)")
            #expect(error.description.contains("grow map"), "\(error)")
        }
        #expect(try env.read { txn in try txn.count(in: db) } == 0, "nothing of the failed write was committed")
        release.signal()
        try await reader.value
        try Self.fillingWrite(env, db)
        #expect(try env.read { txn in try txn.count(in: db) } == 8_000)
    }
}
