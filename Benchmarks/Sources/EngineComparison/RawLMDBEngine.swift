import Foundation
import LMDB
import Strata

/// LMDB alone, through Strata's own `LMDB` library (the wrapper and checks Strata reads through):
/// the physical limit of point reads and full scans. Each user is stored under its id as 8
/// big-endian bytes, with exactly the bytes Strata stores for it (its CBOR record of `BenchUser`,
/// taken from a Strata store before the measurements). Reads copy the bytes out and decode nothing.
public final class RawLMDBEngine: ComparedEngine {
    public let name = EngineKind.lmdb.name
    public let settings = "LMDB through Strata's `LMDB` library, default environment options (MDB_NOTLS, the map grows "
        + "from 1 GiB), durable commits (fsync); key: the id as 8 big-endian bytes, value: Strata's record bytes for "
        + "the user; point reads copy the value into one reused buffer (`copyValue(forKey:in:into:)`), the scan "
        + "copies each value (`Cursor.forEachEntry`); nothing decoded, no indexes"
    public let operations: Set<Operation> = [.pointReads, .pointReadsOwnTransaction, .scanStreaming]

    let directory: ScratchDirectory
    let environment: Environment
    let database: Database
    /// The users' ids, ascending, and Strata's bytes for each.
    let ids: [Int64]
    let values: [[UInt8]]

    public init(workload: Workload) throws {
        ids = workload.users.map(\.id).sorted()
        values = try Self.strataRecordBytes(workload.users.map(BenchUser.init))
        guard values.count == ids.count else {
            throw ComparisonError("raw LMDB: Strata stored \(values.count) records for \(ids.count) users")
        }
        directory = try ScratchDirectory(prefix: "lmdb-bench")
        environment = try Environment(path: directory.path)
        database = try environment.write { txn in
            guard let database = try txn.openDatabase("users", options: .create) else { throw ComparisonError("raw LMDB: no database") }
            return database
        }
    }

    /// Each record's bytes as Strata stores them, in primary-key (id) order: upserted into a
    /// scratch Strata store, then read from its records database with a cursor.
    static func strataRecordBytes(_ users: [BenchUser]) throws -> [[UInt8]] {
        let scratch = try ScratchDirectory(prefix: "lmdb-bench-encode")
        defer { scratch.remove() }
        let path = scratch.url.appendingPathComponent("store").path
        try Store(path: path).write { tx in _ = try tx.upsert(users) }
        return try Environment.shared(path: path).read { txn in
            guard let records = try txn.openDatabase("records/BenchUser") else {
                throw ComparisonError("raw LMDB: the Strata store has no database records/BenchUser")
            }
            var values: [[UInt8]] = []
            try txn.withCursor(records) { cursor in
                var more = try cursor.first()
                while more {
                    values.append(cursor.value)
                    more = try cursor.next()
                }
            }
            return values
        }
    }

    static func key(_ id: Int64) -> [UInt8] { withUnsafeBytes(of: id.bigEndian) { Array($0) } }

    public func insertAll() throws {
        try environment.write { txn in
            for (id, value) in zip(ids, values) { try txn.put(value, forKey: Self.key(id), in: database) }
        }
    }

    public func verifyContents() throws {
        let count = try environment.read { txn in try txn.count(in: database) }
        try check(count == ids.count, "\(count) records after the puts, expected \(ids.count)")
        let middle = ids.count / 2
        let read = try environment.read { txn in try txn.value(forKey: Self.key(ids[middle]), in: database) }
        try check(read == values[middle], "a value read back differs from the one written")
    }

    /// Copies the value of `key` into `buffer`; false when absent.
    func copy(_ key: Int64, _ txn: Transaction, into buffer: inout [UInt8]) throws -> Bool {
        try withUnsafeBytes(of: key.bigEndian) { key in try txn.copyValue(forKey: key, in: database, into: &buffer) }
    }

    public func readPoints(_ keys: ArraySlice<Int64>) throws {
        let (found, bytes) = try environment.read { txn in
            var buffer: [UInt8] = []
            var found = 0, bytes = 0
            for key in keys where try copy(key, txn, into: &buffer) {
                found += 1
                bytes += buffer.count
            }
            return (found, bytes)
        }
        try check(found == keys.count && bytes > 0, "found \(found) of \(keys.count) keys")
    }

    public func readPointsOneTransactionEach(_ keys: ArraySlice<Int64>) throws {
        var buffer: [UInt8] = []
        var found = 0, bytes = 0
        for key in keys where try environment.read({ txn in try copy(key, txn, into: &buffer) }) {
            found += 1
            bytes += buffer.count
        }
        try check(found == keys.count && bytes > 0, "found \(found) of \(keys.count) keys")
    }

    public func scanStreaming() throws {
        let (seen, bytes) = try environment.read { txn in
            try txn.withCursor(database) { cursor in
                var buffer: [UInt8] = []
                var seen = 0, bytes = 0
                guard try cursor.first() else { return (0, 0) }
                try cursor.forEachEntry(buffer: &buffer) { _, value in
                    seen += 1
                    bytes += value.count
                    return true
                }
                return (seen, bytes)
            }
        }
        try check(seen == ids.count && bytes > 0, "the scan saw \(seen) records, expected \(ids.count)")
    }

    public func readPointsBatched(_ keys: ArraySlice<Int64>, batchSize: Int) throws { throw notMeasured(.pointReadsBatched) }
    public func scanAll() throws { throw notMeasured(.scanAll) }

    public func databaseSize() -> Int { ScratchDirectory.size(of: directory.url) }

    public func close() { directory.remove() }
}
