import Dataset
import Foundation
import Strata

/// Strata with its defaults: one LMDB environment in a fresh directory, durable commits (fsync).
public final class StrataEngine: ComparedEngine {
    public let name = EngineKind.strata.name
    public let settings: String = StrataEngine.settingsLine(records: "`BenchUser` through `FieldCodable`", indexes: "none (primary key only)")

    /// Strata's settings line: its defaults, which no benchmark changes; `records` names the record
    /// type and its coding (`FieldCodable`, or the synthesized `Codable`).
    public static func settingsLine(records: String, indexes: String) -> String {
        "Strata defaults on LMDB: durable commits (`durability: .synchronous`, fsync at every commit), no page cache "
            + "of its own (LMDB's read-only memory map: the OS page cache), records \(records), scans decoded on "
            + "its decode executor (across the cores the process may use), no prepared statements (a query of a shape planned "
            + "before runs the access path its store kept for the shape, estimated for its constants unless no other path "
            + "could read less, while that choice holds), records found through an index looked up a batch ahead, their "
            + "pages prefetched, once keys come out of order in a records database of 32 MiB of leaf pages or more, indexes: \(indexes)"
    }

    let directory: ScratchDirectory
    let store: Store
    let records: [BenchUser]

    public init(workload: Workload) throws {
        directory = try ScratchDirectory(prefix: "strata-bench")
        store = try Store(path: directory.url.appendingPathComponent("store").path)
        records = workload.users.map(BenchUser.init)
    }

    public func insertAll() throws {
        try store.write { tx in try tx.upsert(records) }
    }

    public func verifyContents() throws {
        let count = try store.read { tx in try tx.count(BenchUser.self) }
        try check(count == records.count, "\(count) records after upsert, expected \(records.count)")
        try check(
            try store.read { tx in try tx.get(BenchUser.self, key: records[records.count / 2].id) } == records[records.count / 2],
            "a record read back differs from the one written")
    }

    public func readPoints(_ keys: ArraySlice<Int64>) throws {
        let found = try store.read { tx in
            var found = 0
            for key in keys where try tx.get(BenchUser.self, key: key) != nil { found += 1 }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsBatched(_ keys: ArraySlice<Int64>, batchSize: Int) throws {
        let found = try store.read { tx in
            var found = 0
            var start = keys.startIndex
            while start < keys.endIndex {
                let end = min(start + batchSize, keys.endIndex)
                found += try tx.get(BenchUser.self, keys: keys[start..<end]).count
                start = end
            }
            return found
        }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func readPointsOneTransactionEach(_ keys: ArraySlice<Int64>) throws {
        var found = 0
        for key in keys where try store.read({ tx in try tx.get(BenchUser.self, key: key) }) != nil { found += 1 }
        try check(found == keys.count, "found \(found) of \(keys.count) keys")
    }

    public func scanAll() throws {
        let all = try store.read { tx in try tx.all(BenchUser.self) }
        try check(all.count == records.count, "scan returned \(all.count) records, expected \(records.count)")
    }

    public func scanStreaming() throws {
        var seen = 0
        var scoreSum = 0.0
        try store.read { tx in
            try tx.forEach(BenchUser.self) { user in
                seen += 1
                scoreSum += user.score   // touch the decoded record so the work can't be elided
            }
        }
        try check(seen == records.count && scoreSum >= 0, "streaming scan saw \(seen) records, expected \(records.count)")
    }

    public func databaseSize() -> Int {
        ScratchDirectory.size(of: directory.url.appendingPathComponent("store"))
    }

    public func close() {
        directory.remove()
    }
}
