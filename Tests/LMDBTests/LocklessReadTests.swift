import Foundation
import Testing
import TestSupport
@testable import LMDB

/// A read-only environment that may not use the lock file opens without it (`MDB_NOLOCK`): it
/// creates nothing in the directory, and a read during which another writer committed twice (so
/// that it may have reused the read's pages) is an error, never an answer read from reused pages.
@Suite struct LocklessReadTests {
    /// A writer, and a read-only environment of the same file that finds no lock file (the
    /// writer's is unlinked: it keeps its open descriptor), so opens lockless.
    static func writerAndLocklessReader() throws -> (writer: Environment, reader: Environment, dir: TemporaryDirectory) {
        let dir = try TemporaryDirectory("lockless")
        let writer = try Environment(path: dir.path)
        try writer.write { txn in try txn.put([1], forKey: [1], in: try txn.openDatabase("db", options: .create)!) }
        try FileManager.default.removeItem(atPath: dir.path("lock.mdb"))
        var options = Environment.Options()
        options.readOnly = true
        let reader = try Environment(path: dir.path, options: options)
        return (writer, reader, dir)
    }

    static func put(_ value: UInt8, in writer: Environment) throws {
        try writer.write { txn in try txn.put([value], forKey: [1], in: try txn.openDatabase("db")!) }
    }

    @Test func aReadOnlyOpeningWithoutALockFileCreatesNothing() throws {
        let (writer, reader, dir) = try Self.writerAndLocklessReader()
        defer { withExtendedLifetime((writer, dir)) {} }
        #expect(reader.isLockless && !reader.isWritable)
        #expect(try reader.read { txn in try txn.value(forKey: [1], in: try txn.openDatabase("db")!) } == [1])
        #expect(!FileManager.default.fileExists(atPath: dir.path("lock.mdb")))
    }

    @Test func aLocklessReadDuringOneCommitOfAnotherWriterStands() throws {
        let (writer, reader, dir) = try Self.writerAndLocklessReader()
        defer { withExtendedLifetime(dir) {} }
        let value = try reader.read { txn in
            let database = try txn.openDatabase("db")!
            try Self.put(2, in: writer)
            return try txn.value(forKey: [1], in: database)
        }
        #expect(value == [1])
    }

    @Test func aLocklessReadDuringTwoCommitsOfAnotherWriterIsAnError() throws {
        let (writer, reader, dir) = try Self.writerAndLocklessReader()
        defer { withExtendedLifetime(dir) {} }
        let error = #expect(throws: LMDBError.self) {
            try reader.read { txn in
                let database = try txn.openDatabase("db")!
                try Self.put(2, in: writer)
                try Self.put(3, in: writer)
                return try txn.value(forKey: [1], in: database)
            }
        }
        #expect(error?.isSnapshotLost == true && error?.isBusy == true, "\(String(describing: error))")
        #expect(error?.context.contains("read again") == true, "\(String(describing: error))")
        #expect(try reader.read { txn in try txn.value(forKey: [1], in: try txn.openDatabase("db")!) } == [3])
    }
}
