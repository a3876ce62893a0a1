import LMDB

/// Decodes batches of stored records on every core, keeping their order.
///
/// A scan is bound by decoding, not by LMDB, which walks its pages in a fraction of the time. So a
/// large scan copies the raw bytes on the transaction's own thread (into one buffer per batch, see
/// ``RawBatch``) and decodes each batch of them in parallel on the store's ``DecodeExecutor``.
/// Only those copied bytes cross threads; the transaction never does. Small scans stay on one
/// thread, and so does everything when the executor's workers are busy (the calling thread takes
/// its work back, see ``DecodeTicket/reclaim()``).
package struct BatchDecoder<T: Record> {
    /// Records gathered before a batch is decoded.
    package static var batchSize: Int { 2048 }
    /// Below this many records a batch is decoded on the calling thread: the hand-off costs more.
    static var parallelThreshold: Int { 256 }

    package let fields: FieldTable
    package let entity: String
    /// The store's workers.
    package let executor: DecodeExecutor

    /// Whether any work can go to another thread.
    var isParallel: Bool { executor.threadLimit > 0 }

    /// Decodes `batch` in order. On failure, throws the error of the first record, in batch order,
    /// that failed; `describeKey` renders that record's stored key for the message.
    package func decode(_ batch: RawBatch, describeKey: ([UInt8]) -> String) throws -> [T] {
        var decoded = try decodeInOrder(batch, describeKey: describeKey)
        var records: [T] = []
        records.reserveCapacity(decoded.count)
        _ = decoded.forEach { (record: consuming T) in records.append(consume record); return true }
        return records
    }

    /// Decodes `batch` as ``decode(_:describeKey:)`` does, handing the records out one by one
    /// without copying them (see ``DecodedRecords``).
    ///
    /// A large batch is cut into one chunk per core; every chunk but the first is offered to the
    /// executor, the first is decoded here, then each other chunk is taken back and decoded here
    /// unless a worker has started it. A chunk that failed is decoded again here, so the error
    /// thrown is that of the first failing record in batch order, with its key named.
    package func decodeInOrder(_ batch: RawBatch, describeKey: ([UInt8]) -> String) throws -> DecodedRecords<T> {
        let decoder = RecordDecoder(for: T.self)
        guard isParallel, batch.count >= Self.parallelThreshold else {
            return DecodedRecords([try decodeChunk(decoder, batch, 0..<batch.count, describeKey: describeKey)])
        }
        let chunks = min(executor.threadLimit + 1, batch.count / (Self.parallelThreshold / 2))
        let chunkSize = (batch.count + chunks - 1) / chunks
        func range(_ chunk: Int) -> Range<Int> { chunk * chunkSize..<min(batch.count, (chunk + 1) * chunkSize) }
        let offered = (1..<chunks).map { startDecoding(batch, range($0)) }
        /// Offered chunks not collected yet: a throw leaves none running.
        var collected = 0
        defer { for pending in offered[collected...] { pending.abandon() } }
        var decoded: [RecordRun<T>] = []
        decoded.reserveCapacity(chunks)
        decoded.append(try decodeChunk(decoder, batch, range(0), describeKey: describeKey))
        for (index, pending) in offered.enumerated() {
            collected = index + 1
            decoded.append(try finish(pending, decoder, batch, range(index + 1), describeKey: describeKey))
        }
        return DecodedRecords(decoded)
    }

    /// Offers the records of `range` of `batch` to the executor; the caller decodes other records
    /// meanwhile and collects these with ``finishDecoding(_:_:count:describeKey:otherWasDone:)``
    /// (or ``PendingDecode/abandon()``).
    package func startDecoding(_ batch: RawBatch, _ range: Range<Int>) -> PendingDecode<T> {
        let slot = DecodeSlot<T>()
        let decoder = RecordDecoder(for: T.self)
        let fields = self.fields, entity = self.entity
        let ticket = executor.offer {
            // This thread's own copies (see `DecodeThreads`).
            slot.outcome = Self.decodeRun(decoder, batch, range, fields: fields.unshared(), entity: entity.unshared(), onWorker: true)
        }
        return PendingDecode(ticket: ticket, slot: slot)
    }

    /// Finishes a batch whose first `count` records went to ``startDecoding(_:_:)``: decodes its
    /// records from `count` on here, then collects the offered share (decoding it here if no
    /// worker started it), and hands out all in order. A failure is thrown as
    /// ``decode(_:describeKey:)`` throws it, naming the key of the first bad record.
    /// `otherWasDone` tells whether a worker had finished the share by the time this thread
    /// finished the rest (the caller balances the shares with it, see ``ScanShare``).
    package func finishDecoding(_ batch: RawBatch, _ pending: PendingDecode<T>, count: Int, describeKey: ([UInt8]) -> String,
                        otherWasDone: inout Bool) throws -> DecodedRecords<T> {
        let decoder = RecordDecoder(for: T.self)
        let tail = Self.decodeRun(decoder, batch, count..<batch.count, fields: fields, entity: entity)
        otherWasDone = pending.ticket.isDone
        let head = try finish(pending, decoder, batch, 0..<count, describeKey: describeKey)
        switch tail {
        case .success(let records): return DecodedRecords([head, records])
        case .failure: return DecodedRecords([head, try decodeChunk(decoder, batch, count..<batch.count, describeKey: describeKey)])
        }
    }

    /// The records of an offered `range`: the worker's, or decoded here when no worker started it
    /// or it failed (to throw the first failure with its key named).
    private func finish(_ pending: PendingDecode<T>, _ decoder: RecordDecoder, _ batch: RawBatch, _ range: Range<Int>,
                        describeKey: ([UInt8]) -> String) throws -> RecordRun<T> {
        if !pending.ticket.reclaim() {
            pending.ticket.wait()
            if case .success(let records)? = pending.slot.outcome { return records }
        }
        return try decodeChunk(decoder, batch, range, describeKey: describeKey)
    }

    /// The records of `range` in order, or the first failure met. A thread decoding beside others
    /// passes its own copies of `fields` and `entity` (see ``DecodeThreads``); a worker says so
    /// (`onWorker`), so that the run can go back to a worker to be freed (see ``DecodedRecords``).
    package static func decodeRun(
        _ decoder: RecordDecoder, _ batch: RawBatch, _ range: Range<Int>, fields: FieldTable, entity: String, onWorker: Bool = false
    ) -> Result<RecordRun<T>, StrataError> {
        let records = RecordRun<T>(capacity: range.count, decodedOnWorker: onWorker)
        var bytes: [UInt8] = []
        do throws(StrataError) {
            for index in range {
                batch.copyValue(at: index, into: &bytes)
                records.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: ""))
            }
            return .success(records)
        } catch {
            return .failure(error)
        }
    }

    /// The records of `range`, decoded on this thread; on failure, throws the error of the first
    /// record of `range` that fails, with its key named.
    private func decodeChunk(_ decoder: RecordDecoder, _ batch: RawBatch, _ range: Range<Int>,
                             describeKey: ([UInt8]) -> String) throws -> RecordRun<T> {
        switch Self.decodeRun(decoder, batch, range, fields: fields, entity: entity) {
        case .success(let records):
            return records
        case .failure:
            var bytes: [UInt8] = []
            for index in range {
                batch.copyValue(at: index, into: &bytes)
                do {
                    _ = try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: "")
                } catch {
                    _ = try decoder.decode(T.self, from: bytes, fields: fields, entity: entity,
                                           key: describeKey(batch.key(at: index)))
                }
            }
            preconditionFailure("a record failed to decode once and decoded the second time")
        }
    }
}

