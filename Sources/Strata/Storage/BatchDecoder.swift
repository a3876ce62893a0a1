import Dispatch
import Foundation
import Synchronization
import LMDB

/// Decodes batches of stored records on every core, keeping their order.
///
/// A scan is bound by decoding, not by LMDB, which walks its pages in a fraction of the time. So a
/// large scan copies the raw bytes on the transaction's own thread (into one buffer per batch, see
/// ``RawBatch``) and decodes each batch of them in parallel. Only those copied bytes cross threads;
/// the transaction never does. Small scans stay on one thread.
struct BatchDecoder<T: Record> {
    /// Records gathered before a batch is decoded.
    static var batchSize: Int { 2048 }
    /// Below this many records a batch is decoded on the calling thread: the hand-off costs more.
    static var parallelThreshold: Int { 256 }

    let fields: FieldTable
    let entity: String
    /// The processor count, read once per process (each read costs a system call and a parse,
    /// about 30,000 instructions, which a small query felt).
    var cores: Int { DecodeThreads.cores }

    /// Decodes `batch` in order. On failure, throws the error of the first record, in batch order,
    /// that failed; `describeKey` renders that record's stored key for the message.
    func decode(_ batch: RawBatch, describeKey: ([UInt8]) -> String) throws -> [T] {
        var decoded = try decodeInOrder(batch, describeKey: describeKey)
        var records: [T] = []
        records.reserveCapacity(decoded.count)
        _ = decoded.forEach { (record: consuming T) in records.append(record); return true }
        return records
    }

