import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LMDB

/// `Environment.read` renews reset read transactions kept from earlier reads (`ReadHandleCache`):
/// each case below is one that reuse must get right, as beginning a transaction each time did.
@Suite struct ReadReuseTests {
    static func key(_ i: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(i).bigEndian, Array.init) }

    /// An environment with one database holding `[1] → [1]`.
    static func environment(_ prefix: String, configure: (inout Environment.Options) -> Void = { _ in })
        throws -> (Environment, Database, TemporaryDirectory) {
        let dir = try TemporaryDirectory(prefix)
        var options = Environment.Options()
        configure(&options)
        let env = try Environment(path: dir.path, options: options)
        let db = try env.write { txn in
            let db = try #require(try txn.openDatabase("db", options: .create))
            try txn.put([1], forKey: [1], in: db)
            return db
        }
        return (env, db, dir)
    }

    @Test func aReusedReadSeesTheCommitsMadeSinceTheReadBeforeIt() throws {
        let (env, db, dir) = try Self.environment("reuse-snapshot")
        defer { withExtendedLifetime(dir) {} }
        for value in UInt8(2)...5 {
            try env.write { txn in try txn.put([value], forKey: [1], in: db) }
            #expect(try env.read { txn in try txn.value(forKey: [1], in: db) } == [value])
        }
        // Four reads, one after another: one transaction, renewed, and one reader slot.
        #expect(env.readHandles.count == 1)
        #expect(env.readerSlotsInUse == 1)
    }

    /// A reset closes the database handles its transaction opened; a read that opened one must
    /// end as before (committed), or the handle it returned would be closed under its user.
    @Test func aDatabaseOpenedInAReadStaysOpenAfterIt() throws {
        let dir = try TemporaryDirectory("reuse-open-database")
        do {
            let env = try Environment(path: dir.path)
            try env.write { txn in try txn.put([7], forKey: [7], in: try #require(try txn.openDatabase("late", options: .create))) }
        }
        // A new environment of the file, in which no transaction has opened "late" yet.
        let env = try Environment(path: dir.path)
        try env.read { _ in }   // a handle kept, so that the next read renews it
        let late = try env.read { txn in try #require(try txn.openDatabase("late")) }
        #expect(try env.read { txn in try txn.value(forKey: [7], in: late) } == [7])
        #expect(try env.read { txn in try txn.value(forKey: [7], in: late) } == [7])
    }

    @Test func aReadNestedInAReadGetsATransactionOfItsOwn() async throws {
        let (env, db, dir) = try Self.environment("reuse-nested")
        defer { withExtendedLifetime(dir) {} }
        try env.read { _ in }   // one handle kept: the outer read takes it, the inner needs another
        for round in UInt8(2)...4 {
            let (outer, inner) = try env.read { outer in
                // Another thread commits while the outer read is open: the nested read sees it,
                // the outer one keeps its snapshot.
                try Thread.detachedResult { try env.write { txn in try txn.put([round], forKey: [1], in: db) } }.wait()
                let inner = try env.read { inner in try inner.value(forKey: [1], in: db) }
                return (try outer.value(forKey: [1], in: db), inner)
            }
            #expect(outer == [round - 1])
            #expect(inner == [round])
        }
        #expect(env.readHandles.count == 2)
        #expect(env.readerSlotsInUse == 2)
    }

    /// Writes that grow a 1 MiB map many times, each followed by reads that renew kept
    /// transactions, while another thread reads all along: no grow waits for a kept transaction
    /// (the timeout is short), and every read sees every record committed before it.
    @Test func readsBetweenWritesThatGrowTheMapReadWhatWasWritten() async throws {
        let (env, db, dir) = try Self.environment("reuse-grow") {
            $0.mapSize = 1 << 20
            $0.writeLockTimeout = 5
        }
        defer { withExtendedLifetime(dir) {} }
        let value = [UInt8](repeating: 0xEF, count: 1000)
        let stop = Atomic<Bool>(false)
        let reader = Thread.detachedResult { () -> Int in
            var reads = 0, last = 0
            while !stop.load(ordering: .relaxed) {
                let count = try env.read { txn in try txn.count(in: db) }
                guard count >= last else { throw LMDBError(code: -1, operation: "count went back from \(last) to \(count)") }
                last = count
                reads += 1
            }
            return reads
        }
        let initial = env.currentMapSize
        var written = 1
        for round in 0..<8 {
            try env.write { txn in
                for i in 0..<1_500 { try txn.put(value, forKey: Self.key(round * 1_500 + i), in: db) }
            }
            written += 1_500
            #expect(try env.read { txn in try txn.count(in: db) } == written)
            #expect(try env.read { txn in try txn.value(forKey: Self.key(round * 1_500 + 1_499), in: db) } == value)
        }
        stop.store(true, ordering: .relaxed)
        #expect(try await reader.value > 0)
        #expect(env.currentMapSize > initial * 8, "the map grew from \(initial) to \(env.currentMapSize) only")
    }

    static let foreignGrower = """
        import lmdb, sys
        env = lmdb.open(sys.argv[1], max_dbs=1024, map_size=64 << 20, create=False)
        db = env.open_db(b'db')
        with env.begin(write=True) as txn:
            for i in range(8000):
                txn.put(i.to_bytes(4, 'big'), b'\\xab' * 1000, db=db)
        """

    /// Another process grows the map past this one's and fills it: renewing a kept transaction
    /// meets `MDB_MAP_RESIZED`, as beginning one does, and the read adopts the new size.
    @Test(.enabled(if: Python.hasModules(["lmdb"]), "needs python3 with its lmdb module"))
    func aReadAfterAnotherProcessGrewTheMapAdoptsTheNewSize() throws {
        let (env, db, dir) = try Self.environment("reuse-foreign-grow") { $0.mapSize = 1 << 20 }
        defer { withExtendedLifetime(dir) {} }
        try env.read { _ in }
        #expect(env.readHandles.count == 1)
        let python = try Python.run(Self.foreignGrower, arguments: [dir.path])
        try #require(python.status == 0, "\(python.error)")
        #expect(try env.read { txn in try txn.count(in: db) } == 8_001)
        #expect(env.currentMapSize == 64 << 20)
        #expect(try env.read { txn in try txn.value(forKey: Self.key(7_999), in: db) } == [UInt8](repeating: 0xAB, count: 1000))
    }

    /// A read ended while many threads read at once is kept only while fewer than an eighth of
    /// the reader slots (at most 8) are kept; the others end and free their slots, so threads that
    /// read once and exit leave nothing behind and the table never fills.
    @Test func keptReadTransactionsHoldAtMostAnEighthOfTheReaderSlots() async throws {
        let (env, db, dir) = try Self.environment("reuse-slots") { $0.maxReaders = 16 }
        defer { withExtendedLifetime(dir) {} }
        #expect(env.readHandles.capacity == 2)
        /// `threads` threads, each in a read until all of them are.
        func readAllAtOnce(_ threads: Int) async throws {
            let inside = ConditionLock(0)
            let readers = (0..<threads).map { _ in
                Thread.detachedResult {
                    try env.read { txn in
                        inside.withLock { $0 += 1 }
                        inside.withLock(untilDone: { $0 == threads ? .done(()) : .wait })
                        return try txn.value(forKey: [1], in: db)
                    }
                }
            }
            for reader in readers { #expect(try await reader.value == [1]) }
        }
        try await readAllAtOnce(16)
        #expect(env.readerSlotsInUse == 2)
        #expect(env.readHandles.count == 2)
        // 200 threads that read once and end, four at a time.
        for _ in 0..<50 { try await readAllAtOnce(4) }
        #expect(env.readerSlotsInUse == 2)
        try await readAllAtOnce(16)   // every slot is free or kept for reuse
        #expect(env.readerSlotsInUse == 2)
    }

    @Test func closingTheEnvironmentEndsTheTransactionsItKept() throws {
        let dir = try TemporaryDirectory("reuse-close")
        var env: Environment? = try Environment.shared(path: dir.path)
        let db = try #require(env).write { txn in
            let db = try #require(try txn.openDatabase("db", options: .create))
            try txn.put([1], forKey: [1], in: db)
            return db
        }
        try #require(env).read { _ in }
        let kept = try #require(env).readHandles
        #expect(kept.count == 1)
        env = nil
        #expect(kept.count == 0, "the environment closed with transactions still kept")
        let reopened = try Environment.shared(path: dir.path)
        #expect(try reopened.read { txn in try txn.value(forKey: [1], in: try #require(try txn.openDatabase("db"))) } == [1])
        #expect(try reopened.read { txn in try txn.value(forKey: [1], in: db) } == [1])
        #expect(reopened.readerSlotsInUse == 1)
    }

    /// A lockless environment reuses its read transactions too, and each read still checks at
    /// its end that no other process can have reused its snapshot's pages.
    @Test func aRenewedLocklessReadKeepsItsSnapshotCheck() throws {
        let (writer, reader, dir) = try LocklessReadTests.writerAndLocklessReader()
        defer { withExtendedLifetime(dir) {} }
        let database = try reader.read { txn in try #require(try txn.openDatabase("db")) }
        #expect(try reader.read { txn in try txn.value(forKey: [1], in: database) } == [1])
        #expect(reader.readHandles.count == 1)
        for value in UInt8(2)...4 { try LocklessReadTests.put(value, in: writer) }
        #expect(try reader.read { txn in try txn.value(forKey: [1], in: database) } == [4])
        let error = #expect(throws: LMDBError.self) {
            try reader.read { txn in
                try LocklessReadTests.put(5, in: writer)
                try LocklessReadTests.put(6, in: writer)
                return try txn.value(forKey: [1], in: database)
            }
        }
        #expect(error?.isSnapshotLost == true, "\(String(describing: error))")
        #expect(try reader.read { txn in try txn.value(forKey: [1], in: database) } == [6])
        #expect(reader.readHandles.count == 1)
    }

    /// A child made by `fork()` while its parent keeps a read transaction reads with one of its
    /// own: it never renews the parent's (both processes would use one reader slot, and either's
    /// reset would leave the other's snapshot unprotected), nor ends it when the child ends its
    /// kept transactions as closing the environment does (that would free the parent's slot
    /// under it). In an exit test's process: forking the test runner, with its many threads,
    /// would not be safe.
    @Test func aForkedChildNeitherRenewsNorEndsItsParentsReadTransactions() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            try ReadReuseTests.forkWhileAReadTransactionIsKept()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!message.contains("fork check: "), "\(message)")
    }

    /// The exit test's body: a failed check is reported on standard error with a normal exit, as
    /// the output of an exit test that fails is lost to the parent.
    static func forkWhileAReadTransactionIsKept() throws {
        func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data(("fork check: " + message + "\n").utf8))
            exit(0)
        }
        let (env, db, dir) = try environment("reuse-fork")
        defer { withExtendedLifetime(dir) {} }
        try env.read { _ in }
        guard env.readHandles.count == 1, env.readerSlotsInUse == 1 else {
            fail("before the fork: \(env.readHandles.count) kept, \(env.readerSlotsInUse) slots in use")
        }
        let child = fork()
        if child == 0 {
            var code: Int32 = 0
            do {
                let (value, slots) = try env.read { txn in (try txn.value(forKey: [1], in: db), env.readerSlotsInUse) }
                if value != [1] { code = 2 } else if slots != 2 { code = 3 }
            } catch {
                code = 4
            }
            env.endKeptReads()   // what closing the environment does first
            _exit(code)
        }
        guard child > 0 else { fail("fork failed: errno \(errno)") }
        var status: Int32 = 0
        guard waitpid(child, &status, 0) == child else { fail("waitpid failed: errno \(errno)") }
        let exitCode = (status >> 8) & 0xFF
        guard status & 0x7F == 0, exitCode == 0 else {
            let why = [2: "read a wrong value", 3: "read in its parent's reader slot instead of one of its own",
                       4: "could not read"][exitCode] ?? "ended with status \(status)"
            fail("the child \(why)")
        }
        // The parent's kept transaction still holds its slot (the child's own is free again),
        // and renews.
        guard env.readerSlotsInUse == 1 else { fail("after the child: \(env.readerSlotsInUse) slots in use") }
        guard try env.read({ txn in try txn.value(forKey: [1], in: db) }) == [1] else { fail("the parent read a wrong value") }
        guard env.readHandles.count == 1, env.readerSlotsInUse == 1 else {
            fail("after the parent's read: \(env.readHandles.count) kept, \(env.readerSlotsInUse) slots in use")
        }
    }
}
