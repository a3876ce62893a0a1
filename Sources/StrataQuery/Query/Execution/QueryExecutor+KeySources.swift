@_spi(Format) import StrataFormat
import LMDB

/// The primary keys an access path names without reading records: key lookups, a single-field
/// index's points merged in key order (``IndexMerge``), the keys of scans combined by a union or an
/// intersection.
extension QueryExecutor {
    /// The sorted primary key sources of an access path that `yieldsSortedKeysPerPoint`, for
    /// ``IndexMerge``.
    package func mergeSources(of access: QueryPlan.Access) -> [IndexMerge.Source] {
        switch access {
        case .indexScan(let name, let fields, .points(let values)) where fields.count == 1:
            guard let database = context.indexes[name] else { return [] }
            return IndexProbe(transaction: transaction, database: database, field: fields[0]).pointKeys(values)
                .map { .duplicates(database, key: $0) }
        case .primaryKeyLookup(_, let values):
            return [.keys(lookupKeys(values))]
        default:
            preconditionFailure("only key lookups and points of a single-field index merge")
        }
    }

    /// The distinct stored keys of primary key values, ascending. Integers already strictly
    /// ascending (a semi-join's keys) are encoded in their order, which is the keys' order,
    /// without a set or a sort.
    package func lookupKeys(_ values: [QueryValue]) -> [[UInt8]] {
        if keyKind == .integer {
            var previous = Int64.min
            var ascending = true
            for (index, value) in values.enumerated() {
                guard case .int(let integer) = value, index == 0 || integer > previous else { ascending = false; break }
                previous = integer
            }
            if ascending { return values.compactMap { IndexKey.lookupKey($0, kind: keyKind, collation: .binary) } }
        }
        return Set(values.compactMap { IndexKey.lookupKey($0, kind: keyKind, collation: .binary) }).sorted(by: OrderedKey.precedes)
    }

    /// Calls `body` with the key and bytes of each record the merged sources name, in ascending
    /// primary key order, until it returns false. Inside the transaction's `lmdb` funnel.
    func forEachMerged(_ sources: [IndexMerge.Source], _ body: ([UInt8], [UInt8]) throws -> Bool) throws {
        var merge = try IndexMerge(transaction: transaction, sources: sources, chunk: mergeChunk)
        var bytes: [UInt8] = []
        while let key = try merge.next() {
            guard try record(key, into: &bytes) else { continue }
            guard try body(key, bytes) else { return }
        }
    }

    /// The entries a merge reads from each source at first: the query's window (a source may
    /// hold all of it), or a few dozen when it has no limit; more as a source is drained.
    package var mergeChunk: Int { plan.offset + (plan.limit ?? 64) }

    /// The stored primary keys an index scan or key lookup yields, without reading records.
    package func primaryKeys(of access: QueryPlan.Access) throws -> Set<[UInt8]> {
        var keys = Set<[UInt8]>()
        switch access {
        case .indexScan(let name, let fields, let condition):
            guard let database = context.indexes[name], !fields.isEmpty else { return keys }
            try indexProbe(database, fields, for: condition).walk(condition) { _, primaryKey in
                keys.insert(primaryKey)
                return true
            }
        case .primaryKeyLookup(_, let values):
            for value in values {
                if let key = IndexKey.lookupKey(value, kind: keyKind, collation: .binary) { keys.insert(key) }
            }
        case .textSearch(let access):
            for match in try textMatches(of: access) { keys.insert(match.key) }
        case .primaryKeyRange, .fullScan, .union, .intersection:
            preconditionFailure("the planner combines only index scans, text searches and key lookups")
        }
        return keys
    }
}
