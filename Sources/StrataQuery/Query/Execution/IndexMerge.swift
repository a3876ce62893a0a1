@_spi(Format) import StrataFormat
import LMDB

/// Sorted streams of index entries merged into one ordered stream without repeats (a k-way merge
/// on a binary heap), so that a LIMIT stops after a few entries instead of collecting and
/// sorting every match:
///
/// - primary keys from several sorted sources, into ascending primary key order (an IN list or
///   an OR of equalities: ``QueryPlan/Merge/primaryKey``);
/// - the stretches of a compound index under each combination of its leading values, into the
///   order of the rest of the key, then primary key (`lastName IN {…} ORDER BY luckyNumber` on
///   an index of both fields: ``QueryPlan/Merge/laterFields(after:)``), ascending or descending.
///
/// Entries are read in chunks that grow as a source is drained, each chunk resuming after the
/// last entry read (`MDB_GET_BOTH_RANGE` on its key and value), so one cursor at a time serves
/// any number of sources.
///
/// The part of a stretch's key that orders it is compared cut to one length for every stretch:
/// ``IndexKey/maxLength`` less the longest leading part. Keys cut when stored end within it, so
/// entries whose ordering parts agree up to that length are delivered together, marked by that
/// part (``Entry/runKey``), for the executor to re-sort by their records' values, as it does the
/// entries of one cut key of a walk.
package struct IndexMerge {
    package enum Source {
        /// The primary keys stored under `key` in an index database, ascending (its sorted
        /// duplicates, or the one entry of a unique index).
        case duplicates(Database, key: [UInt8])
        /// Primary keys, in ascending order.
        case keys([[UInt8]])
        /// The entries of one stretch of an index, ordered by the part of their keys after the
        /// first `leadingLength` bytes, then primary key.
        case stretch(Database, KeyBounds, leadingLength: Int)
    }

    /// One merged entry.
    package struct Entry {
        package var primaryKey: [UInt8]
        /// For a stretch's entry whose ordering part reaches the common cut length: that part,
        /// shared by the entries delivered with it whose values may order differently. Nil
        /// otherwise.
        package var runKey: [UInt8]?
    }

    private var streams: [Stream]
    /// Indices of streams with a current entry, as a binary min-heap on those entries.
    private var heap: [Int] = []
    private var last: [UInt8]?
    private let transaction: ReadTransaction
    private let descending: Bool
    /// Some source is a stretch: entries compare by their ordering part first.
    private let ordersByStretch: Bool

    /// `chunk`: entries read per source at first (the query's offset + limit, say).
    /// `descending`: stretches are walked and merged from their last keys down (ties still in
    /// ascending primary key order); primary key sources are always ascending.
    package init(transaction: ReadTransaction, sources: [Source], chunk: Int, descending: Bool = false) throws {
        self.transaction = transaction
        self.descending = descending
        let longestLeading = sources.reduce(0) { longest, source in
            if case .stretch(_, _, let leading) = source { max(longest, leading) } else { longest }
        }
        let orderLength = max(1, IndexKey.maxLength - longestLeading)
        ordersByStretch = sources.contains { if case .stretch = $0 { true } else { false } }
        streams = sources.map { Stream(source: $0, chunk: max(chunk, 16), orderLength: orderLength, descending: descending) }
        for index in streams.indices where try streams[index].advance(transaction) { push(index) }
    }

    /// The next primary key in order, or nil when every source is drained. Must be called inside
    /// the transaction's `lmdb` funnel.
    package mutating func next() throws -> [UInt8]? { try nextEntry()?.primaryKey }

    /// The next entry in order, or nil when every source is drained. Must be called inside the
    /// transaction's `lmdb` funnel.
    package mutating func nextEntry() throws -> Entry? {
        while let top = heap.first {
            let primaryKey = streams[top].currentPrimaryKey
            let runKey = streams[top].currentIsRun ? streams[top].currentOrder : nil
            if try streams[top].advance(transaction) { siftDown(0) } else { popTop() }
            if last.map({ !OrderedKey.equal($0, primaryKey) }) ?? true {
                last = primaryKey
                return Entry(primaryKey: primaryKey, runKey: runKey)
            }
        }
        return nil
    }

    // MARK: Heap

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        if ordersByStretch, !OrderedKey.equal(streams[a].currentOrder, streams[b].currentOrder) {
            return descending ? OrderedKey.precedes(streams[b].currentOrder, streams[a].currentOrder)
                              : OrderedKey.precedes(streams[a].currentOrder, streams[b].currentOrder)
        }
        return OrderedKey.precedes(streams[a].currentPrimaryKey, streams[b].currentPrimaryKey)
    }

    private mutating func push(_ stream: Int) {
        heap.append(stream)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    // MARK: Streams

    /// One source's entries, buffered a chunk at a time: each entry's ordering part (none for
    /// primary key sources), primary key, and whether it is a run (``Entry/runKey``).
    private struct Stream {
        let source: Source
        var chunk: Int
        let orderLength: Int
        let descending: Bool
        var orders: [[UInt8]] = []
        var primaryKeys: [[UInt8]] = []
        var runs: [Bool] = []
        var position = 0
        /// No entries beyond the buffer.
        var drained = false
        /// The last entry read from the index (its whole key and value), where the next chunk resumes.
        var resume: (key: [UInt8], value: [UInt8])?
        private(set) var currentOrder: [UInt8] = []
        private(set) var currentPrimaryKey: [UInt8] = []
        private(set) var currentIsRun = false

        init(source: Source, chunk: Int, orderLength: Int, descending: Bool) {
            self.source = source
            self.chunk = chunk
            self.orderLength = orderLength
            self.descending = descending
            if case .keys(let keys) = source {
                primaryKeys = keys
                drained = true
            }
        }

        /// Moves to the next entry; false when there is none.
        mutating func advance(_ transaction: ReadTransaction) throws -> Bool {
            if position == primaryKeys.count, !drained { try refill(transaction) }
            guard position < primaryKeys.count else { return false }
            currentPrimaryKey = primaryKeys[position]
            if !orders.isEmpty {
                currentOrder = orders[position]
                currentIsRun = runs[position]
            }
            position += 1
            return true
        }

        /// Reads the next chunk after the last entry read, doubling the chunk.
        private mutating func refill(_ transaction: ReadTransaction) throws {
            orders.removeAll(keepingCapacity: true)
            primaryKeys.removeAll(keepingCapacity: true)
            runs.removeAll(keepingCapacity: true)
            position = 0
            switch source {
            case .keys: drained = true
            case .duplicates(let database, let key):
                drained = try transaction.withCursor(database) { try readDuplicates(of: key, database, $0) }
            case .stretch(let database, let bounds, let leading):
                drained = try transaction.withCursor(database) { cursor in
                    descending ? try readBackward(bounds, leading: leading, database, cursor)
                               : try readForward(bounds, leading: leading, database, cursor)
                }
            }
            chunk = min(chunk * 2, 1 << 14)
        }

        /// The next primary keys under one key; true when it has no more.
        private mutating func readDuplicates(of key: [UInt8], _ database: Database, _ cursor: Cursor) throws -> Bool {
            guard database.options.contains(.sortedDuplicates) else {
                // A unique index: one primary key under the key.
                if resume == nil, try cursor.seek(exactly: key) { primaryKeys.append(cursor.value) }
                resume = ([], [])
                return true
            }
            var more: Bool
            if let resume {
                more = try cursor.seek(key: key, valueAtLeast: resume.value)
                if more, cursor.value == resume.value { more = try cursor.nextDuplicate() }
            } else {
                more = try cursor.seek(exactly: key)
            }
            while more, primaryKeys.count < chunk {
                primaryKeys.append(cursor.value)
                more = try cursor.nextDuplicate()
            }
            if let last = primaryKeys.last { resume = (key, last) }
            return !more
        }

        /// The next entries of a stretch in key order; true when it has no more.
        private mutating func readForward(_ bounds: KeyBounds, leading: Int, _ database: Database, _ cursor: Cursor) throws -> Bool {
            var more: Bool
            if let resume {
                if database.options.contains(.sortedDuplicates) {
                    more = try cursor.seek(key: resume.key, valueAtLeast: resume.value)
                    if more, cursor.value == resume.value { more = try cursor.next() }
                } else {
                    more = try cursor.seek(atLeast: resume.key)
                    if more, cursor.key == resume.key { more = try cursor.next() }
                }
            } else {
                more = try bounds.start.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
            }
            while more, primaryKeys.count < chunk {
                switch cursor.withCurrent({ key, _ in bounds.verdict(key) }) {
                case .stop: return true
                case .skip: break
                case .take: take(key: cursor.key, value: cursor.value, leading: leading)
                }
                more = try cursor.next()
            }
            return !more
        }

        /// The next entries of a stretch with keys in descending order, each key's primary keys
        /// ascending; true when it has no more.
        private mutating func readBackward(_ bounds: KeyBounds, leading: Int, _ database: Database, _ cursor: Cursor) throws -> Bool {
            let sorted = database.options.contains(.sortedDuplicates)
            // The first value of the key the cursor is on, sought anew: after `MDB_LAST` the
            // cursor is at its end, where `MDB_NEXT_DUP` finds nothing even among duplicates.
            func firstValue() throws -> Bool { sorted ? try cursor.seek(exactly: cursor.key) : true }
            // The first value of the key before `key`.
            func keyBefore(_ key: [UInt8]) throws -> Bool {
                guard try cursor.seek(exactly: key), try cursor.previous() else { return false }
                return try firstValue()
            }
            var more: Bool
            if let resume {
                if sorted {
                    more = try cursor.seek(key: resume.key, valueAtLeast: resume.value)
                    if more, cursor.value == resume.value { more = try cursor.nextDuplicate() }
                    if !more { more = try keyBefore(resume.key) }
                } else {
                    more = try keyBefore(resume.key)
                }
            } else {
                if let end = bounds.backwardStart, try cursor.seek(atLeast: end) {
                    more = try cursor.previous()
                } else {
                    more = try cursor.last()
                }
                if more { more = try firstValue() }
            }
            while more, primaryKeys.count < chunk {
                let key = cursor.key
                // Keys passed over (an exclusive lower bound) come last going down.
                guard bounds.backwardVerdict(key) == .take else { return true }
                take(key: key, value: cursor.value, leading: leading)
                more = sorted ? try cursor.nextDuplicate() : false
                if !more { more = try keyBefore(key) }
            }
            return !more
        }

        /// Buffers one entry of a stretch, ordered by its key after `leading` bytes cut to
        /// `orderLength` (a run when that part reaches the cut, or the key itself was cut).
        private mutating func take(key: [UInt8], value: [UInt8], leading: Int) {
            let rest = max(0, key.count - leading)
            orders.append(rest > 0 ? Array(key[leading..<(leading + min(rest, orderLength))]) : [])
            primaryKeys.append(value)
            runs.append(rest >= orderLength || IndexKey.mayBeTruncated(key))
            resume = (key, value)
        }
    }
}