    /// Decodes `batch` as ``decode(_:describeKey:)`` does, handing the records out one by one
    /// without copying them (see ``DecodedRecords``).
    func decodeInOrder(_ batch: RawBatch, describeKey: ([UInt8]) -> String) throws -> DecodedRecords<T> {
        let decoder = RecordDecoder(for: T.self)
        guard cores > 1, batch.count >= Self.parallelThreshold else {
            return DecodedRecords([try decodeChunk(decoder, batch, 0..<batch.count, describeKey: describeKey)])
        }
        let chunks = min(cores, batch.count / (Self.parallelThreshold / 2))
        let chunkSize = (batch.count + chunks - 1) / chunks
        let results = Mutex<[Result<RecordRun<T>, StrataError>?]>(Array(repeating: nil, count: chunks))
        let fields = self.fields, entity = self.entity
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = chunk * chunkSize..<min(batch.count, (chunk + 1) * chunkSize)
            // This thread's own copies (see `DecodeThreads`).
            let outcome = Self.decodeRun(decoder, batch, range, fields: fields.unshared(), entity: entity.unshared())
            results.withLock { $0[chunk] = outcome }
        }
        var decoded: [RecordRun<T>] = []
        decoded.reserveCapacity(chunks)
        let outcomes = results.withLock { outcomes in
            var taken: [Result<RecordRun<T>, StrataError>?] = []
            swap(&taken, &outcomes)
            return taken
        }
        for (chunk, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let records)?:
                decoded.append(records)
            case .failure?, nil:
                // Decode the failed chunk again on this thread to throw its first error with the key named.
                let range = chunk * chunkSize..<min(batch.count, (chunk + 1) * chunkSize)
                decoded.append(try decodeChunk(decoder, batch, range, describeKey: describeKey))
            }
        }
        return DecodedRecords(decoded)
    }

    /// Starts decoding the first `count` records of `batch` on another thread; the caller gathers
    /// the next batch meanwhile and decodes the rest of this one itself (``finishDecoding``).
    func startDecoding(_ batch: RawBatch, count: Int) -> PendingDecode<T> {
        let pending = PendingDecode<T>()
        let decoder = RecordDecoder(for: T.self)
        let fields = self.fields, entity = self.entity
        DispatchQueue.global().async {
            // This thread's own copies (see `DecodeThreads`).
            pending.finish(Self.decodeRun(decoder, batch, 0..<count, fields: fields.unshared(), entity: entity.unshared()))
        }
        return pending
    }

    /// Finishes a batch started with ``startDecoding(_:count:)``: decodes its records from `count`
    /// on here, waits for the other thread's share, and hands out all in order. A failure is
    /// thrown as ``decode(_:describeKey:)`` throws it, naming the key of the first bad record.
    /// `otherWasDone` tells whether the other thread had finished its share by the time this
    /// one finished the rest (the caller balances the shares with it).
    func finishDecoding(_ batch: RawBatch, _ pending: PendingDecode<T>, count: Int, describeKey: ([UInt8]) -> String,
                        otherWasDone: inout Bool) throws -> DecodedRecords<T> {
        let decoder = RecordDecoder(for: T.self)
        let tail = Self.decodeRun(decoder, batch, count..<batch.count, fields: fields, entity: entity)
        otherWasDone = pending.isFinished
        let head: RecordRun<T>
        switch pending.wait() {
        case .success(let records): head = records
        case .failure: head = try decodeChunk(decoder, batch, 0..<count, describeKey: describeKey)
        }
        switch tail {
        case .success(let records): return DecodedRecords([head, records])
        case .failure: return DecodedRecords([head, try decodeChunk(decoder, batch, count..<batch.count, describeKey: describeKey)])
        }
    }

    /// The records of `range` in order, or the first failure met. A thread decoding beside others
    /// passes its own copies of `fields` and `entity` (see ``DecodeThreads``).
    static func decodeRun(
        _ decoder: RecordDecoder, _ batch: RawBatch, _ range: Range<Int>, fields: FieldTable, entity: String
    ) -> Result<RecordRun<T>, StrataError> {
        let records = RecordRun<T>(capacity: range.count)
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
/// from an array costs a generic call of about 200 instructions each.)
struct DecodedRecords<T> {
    /// The runs in batch order.
    private let runs: [RecordRun<T>]
    /// The number of records.
    let count: Int

    init(_ runs: [RecordRun<T>]) {
        self.runs = runs
        count = runs.reduce(0) { $0 + $1.count }
    }

    /// Calls `body` with each record in batch order until it returns false; returns whether it
    /// always returned true. Hands out each record once: call once. Records not handed out are
    /// destroyed with their runs.
    mutating func forEach(_ body: (consuming T) throws -> Bool) rethrows -> Bool {
        for run in runs {
            while run.count > 0 {
                guard try body(run.removeFirst()) else { return false }
            }
        }
        return true
    }
}

/// Records decoded in order into one allocation, then moved out from the front one by one.
///
/// Filled by one thread, then handed (through ``PendingDecode``'s or ``DecodePipeline``'s lock, or by returning) to the
/// thread that empties it: never used by two threads at once, hence `@unchecked Sendable`.
final class RecordRun<T>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T>
    private let capacity: Int
    /// The records not yet moved out are those at `start..<end`; the memory elsewhere is uninitialized.
    private var start = 0
    private var end = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: max(capacity, 1))
    }

    deinit {
        (base + start).deinitialize(count: end - start)
        base.deallocate()
    }

    var count: Int { end - start }

    func append(_ record: consuming T) {
        precondition(end < capacity, "record run overfilled")
        (base + end).initialize(to: record)
        end += 1
    }

    /// Moves the first record out.
    func removeFirst() -> T {
        precondition(start < end, "record run emptied twice")
        let record = (base + start).move()
        start += 1
        return record
    }
}

/// The result of a batch share decoded on another thread, once it is there.
final class PendingDecode<T: Sendable>: Sendable {
    private let result = Mutex<Result<RecordRun<T>, StrataError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ outcome: Result<RecordRun<T>, StrataError>) {
        result.withLock { $0 = outcome }
        done.signal()
    }

    /// Whether the result is there, without waiting.
    var isFinished: Bool {
        result.withLock { if case .none = $0 { false } else { true } }
    }

    /// Waits for the result; call once.
    func wait() -> Result<RecordRun<T>, StrataError> {
        done.wait()
        return result.withLock { $0! }
    }
}