/// Decoded records handed out in batch order by moving each out of its run, never copying it.
/// (Iterating an array of a generic record type copies every element, retaining each of its
/// strings and arrays, and then destroys the array's own copies; removing elements one by one
/// from an array costs a generic call each.)
///
/// A caller that lets each record go once it has seen it (`forEach`) can instead have the records
/// freed by the thread that decoded them: handed out as copies, which share the run's strings
/// and arrays, with each run a worker decoded given back to a worker to be destroyed. The
/// allocator then takes memory back where it gave it, rather than one thread freeing what another
/// allocated (into the other's arena, under its lock, while the other allocates there).
package struct DecodedRecords<T> {
    /// The runs in batch order, not yet handed out.
    private var runs: [RecordRun<T>]
    /// The number of records.
    package private(set) var count: Int

    package init(_ runs: [RecordRun<T>]) {
        self.runs = runs
        count = runs.reduce(0) { $0 + $1.count }
    }

    /// No records (what a caller collecting runs starts from).
    package init() {
        runs = []
        count = 0
    }

    /// Calls `body` with each record in batch order until it returns false; returns whether it
    /// always returned true. Hands out each record once: call once. Records not handed out are
    /// destroyed with their runs.
    package mutating func forEach(_ body: (consuming T) throws -> Bool) rethrows -> Bool {
        for run in runs {
            while run.count > 0 {
                guard try body(run.removeFirst()) else { return false }
            }
        }
        return true
    }

    /// Adds the records of `other` after these, in order, and leaves `other` empty.
    package mutating func append(contentsOf other: inout DecodedRecords<T>) {
        // The usual case, one batch: taken as it is (runs of no records are dropped with `other`).
        if count == 0 { return swap(&self, &other) }
        runs += other.runs
        count += other.count
        other = DecodedRecords()
    }

    /// Every record in batch order, moved into one array made for exactly their number (not
    /// appended one by one, which in code not specialized for `T` looks the array's type up at
    /// each record); leaves this empty.
    package mutating func moveIntoArray() -> [T] {
        let runs = self.runs, total = count
        self.runs = []
        count = 0
        guard total > 0 else { return [] }
        return Array(unsafeUninitializedCapacity: total) { buffer, initialized in
            for run in runs { initialized += run.moveAll(to: buffer.baseAddress! + initialized) }
        }
    }

    /// As ``forEach(_:)``, for a `body` that does not keep the records: each is handed out as a
    /// copy, and each run a worker decoded goes back to `executor` to be destroyed there, once
    /// `body` has seen all of it. Call once.
    package mutating func forEach(freeingOn executor: DecodeExecutor, _ body: (consuming T) throws -> Bool) rethrows -> Bool {
        while !runs.isEmpty {
            let run = runs.removeFirst()
            for index in 0..<run.count {
                guard try body(run[index]) else { return false }
            }
            // The worker destroys the records itself rather than dropping a reference: the caller
            // still holds `run` here, and whichever thread let go of it last would free them.
            if run.decodedOnWorker { _ = executor.offer { run.destroy() } }
        }
        return true
    }
}

