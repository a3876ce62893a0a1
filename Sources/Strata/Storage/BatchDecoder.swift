import Dispatch
import Foundation
import Synchronization

/// Decodes batches of stored records on every core, keeping their order.
///
/// A scan is bound by decoding (Codable costs about a microsecond and a half per record of a dozen
/// fields), not by LMDB, which walks its pages in a fraction of that. So a large scan copies the raw
/// bytes on the transaction's own thread and decodes each batch of them in parallel. Only those
/// copied bytes cross threads; the transaction never does. Small scans stay on one thread.
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
            return try batch.values.indices.map { index in
                try decodeOne(decoder, batch, index, describeKey: describeKey)
            }
        }
        let values = batch.values
        let chunks = min(cores, batch.count / (Self.parallelThreshold / 2))
        let chunkSize = (batch.count + chunks - 1) / chunks
        let results = Mutex<[Result<[T], StrataError>?]>(Array(repeating: nil, count: chunks))
        let fields = self.fields, entity = self.entity
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = chunk * chunkSize..<min(batch.count, (chunk + 1) * chunkSize)
            var decoded: [T] = []
            decoded.reserveCapacity(range.count)
            let outcome: Result<[T], StrataError>
            do throws(StrataError) {
                for index in range {
                    decoded.append(try decoder.decode(T.self, from: values[index], fields: fields, entity: entity, key: ""))
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
                for index in range { records.append(try decodeOne(decoder, batch, index, describeKey: describeKey)) }
            }
        }
        return records
    }

    private func decodeOne(_ decoder: RecordDecoder, _ batch: RawBatch, _ index: Int,
                           describeKey: ([UInt8]) -> String) throws -> T {
        do {
            return try decoder.decode(T.self, from: batch.values[index], fields: fields, entity: entity, key: "")
        } catch {
            return try decoder.decode(T.self, from: batch.values[index], fields: fields, entity: entity,
                                      key: describeKey(batch.key(at: index)))
        }
    }
}

/// Stored records copied out of a transaction: their values, and their keys packed in one buffer
/// (keys are needed only to name a record in an error, so they cost no allocation each).
struct RawBatch: Sendable {
    private(set) var values: [[UInt8]] = []
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []

    init(capacity: Int) {
        values.reserveCapacity(capacity)
        keyEnds.reserveCapacity(capacity)
    }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }

    mutating func append(key: Span<UInt8>, value: [UInt8]) {
        for index in key.indices { keyBytes.append(key[index]) }
        keyEnds.append(keyBytes.count)
        values.append(value)
    }

    mutating func append(key: [UInt8], value: [UInt8]) {
        keyBytes += key
        keyEnds.append(keyBytes.count)
        values.append(value)
    }

    func key(at index: Int) -> [UInt8] {
        let start = index == 0 ? 0 : keyEnds[index - 1]
        return Array(keyBytes[start..<keyEnds[index]])
    }

    mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        keyBytes.removeAll(keepingCapacity: true)
        keyEnds.removeAll(keepingCapacity: true)
    }
}