/// The share of each full batch a scan hands to the other thread, in 64ths, adjusted after
/// every batch: up when the other thread had finished its share by the time this one finished
/// the rest, down when this one had to wait. It settles where both threads are busy all along.
struct ScanShare {
    private(set) var sixtyFourths = 40

    func count(of records: Int) -> Int { records * sixtyFourths / 64 }

    mutating func adjust(otherWasDone: Bool) {
        sixtyFourths = min(60, max(16, sixtyFourths + (otherWasDone ? 1 : -1)))
    }
}

/// Stored records copied out of a transaction, keys and values each packed in one buffer, so that
/// gathering a record allocates nothing (a decoder copies one value at a time into a buffer it reuses).
struct RawBatch: Sendable {
    private var valueBytes: [UInt8] = []
    private var valueEnds: [Int] = []
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []

    /// Room for `capacity` records and `valueCapacity` bytes of values (a previous batch's
    /// size: a batch's values then never regrow and get copied on the way).
    init(capacity: Int, valueCapacity: Int = 0) {
        valueEnds.reserveCapacity(capacity)
        keyEnds.reserveCapacity(capacity)
        if valueCapacity > 0 { valueBytes.reserveCapacity(valueCapacity + valueCapacity / 8) }
    }

    var count: Int { valueEnds.count }
    /// The bytes of all values.
    var valueByteCount: Int { valueBytes.count }
    var isEmpty: Bool { valueEnds.isEmpty }

    mutating func append(key: Span<UInt8>, value: Span<UInt8>) {
        key.appendBytes(to: &keyBytes)
        keyEnds.append(keyBytes.count)
        value.appendBytes(to: &valueBytes)
        valueEnds.append(valueBytes.count)
    }

    mutating func append(key: [UInt8], value: Span<UInt8>) {
        keyBytes += key
        keyEnds.append(keyBytes.count)
        value.appendBytes(to: &valueBytes)
        valueEnds.append(valueBytes.count)
    }

    mutating func append(key: [UInt8], value: [UInt8]) {
        keyBytes += key
        keyEnds.append(keyBytes.count)
        valueBytes += value
        valueEnds.append(valueBytes.count)
    }

    /// Appends up to `limit` entries from `cursor`'s current one on, stopping at the first key
    /// past `upper`; true when it stopped at the limit with entries left (see `Cursor.copyEntries`).
    mutating func gather(from cursor: Cursor, limit: Int, upTo upper: (key: [UInt8], inclusive: Bool)?) throws(LMDBError) -> Bool {
        try cursor.copyEntries(limit: limit, upTo: upper?.key, inclusive: upper?.inclusive ?? false,
                               keys: &keyBytes, keyEnds: &keyEnds, values: &valueBytes, valueEnds: &valueEnds)
    }

    /// Replaces the contents of `bytes` with the value of record `index`, reusing its capacity.
    @inline(__always)
    func copyValue(at index: Int, into bytes: inout [UInt8]) {
        let start = index == 0 ? 0 : valueEnds[index - 1]
        // SAFETY: the range lies within `valueBytes` (ends are appended as bytes are); the
        // pointer does not leave the closure. One replace: a copy, no emptying pass.
        valueBytes.withUnsafeBufferPointer { all in
            bytes.replaceSubrange(bytes.startIndex..<bytes.endIndex, with: UnsafeBufferPointer(rebasing: all[start..<valueEnds[index]]))
        }
    }

    func key(at index: Int) -> [UInt8] {
        let start = index == 0 ? 0 : keyEnds[index - 1]
        return Array(keyBytes[start..<keyEnds[index]])
    }

    mutating func removeAll() {
        valueBytes.removeAll(keepingCapacity: true)
        valueEnds.removeAll(keepingCapacity: true)
        keyBytes.removeAll(keepingCapacity: true)
        keyEnds.removeAll(keepingCapacity: true)
    }
}
