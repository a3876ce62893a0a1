import LMDB
import StrataStorage

/// Records looked up by key in a records database larger than the processor's caches, their pages
/// prefetched a few keys ahead (``ReadTransaction/prefetchStoredBytes(forKey:in:)``): each look-up
/// there waits on its page several times over, one read after another, and pages asked for
/// together arrive together. Nothing changes for a smaller database, and no result changes: a
/// prefetch is a hint.
extension QueryExecutor {
    /// How many keys are read ahead of the look-ups, their pages prefetched together.
    package static var prefetchBatch: Int { 8 }

    /// True when the records' look-ups are prefetched (``ReadTransaction/prefetchesStoredBytes(in:)``).
    var prefetchesRecords: Bool { transaction.prefetchesStoredBytes(in: records) }

    /// Hints the processor to load the page of `key`'s record.
    @inline(__always)
    func prefetch(_ key: [UInt8]) {
        key.withUnsafeBytes { transaction.prefetchStoredBytes(forKey: $0, in: records) }
    }
}

/// The entries of an index walk or merge, handed on in order with their records.
///
/// While the entries' keys ascend, their records lie in pages one after another, which the
/// processor reads ahead itself: each entry is looked up as it comes (all of them when the walk
/// reads one stored key of the index, whose primary keys ascend). Once a key comes out of
/// order, when the records' look-ups are prefetched (``QueryExecutor/prefetchesRecords``), entries
/// are held back in batches of ``QueryExecutor/prefetchBatch`` whose pages are prefetched together
/// (unless the batch's keys ascend), then looked up. A walk stopped by its receiver then reads at
/// most a batch of entries more than it hands on, and looks up no record it does not hand on.
struct PrefetchedCandidates {
    private let executor: QueryExecutor
    /// True while entries are looked up as they come: keys ascending so far, or no prefetching.
    private var direct = true
    private let prefetching: Bool
    /// The previous key while `direct` and `prefetching` (a copy: the walk reuses its arrays).
    private var previous: [UInt8] = []
    private var pending: [(key: [UInt8], cutKey: [UInt8]?)] = []
    private var bytes: [UInt8] = []
    /// True once the receiver asked to stop.
    private(set) var stopped = false

    /// The entries of a walk or merge of `executor`'s plan; `inKeyOrder` when their keys are known
    /// to ascend (``QueryPlan/IndexCondition/readsOneKey(ofFields:)``), so that none is held back.
    init(_ executor: QueryExecutor, inKeyOrder: Bool) {
        self.executor = executor
        prefetching = !inKeyOrder && executor.prefetchesRecords
    }

    /// Hands on the entry of `key` (with its index key when cut), or holds it back until its batch
    /// is full; false when the receiver asked to stop.
    mutating func add(_ key: [UInt8], cutKey: [UInt8]?, to candidate: ([UInt8], [UInt8], [UInt8]?) throws -> Bool) throws -> Bool {
        if direct {
            if prefetching {
                if previous.isEmpty || Self.precedes(previous, key) {
                    Self.copy(key, into: &previous)
                } else {
                    direct = false
                    pending.reserveCapacity(QueryExecutor.prefetchBatch)
                }
            }
            if direct {
                guard try executor.record(key, into: &bytes) else { return true }
                stopped = try !candidate(key, bytes, cutKey)
                return !stopped
            }
        }
        pending.append((key, cutKey))
        guard pending.count == QueryExecutor.prefetchBatch else { return true }
        return try flush(to: candidate)
    }

    /// Prefetches the held-back entries' pages (unless their keys ascend), then looks their
    /// records up and hands them on; false when the receiver asked to stop (the rest are dropped).
    @discardableResult
    mutating func flush(to candidate: ([UInt8], [UInt8], [UInt8]?) throws -> Bool) throws -> Bool {
        defer { pending.removeAll(keepingCapacity: true) }
        guard !stopped else { return false }
        if !zip(pending, pending.dropFirst()).allSatisfy({ Self.precedes($0.key, $1.key) }) {
            for entry in pending { executor.prefetch(entry.key) }
        }
        for entry in pending {
            guard try executor.record(entry.key, into: &bytes) else { continue }
            guard try candidate(entry.key, bytes, entry.cutKey) else {
                stopped = true
                return false
            }
        }
        return true
    }

    /// True when key `a` sorts before key `b` (LMDB's order: bytewise).
    @inline(__always)
    private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in KeyOrder.compare(a, b) < 0 } }
    }

    /// Makes `target` a copy of `key`, in its own storage (the walk's array is reused for the next entry).
    @inline(__always)
    private static func copy(_ key: [UInt8], into target: inout [UInt8]) {
        guard target.count == key.count else {
            target = Array(unsafeUninitializedCapacity: key.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: key)
            }
            return
        }
        target.withUnsafeMutableBytes { target in key.withUnsafeBytes { target.copyMemory(from: $0) } }
    }
}

extension QueryPlan.IndexCondition {
    /// True when a forward walk of an index of `fieldCount` fields for the condition reads the
    /// entries of one stored key, whose primary keys ascend: one value on every field (the
    /// primary key's range after them or not).
    func readsOneKey(ofFields fieldCount: Int) -> Bool {
        switch self {
        case .points(let values):
            return fieldCount == 1 && values.count == 1
        case .compound(let leading, let next):
            guard leading.allSatisfy({ $0.count == 1 }) else { return false }
            if leading.count == fieldCount { return true }
            guard leading.count + 1 == fieldCount, case .points(let values) = next else { return false }
            return values.count == 1
        default:
            return false
        }
    }
}