/// Records decoded in order into one allocation, then moved out from the front one by one.
///
/// Filled by one thread, then handed (through the executor's lock, or by returning) to the
/// thread that empties it: never used by two threads at once, hence `@unchecked Sendable`.
package final class RecordRun<T>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T>
    /// The most records the run holds.
    package let capacity: Int
    /// The records not yet moved out are those at `start..<end`; the memory elsewhere is uninitialized.
    private var start = 0
    private var end = 0
    /// Whether a worker of the executor filled it (see ``DecodedRecords/forEach(freeingOn:_:)``).
    package let decodedOnWorker: Bool

    package init(capacity: Int, decodedOnWorker: Bool = false) {
        self.capacity = capacity
        self.decodedOnWorker = decodedOnWorker
        base = .allocate(capacity: max(capacity, 1))
    }

    /// Whether ``destroy()`` freed the records and their memory already.
    private var destroyed = false

    deinit {
        destroy()
    }

    /// Destroys the records not moved out and frees the run's memory, on the calling thread;
    /// the run is empty afterwards. Called by the thread that owns the run (see the type's note).
    package func destroy() {
        guard !destroyed else { return }
        destroyed = true
        (base + start).deinitialize(count: end - start)
        start = end
        base.deallocate()
    }

    package var count: Int { end - start }

    package func append(_ record: consuming T) {
        precondition(end < capacity, "record run overfilled")
        (base + end).initialize(to: consume record)
        end += 1
    }

    /// A copy of the record at `index` of those not moved out yet.
    package subscript(index: Int) -> T {
        precondition(index >= 0 && index < end - start, "record run index out of range")
        return (base + start + index).pointee
    }

    /// Moves every record not moved out yet to `destination`, in order; returns how many.
    package func moveAll(to destination: UnsafeMutablePointer<T>) -> Int {
        let moved = end - start
        destination.moveInitialize(from: base + start, count: moved)
        start = end
        return moved
    }

    /// Moves the first record out.
    package func removeFirst() -> T {
        precondition(start < end, "record run emptied twice")
        let record = (base + start).move()
        start += 1
        return record
    }
}

/// Records offered to the executor: the ticket that says who decodes them, and where the
/// worker leaves them.
package struct PendingDecode<T> {
    package let ticket: DecodeTicket
    package let slot: DecodeSlot<T>

    /// Stops caring for the result (a scan that ended early): takes the work back, or waits for
    /// the worker that runs it, so that no decoding outlives the scan.
    package func abandon() {
        if !ticket.reclaim() { ticket.wait() }
    }
}

