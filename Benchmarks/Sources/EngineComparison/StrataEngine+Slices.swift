import Foundation
import Strata

extension StrataEngine {
    /// The side-by-side figures as slices (`side-by-side --engine strata --serve-slices`), on the
    /// store ``runComparison`` would measure, filled once by ``insertAll()`` and checked.
    /// Each figure calls the engine's own measured method on a part of the workload:
    /// - `insert`: OPERATIONS records upserted in one write transaction (durable commit); before the
    ///   slice, untimed, the same records are deleted, so each slice inserts them again;
    /// - `pointReads`, `pointReadsBatched` (batches of 10,000), `pointReadsOwnTransaction`: the next
    ///   OPERATIONS keys of the shuffled read order;
    /// - `scanAll`, `scanStreaming`: OPERATIONS full scans (units: the records decoded).
    public func sliceFigures(workload: Workload) throws -> [SliceFigure] {
        try insertAll()
        try verifyContents()
        let count = workload.count
        var reads = SliceCursor(count: count)
        func keys(_ n: Int) -> ArraySlice<Int64> { workload.readOrder[reads.nextRange(n)] }
        return [
            .reinsert(name: "insert", store: store, records: records),
            SliceFigure(name: "pointReads", maxOperations: count) { n in try self.readPoints(keys(n)); return n },
            SliceFigure(name: "pointReadsBatched", maxOperations: count) { n in
                try self.readPointsBatched(keys(n), batchSize: 10_000)
                return n
            },
            SliceFigure(name: "pointReadsOwnTransaction", maxOperations: count) { n in
                try self.readPointsOneTransactionEach(keys(n))
                return n
            },
            SliceFigure(name: "scanAll", unitsPerOperation: count) { n in
                for _ in 0..<n { try self.scanAll() }
                return n * count
            },
            SliceFigure(name: "scanStreaming", unitsPerOperation: count) { n in
                for _ in 0..<n { try self.scanStreaming() }
                return n * count
            },
        ]
    }
}

extension SliceFigure {
    /// OPERATIONS of `records` upserted in one write transaction (durable commit); before the slice,
    /// untimed, the same records are deleted, so that each slice inserts them again (into the store's
    /// indexes too) and the store keeps its size. The batches follow one another through `records`.
    public static func reinsert<T: Record>(name: String, store: Store, records: [T]) -> SliceFigure {
        var writes = SliceCursor(count: records.count)
        var batch: Range<Int> = 0..<0
        return SliceFigure(name: name, maxOperations: records.count, prepare: { n in
            batch = writes.nextRange(n)
            let keys = records[batch].map { $0[keyPath: T.primaryKey] }
            let deleted = try store.write { tx in try tx.delete(T.self, keys: keys) }
            guard deleted == n else { throw ComparisonError("\(name): deleted \(deleted) of \(n) records before an upsert slice") }
        }, run: { n in
            try store.write { tx in try tx.upsert(records[batch]) }
            return n
        })
    }
}
