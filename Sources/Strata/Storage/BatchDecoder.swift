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
    let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Decodes `batch` in order. On failure, throws the error of the first record, in batch order,
    /// that failed; `describeKey` renders that record's stored key for the message.
    func decode(_ batch: RawBatch, describeKey: ([UInt8]) -> String) throws -> [T] {
        let decoder = RecordDecoder(for: T.self)
        guard cores > 1, batch.count >= Self.parallelThreshold else {
            return try decodeChunk(decoder, batch, 0..<batch.count, describeKey: describeKey)
        }
        let chunks = min(cores, batch.count / (Self.parallelThreshold / 2))
        let chunkSize = (batch.count + chunks - 1) / chunks
        let results = Mutex<[Result<[T], StrataError>?]>(Array(repeating: nil, count: chunks))
        let fields = self.fields, entity = self.entity
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = chunk * chunkSize..<min(batch.count, (chunk + 1) * chunkSize)
            var decoded: [T] = []
            decoded.reserveCapacity(range.count)
            var bytes: [UInt8] = []
            let outcome: Result<[T], StrataError>
            do throws(StrataError) {
                for index in range {
                    batch.copyValue(at: index, into: &bytes)
                    decoded.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: ""))
                }
                outcome = .success(decoded)
            } catch {
                outcome = .failure(error)
            }
            results.withLock { $0[chunk] = outcome }
        }
        var records: [T] = []
        records.reserveCapacity(batch.count)
        for (chunk, outcome) in results.withLock({ $0 }).enumerated() {
            switch outcome {
            case .success(let decoded)?:
                records += decoded
            case .failure?, nil:
                // Decode the failed chunk again on this thread to throw its first error with the key named.
                let range = chunk * chunkSize..<min(batch.count, (chunk + 1) * chunkSize)
                records += try decodeChunk(decoder, batch, range, describeKey: describeKey)
            }
        }
        return records
    }

    /// Starts decoding the first `count` records of `batch` on another thread; the caller gathers
    /// the next batch meanwhile and decodes the rest of this one itself (``ScanOverlap``).
    func startDecoding(_ batch: RawBatch, count: Int) -> PendingDecode<T> {
        let pending = PendingDecode<T>()
        let decoder = RecordDecoder(for: T.self)
        let fields = self.fields, entity = self.entity
        DispatchQueue.global().async {
            var decoded: [T] = []
            decoded.reserveCapacity(count)
            var bytes: [UInt8] = []
            let outcome: Result<[T], StrataError>
            do throws(StrataError) {
                for index in 0..<count {
                    batch.copyValue(at: index, into: &bytes)
                    decoded.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: ""))
                }
                outcome = .success(decoded)
            } catch {
                outcome = .failure(error)
            }
            pending.finish(outcome)
        }
        return pending
    }

    /// Finishes a batch started with ``startDecoding(_:count:)``: decodes its records from `count`
    /// on here, waits for the other thread's share, and returns all in order. A failure is
    /// thrown as ``decode(_:describeKey:)`` throws it, naming the key of the first bad record.
    func finishDecoding(_ batch: RawBatch, _ pending: PendingDecode<T>, count: Int, describeKey: ([UInt8]) -> String) throws -> [T] {
        let decoder = RecordDecoder(for: T.self)
        let tail = try? decodeChunk(decoder, batch, count..<batch.count, describeKey: describeKey)
        var records: [T]
        switch pending.wait() {
        case .success(let head): records = head
        case .failure: records = try decodeChunk(decoder, batch, 0..<count, describeKey: describeKey)
        }
        records += try tail ?? decodeChunk(decoder, batch, count..<batch.count, describeKey: describeKey)
        return records
    }

    /// Decodes the records of `range` on this thread, naming the key of the first that fails.
    private func decodeChunk(_ decoder: RecordDecoder, _ batch: RawBatch, _ range: Range<Int>,
                             describeKey: ([UInt8]) -> String) throws -> [T] {
        var records: [T] = []
        records.reserveCapacity(range.count)
        var bytes: [UInt8] = []
        for index in range {
            batch.copyValue(at: index, into: &bytes)
            do {
                records.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: ""))
            } catch {
                records.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity,
                                                  key: describeKey(batch.key(at: index))))
            }
        }
        return records
    }
}

/// The result of a batch share decoded on another thread, once it is there.
final class PendingDecode<T: Sendable>: Sendable {
    private let result = Mutex<Result<[T], StrataError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ outcome: Result<[T], StrataError>) {
        result.withLock { $0 = outcome }
        done.signal()
    }

    /// Waits for the result; call once.
    func wait() -> Result<[T], StrataError> {
        done.wait()
        return result.withLock { $0! }
    }
}

/// Stored records copied out of a transaction, keys and values each packed in one buffer, so that
/// gathering a record allocates nothing (a decoder copies one value at a time into a buffer it reuses).
struct RawBatch: Sendable {
    private var valueBytes: [UInt8] = []
    private var valueEnds: [Int] = []
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []

    init(capacity: Int) {
        valueEnds.reserveCapacity(capacity)
        keyEnds.reserveCapacity(capacity)
    }

    var count: Int { valueEnds.count }
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

    /// Replaces the contents of `bytes` with the value of record `index`, reusing its capacity.
    @inline(__always)
    func copyValue(at index: Int, into bytes: inout [UInt8]) {
        let start = index == 0 ? 0 : valueEnds[index - 1]
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: valueBytes[start..<valueEnds[index]])
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
