import Dataset
import Foundation

/// The one dataset both engines get: the same users, and the same shuffled order of point reads.
///
/// Building it (generation, conversion to each engine's record type, the shuffle) is never part
/// of a measurement.
public struct Workload: Sendable {
    public let users: [GeneratedUser]
    /// Every id once, in an order shuffled by `SplitMix64` from the seed: the point-read order.
    public let readOrder: [Int64]
    public let seed: UInt64

    public init(count: Int, seed: UInt64 = 42) {
        self.seed = seed
        users = Array(UserGenerator(count: count, seed: seed))
        var keys = users.map(\.id)
        var rng = SplitMix64(seed: seed ^ 0x5EED_0F_7E_AD5)
        rng.shuffle(&keys)
        readOrder = keys
    }

    public var count: Int { users.count }
}

/// A fresh directory under the system temporary directory; removed by `remove()`.
public struct ScratchDirectory: Sendable {
    public let url: URL

    public init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Bytes allocated on disk to the files directly inside `directory` (the database files).
    /// Allocated, not apparent: a sparse or preallocated map file counts only what is written.
    public static func size(of directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            var info = stat()
            guard stat(directory.appendingPathComponent(name).path, &info) == 0 else { return total }
            return total + Int(info.st_blocks) * 512
        }
    }
}

/// A benchmark result that does not match the dataset: a bug, never a slow run.
public struct ComparisonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The measurements every engine implements. Each engine owns one database in its own scratch
/// directory, holds the workload's users converted to its own record type, and checks that
/// every operation saw exactly the records it should (so a fast wrong answer can't win).
/// ``EngineKind/make(workload:)`` prepares one (an empty database, the users converted: not measured).
public protocol ComparedEngine: AnyObject {
    /// The engine's column in the tables: "Strata", "SQLite-C", "GRDB pool NORMAL", …
    var name: String { get }

    /// The settings it runs with, read back from the open database where it can tell them:
    /// journal mode, synchronous, cache size, statement caching, indexes.
    var settings: String { get }

    /// The operations it measures; the tables show "–" for the others (raw LMDB has no upsert of
    /// records, no many-keys call and no decoding). ``insertAll()`` always runs, to fill the database.
    var operations: Set<Operation> { get }

    /// Upserts every user in one write transaction.
    func insertAll() throws

    /// Checks, outside any measurement, that the database holds exactly the users, unchanged.
    func verifyContents() throws

    /// Reads each key of `keys` by primary key inside one read transaction, decoding each record.
    func readPoints(_ keys: ArraySlice<Int64>) throws

    /// Reads the keys in batches of `batchSize` through the engine's many-keys call
    /// (Strata `get(_:keys:)`, SQL `WHERE id IN (?, …)` prepared once per batch size), inside one read transaction.
    func readPointsBatched(_ keys: ArraySlice<Int64>, batchSize: Int) throws

    /// Reads each key of `keys` in a read transaction of its own.
    func readPointsOneTransactionEach(_ keys: ArraySlice<Int64>) throws

    /// Decodes every record into an array.
    func scanAll() throws

    /// Decodes every record one at a time, without building an array.
    func scanStreaming() throws

    /// Bytes on disk.
    func databaseSize() -> Int

    /// Deletes the database directory.
    func close()
}

extension ComparedEngine {
    public var operations: Set<Operation> { Set(Operation.allCases) }

    func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ComparisonError("\(name): \(message())") }
    }

    /// An operation outside ``operations``: never called by the comparison.
    func notMeasured(_ operation: Operation) -> ComparisonError {
        ComparisonError("\(name) does not measure '\(operation.rawValue)'")
    }
}
