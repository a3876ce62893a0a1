import Foundation
import Testing
import TestSupport
@testable import LMDB

@Suite struct EnvironmentTests {
    let dir: TemporaryDirectory
    let env: Environment

    init() throws { (env, dir) = try makeEnvironment("lmdb", mapSize: 1 << 20) }

    func database(_ name: String = "db", options: DatabaseOptions = []) throws -> Database {
        try env.write { txn in try #require(try txn.openDatabase(name, options: options.union(.create))) }
    }

    @Test func putThenGetReturnsACopyOfTheValue() throws {
        let db = try database()
        try env.write { txn in try txn.put([1, 2, 3], forKey: [9], in: db) }
        let value = try env.read { txn in try txn.value(forKey: [9], in: db) }
        #expect(value == [1, 2, 3])
    }

    @Test func missingKeyIsNilNotAnError() throws {
        let db = try database()
        let value = try env.read { txn in try txn.value(forKey: [7], in: db) }
        #expect(value == nil)
        #expect(try env.read { txn in try txn.contains([7], in: db) } == false)
    }

    @Test func throwingInsideWriteRollsBack() throws {
        struct Boom: Error {}
        let db = try database()
        #expect(throws: Boom.self) {
            try env.write { txn in
                try txn.put([1], forKey: [1], in: db)
                throw Boom()
            }
        }
        #expect(try env.read { txn in try txn.count(in: db) } == 0)
    }

    @Test func noOverwriteReportsAnExistingKey() throws {
        let db = try database()
        try env.write { txn in try txn.put([1], forKey: [1], in: db) }
        do {
            try env.write { txn in try txn.put([2], forKey: [1], in: db, options: .noOverwrite) }
            Issue.record("expected MDB_KEYEXIST")
        } catch let error as LMDBError {
            #expect(error.isKeyExists)
            #expect(error.description.contains("mdb_put"))
        }
    }

    @Test func keysLongerThanTheLimitAreATypedError() throws {
        let db = try database()
        #expect(env.maxKeySize == 511)
        do {
            try env.write { txn in try txn.put([1], forKey: Array(repeating: 7, count: 600), in: db) }
            Issue.record("expected MDB_BAD_VALSIZE")
        } catch let error as LMDBError {
            #expect(error.isBadValueSize)
        }
    }

    @Test func readersSeeTheSnapshotOfTheirStartWhileAWriterCommits() async throws {
        let db = try database()
        try env.write { txn in try txn.put([1], forKey: [1], in: db) }
        let env = self.env
        let (started, signalStarted) = AsyncStream.makeStream(of: Void.self)
        let (committed, signalCommitted) = AsyncStream.makeStream(of: Void.self)
        // The reader opens its snapshot, lets the writer commit, then reads again in the same snapshot.
        let reader = Thread.detachedResult {
            try env.read { txn -> ([UInt8]?, [UInt8]?) in
                let before = try txn.value(forKey: [1], in: db)
                signalStarted.yield()
                let semaphore = DispatchSemaphore(value: 0)
                Task { for await _ in committed { break }; semaphore.signal() }
                semaphore.wait()
                return (before, try txn.value(forKey: [1], in: db))
            }
        }
        for await _ in started { break }
        try env.write { txn in try txn.put([2], forKey: [1], in: db) }
        signalCommitted.yield()
        let (before, after) = try await reader.value
        #expect(before == [1])
        #expect(after == [1])
        #expect(try env.read { txn in try txn.value(forKey: [1], in: db) } == [2])
    }

    @Test func theMapGrowsWhenAWriteFillsIt() throws {
        let db = try database()
        let initial = env.currentMapSize
        let value = [UInt8](repeating: 0xAB, count: 1000)
        // ~8 MB into a 1 MiB map, in one transaction: the write must be retried after growth.
        try env.write { txn in
            for i in 0..<8_000 { try txn.put(value, forKey: withUnsafeBytes(of: UInt32(i).bigEndian, Array.init), in: db) }
        }
        #expect(env.currentMapSize > initial)
        #expect(try env.read { txn in try txn.count(in: db) } == 8_000)
    }

