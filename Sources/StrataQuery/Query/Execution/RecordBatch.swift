/// The entries of an index scan whose records are read a batch at a time in primary-key order
/// and handed on in the scan's order. An index's entries in the order of their index keys point
/// at records all over the records database; reading them in key order descends the B-tree along
/// neighbouring paths, which the caches still hold, instead of one cold path per record.
struct RecordBatch {
    /// The most entries read ahead of the one handed on.
    static var capacity: Int { 64 }

    private var primaryKeys: [[UInt8]] = []
    private var cutKeys: [[UInt8]?] = []
    private var records: [[UInt8]] = []
    private var found: [Bool] = []
    private var order: [Int] = []

    var count: Int { primaryKeys.count }

    mutating func append(_ primaryKey: [UInt8], cutKey: [UInt8]?) {
        primaryKeys.append(primaryKey)
        cutKeys.append(cutKey)
    }

    /// Reads the held entries' records in primary-key order, then calls `candidate` with each
    /// entry that has one, in the order they were appended, until it returns false; empties the
    /// batch. Returns false when `candidate` did.
    mutating func flush(_ executor: QueryExecutor, _ candidate: ([UInt8], [UInt8], _ cutKey: [UInt8]?) throws -> Bool) throws -> Bool {
        let count = primaryKeys.count
        guard count > 0 else { return true }
        defer {
            primaryKeys.removeAll(keepingCapacity: true)
            cutKeys.removeAll(keepingCapacity: true)
        }
        while records.count < count { records.append([]) }
        if found.count < count { found += repeatElement(false, count: count - found.count) }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: 0..<count)
        if count > 1 { order.sort { primaryKeys[$0].lexicographicallyPrecedes(primaryKeys[$1]) } }
        for index in order { found[index] = try executor.record(primaryKeys[index], into: &records[index]) }
        executor.recordsRead += count
        for index in 0..<count where found[index] {
            guard try candidate(primaryKeys[index], records[index], cutKeys[index]) else { return false }
        }
        return true
    }
}