/// Where a worker leaves the records it decoded. Written by the worker before its ticket is
/// marked done and read by the caller after ``DecodeTicket/wait()`` (both under the executor's
/// lock, which orders them): never used by two threads at once, hence `@unchecked Sendable`.
package final class DecodeSlot<T>: @unchecked Sendable {
    package var outcome: Result<RecordRun<T>, StrataError>?
}

/// The share of each full batch a scan hands to the other thread, in 64ths, adjusted after
/// every batch: up when the other thread had finished its share by the time this one finished
/// the rest, down when this one had to wait. It settles where both threads are busy all along.
package struct ScanShare {
    package private(set) var sixtyFourths = 40

    package func count(of records: Int) -> Int { records * sixtyFourths / 64 }

    package mutating func adjust(otherWasDone: Bool) {
        sixtyFourths = min(60, max(16, sixtyFourths + (otherWasDone ? 1 : -1)))
    }
}

/// Stored records copied out of a transaction, keys and values each packed in one buffer, so that
/// gathering a record allocates nothing (a decoder copies one value at a time into a buffer it reuses).
package struct RawBatch: Sendable {
    private var valueBytes: [UInt8] = []
    private var valueEnds: [Int] = []
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []

    /// Room for `capacity` records and `valueCapacity` bytes of values (a previous batch's
    /// size: a batch's values then never regrow and get copied on the way).
    package init(capacity: Int, valueCapacity: Int = 0) {
        valueEnds.reserveCapacity(capacity)
        keyEnds.reserveCapacity(capacity)
        if valueCapacity > 0 { valueBytes.reserveCapacity(valueCapacity + valueCapacity / 8) }
    }

    package var count: Int { valueEnds.count }
    /// The bytes of all values.
    var valueByteCount: Int { valueBytes.count }
    package var isEmpty: Bool { valueEnds.isEmpty }

    package mutating func append(key: Span<UInt8>, value: Span<UInt8>) {
        key.appendBytes(to: &keyBytes)
        keyEnds.append(keyBytes.count)
        value.appendBytes(to: &valueBytes)
        valueEnds.append(valueBytes.count)
    }

    package mutating func append(key: [UInt8], value: Span<UInt8>) {
        keyBytes += key
        keyEnds.append(keyBytes.count)
        value.appendBytes(to: &valueBytes)
        valueEnds.append(valueBytes.count)
    }

    package mutating func append(key: [UInt8], value: [UInt8]) {
        keyBytes += key
        keyEnds.append(keyBytes.count)
        valueBytes += value
        valueEnds.append(valueBytes.count)
    }

    /// Appends up to `limit` entries from `cursor`'s current one on, stopping at the first key
    /// past `upper`; true when it stopped at the limit with entries left (see `Cursor.copyEntries`).
    package mutating func gather(from cursor: Cursor, limit: Int, upTo upper: (key: [UInt8], inclusive: Bool)?) throws(LMDBError) -> Bool {
        try cursor.copyEntries(limit: limit, upTo: upper?.key, inclusive: upper?.inclusive ?? false,
                               keys: &keyBytes, keyEnds: &keyEnds, values: &valueBytes, valueEnds: &valueEnds)
    }

    /// Replaces the contents of `bytes` with the value of record `index`, reusing its capacity.
    @inline(__always)
    package func copyValue(at index: Int, into bytes: inout [UInt8]) {
        let start = index == 0 ? 0 : valueEnds[index - 1]
        // SAFETY: the range lies within `valueBytes` (ends are appended as bytes are); the
        // pointer does not leave the closure. One replace: a copy, no emptying pass.
        valueBytes.withUnsafeBufferPointer { all in
            bytes.replaceSubrange(bytes.startIndex..<bytes.endIndex, with: UnsafeBufferPointer(rebasing: all[start..<valueEnds[index]]))
        }
    }

    package func key(at index: Int) -> [UInt8] {
        let start = index == 0 ? 0 : keyEnds[index - 1]
        return Array(keyBytes[start..<keyEnds[index]])
    }

    package mutating func removeAll() {
        valueBytes.removeAll(keepingCapacity: true)
        valueEnds.removeAll(keepingCapacity: true)
        keyBytes.removeAll(keepingCapacity: true)
        keyEnds.removeAll(keepingCapacity: true)
    }
}