    @Test func aSavepointThatThrowsUndoesOnlyItsOwnWrites() throws {
        struct Boom: Error {}
        let db = try database()
        try env.write { txn in
            try txn.put([1], forKey: [1], in: db)
            _ = try? txn.savepoint { nested in
                try nested.put([2], forKey: [2], in: db)
                throw Boom()
            }
            try txn.savepoint { nested in try nested.put([3], forKey: [3], in: db) }
        }
        let keys = try env.read { txn in
            try txn.withCursor(db) { cursor in
                var keys: [[UInt8]] = []
                var more = try cursor.first()
                while more { keys.append(cursor.key); more = try cursor.next() }
                return keys
            }
        }
        #expect(keys == [[1], [3]])
    }

    @Test func cursorsIterateSortedDuplicatesAndRanges() throws {
        let db = try database("dups", options: .sortedDuplicates)
        try env.write { txn in
            for (key, value) in [(2, 9), (1, 5), (2, 3), (3, 1), (2, 7)] as [(UInt8, UInt8)] {
                try txn.put([value], forKey: [key], in: db)
            }
        }
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                #expect(try cursor.seek(exactly: [2]))
                #expect(try cursor.duplicateCount() == 3)
                var values: [UInt8] = []
                var more = true
                while more { values += cursor.value; more = try cursor.nextDuplicate() }
                #expect(values == [3, 7, 9])
                #expect(try cursor.seek(key: [2], valueAtLeast: [4]))
                #expect(cursor.value == [7])
                #expect(try cursor.seek(atLeast: [0]))
                #expect(cursor.key == [1])
                #expect(try cursor.seek(atLeast: [4]) == false)
                #expect(try cursor.last())
                cursor.withCurrent { key, value in
                    #expect(key.count == 1 && key[0] == 3)
                    #expect(value[0] == 1)
                }
            }
        }
        let deleted = try env.write { txn in try txn.delete([2], value: [7], in: db) }
        #expect(deleted)
        #expect(try env.read { txn in try txn.count(in: db) } == 4)
    }

    @Test func sharedReturnsOneInstancePerDirectory() throws {
        let other = try TemporaryDirectory("lmdb-shared")
        let a = try Environment.shared(path: other.path)
        let b = try Environment.shared(path: other.path + "/.")
        #expect(a === b)
    }

    @Test func aSecondWriterTimesOutWithABusyError() throws {
        let other = try TemporaryDirectory("lmdb-busy")
        var options = Environment.Options()
        options.writeLockTimeout = 0.2
        let env = try Environment.shared(path: other.path, options: options)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread.detachedResult {
            try env.write { _ in holding.signal(); release.wait() }
        }
        holding.wait()
        do {
            try env.write { _ in }
            Issue.record("expected a busy error")
        } catch let error as LMDBError {
            #expect(error.isBusy)
            #expect(error.description.contains(other.url.lastPathComponent))
        }
        release.signal()
        _ = holder
    }
}

@Suite struct MapGrowthTests {
    @Test func aWriteThatMustGrowTheMapInsideAReadOnTheSameThreadFailsInsteadOfDeadlocking() throws {
        let dir = try TemporaryDirectory("lmdb-grow")
        var options = Environment.Options()
        options.mapSize = 1 << 20
        let env = try Environment(path: dir.path, options: options)
        let db = try env.write { txn in try #require(try txn.openDatabase("db", options: .create)) }
        let value = [UInt8](repeating: 1, count: 4000)
        do {
            try env.read { _ in
                try env.write { txn in
                    for i in 0..<1_000 { try txn.put(value, forKey: withUnsafeBytes(of: UInt32(i).bigEndian, Array.init), in: db) }
                }
            }
            Issue.record("expected MDB_MAP_FULL")
        } catch let error as LMDBError {
            #expect(error.isMapFull)
            #expect(error.context.contains("another transaction open"))
        }
        // Outside the read, the same write grows the map and succeeds.
        try env.write { txn in
            for i in 0..<1_000 { try txn.put(value, forKey: withUnsafeBytes(of: UInt32(i).bigEndian, Array.init), in: db) }
        }
        #expect(try env.read { txn in try txn.count(in: db) } == 1_000)
    }
}
