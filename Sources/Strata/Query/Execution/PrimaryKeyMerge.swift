import LMDB

/// Primary keys from several sorted sources, merged into one ascending stream without repeats
/// (a k-way merge on a binary heap): an IN list or an OR of equalities yields its matches in
/// primary key order without collecting and sorting them, so a LIMIT stops after a few entries.
///
/// A source is one key of an index (the duplicates of a key in an `MDB_DUPSORT` database are
/// primary keys in ascending order; a unique index holds one) or a sorted list of keys. Index
/// entries are read in chunks that grow as a source is drained, resuming each chunk with
/// `MDB_GET_BOTH_RANGE`, so one cursor at a time serves any number of sources.
struct PrimaryKeyMerge {
    enum Source {
        /// The primary keys stored under `key` in an index database.
        case duplicates(Database, key: [UInt8])
        /// Primary keys, in ascending order.
        case keys([[UInt8]])
    }

    private var streams: [Stream]
    /// Indices of streams with a current key, as a binary min-heap on those keys.
    private var heap: [Int] = []
    private var last: [UInt8]?
    private let transaction: ReadTransaction

    /// `chunk`: entries read per source at first (the query's offset + limit, say).
    init(transaction: ReadTransaction, sources: [Source], chunk: Int) throws {
        self.transaction = transaction
        streams = sources.map { Stream(source: $0, chunk: max(chunk, 16)) }
        for index in streams.indices where try streams[index].advance(transaction) { push(index) }
    }

    /// The next primary key in ascending order, or nil when every source is drained. Must be
    /// called inside the transaction's `lmdb` funnel.
    mutating func next() throws -> [UInt8]? {
        while let top = heap.first {
            let key = streams[top].current!
            if try streams[top].advance(transaction) { siftDown(0) } else { popTop() }
            if key != last {
                last = key
                return key
            }
        }
        return nil
    }

    // MARK: Heap

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        streams[a].current!.lexicographicallyPrecedes(streams[b].current!)
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

    /// One source's keys, buffered a chunk at a time.
    private struct Stream {
        let source: Source
        var chunk: Int
        var buffer: [[UInt8]] = []
        var position = 0
        /// No entries beyond the buffer.
        var drained = false
        private(set) var current: [UInt8]?

        init(source: Source, chunk: Int) {
            self.source = source
            self.chunk = chunk
            if case .keys(let keys) = source {
                buffer = keys
                drained = true
            }
        }

        /// Moves to the next key; false when there is none.
        mutating func advance(_ transaction: ReadTransaction) throws -> Bool {
            if position == buffer.count, !drained { try refill(transaction) }
            guard position < buffer.count else { current = nil; return false }
            current = buffer[position]
            position += 1
            return true
        }

        /// Reads the next chunk of duplicates after the last key read, doubling the chunk.
        private mutating func refill(_ transaction: ReadTransaction) throws {
            guard case .duplicates(let database, let key) = source else { return }
            let after = buffer.last
            let sorted = database.options.contains(.sortedDuplicates)
            var chunk = self.chunk
            var buffer = self.buffer
            buffer.removeAll(keepingCapacity: true)
            let drained = try transaction.withCursor(database) { cursor -> Bool in
                guard sorted else {
                    // A unique index: one primary key under the key.
                    if after == nil, try cursor.seek(exactly: key) { buffer.append(cursor.value) }
                    return true
                }
                var more: Bool
                if let after {
                    more = try cursor.seek(key: key, valueAtLeast: after)
                    if more, cursor.value == after { more = try cursor.nextDuplicate() }
                } else {
                    more = try cursor.seek(exactly: key)
                }
                while more, buffer.count < chunk {
                    buffer.append(cursor.value)
                    more = try cursor.nextDuplicate()
                }
                return !more
            }
            chunk = min(chunk * 2, 1 << 14)
            self.chunk = chunk
            self.buffer = buffer
            self.drained = drained
            position = 0
        }
    }
}
