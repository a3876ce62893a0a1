import LMDB
import Dispatch
import Foundation
import Synchronization

/// Decodes a query's last batch of results; on two threads when there are a few dozen of them: decoding is most
/// of a query's time once its records are found (a `Codable` record costs microseconds, the
/// index entry and the record lookup a fraction of that), and below ``BatchDecoder``'s parallel
/// threshold a batch would be decoded on the calling thread alone.
///
/// The records are cut into small chunks that both threads take in turn from one counter, so
/// the calling thread never waits for the helper to start: on a busy machine it simply decodes
/// every chunk itself, and waits only for a chunk the helper has taken and not yet finished.
/// Results keep the batch's order and are moved out, not copied. Any failure decodes the batch again on this thread, so the
/// error thrown is the one ``BatchDecoder/decode(_:describeKey:)`` throws.
enum SharedDecode {
    /// Fewer records than this are decoded on the calling thread: the hand-off costs more.
    static var threshold: Int { 24 }
    /// Records per chunk.
    static var chunkSize: Int { 4 }

    /// The processor count, read once (each read costs a system call and a parse).
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Decodes `batch` (fewer than ``BatchDecoder/batchSize`` records), handed out in order by
    /// moving each record out (``DecodedRecords``), never copying it.
    static func decode<T: Record>(_ batch: RawBatch, fields: FieldTable, entity: String,
                                  describeKey: ([UInt8]) -> String) throws -> DecodedRecords<T> {
        if batch.count >= BatchDecoder<T>.parallelThreshold {
            return try BatchDecoder<T>(fields: fields, entity: entity).decodeInOrder(batch, describeKey: describeKey)
        }
        guard batch.count >= threshold, cores > 1 else {
            let decoder = RecordDecoder(for: T.self)
            var records: [T] = []
            records.reserveCapacity(batch.count)
            var bytes: [UInt8] = []
            do {
                // Last first, as `DecodedRecords` hands them out.
                for index in (0..<batch.count).reversed() {
                    batch.copyValue(at: index, into: &bytes)
                    records.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: ""))
                }
            } catch {
                // Again through the batch decoder, whose error names the record's key.
                return try BatchDecoder<T>(fields: fields, entity: entity).decodeInOrder(batch, describeKey: describeKey)
            }
            return DecodedRecords([records])
        }
        let work = Work<T>(batch: batch, fields: fields, entity: entity)
        DispatchQueue.global(qos: .userInitiated).async { work.run(helper: true) }
        work.run(helper: false)
        if work.completed.load(ordering: .acquiring) < work.chunks { work.helperDone.wait() }
        guard let parts = work.parts() else {
            return try BatchDecoder<T>(fields: fields, entity: entity).decodeInOrder(batch, describeKey: describeKey)
        }
        return DecodedRecords(parts)
    }

    /// The chunks of one batch, the counter both threads take them from, and their results.
    private final class Work<T: Record>: Sendable {
        let batch: RawBatch
        let fields: FieldTable
        let entity: String
        let chunks: Int
        let next = Atomic<Int>(0)
        let completed = Atomic<Int>(0)
        /// A pthread lock (``ConditionLock``), not `Mutex`, which ThreadSanitizer reports as racing.
        let results: ConditionLock<[[T]?]>
        let failed = Atomic<Bool>(false)
        /// Signalled by the helper when it completes the last chunk.
        let helperDone = DispatchSemaphore(value: 0)

        init(batch: RawBatch, fields: FieldTable, entity: String) {
            self.batch = batch
            self.fields = fields
            self.entity = entity
            chunks = (batch.count + SharedDecode.chunkSize - 1) / SharedDecode.chunkSize
            results = ConditionLock(Array(repeating: nil, count: chunks))
        }

        /// Takes and decodes chunks until none is left.
        func run(helper: Bool) {
            let decoder = RecordDecoder(for: T.self)
            // Each decode retains the field table's buffers and the entity name and releases them:
            // shared by both threads, those counts would be one cache line the two cores take
            // from each other eight times a record.
            let fields = self.fields.unshared()
            let entity = self.entity.unshared()
            var bytes: [UInt8] = []
            while true {
                let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard chunk < chunks else { return }
                let range = chunk * SharedDecode.chunkSize..<min(batch.count, (chunk + 1) * SharedDecode.chunkSize)
                var decoded: [T] = []
                decoded.reserveCapacity(range.count)
                do throws(StrataError) {
                    for index in range.reversed() {
                        batch.copyValue(at: index, into: &bytes)
                        decoded.append(try decoder.decode(T.self, from: bytes, fields: fields, entity: entity, key: ""))
                    }
                    results.withLock { $0[chunk] = decoded }
                } catch {
                    failed.store(true, ordering: .relaxed)
                }
                let done = completed.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
                if helper, done == chunks { helperDone.signal() }
            }
        }

        /// Every chunk's records, chunks in order and each last record first, or nil when one failed.
        func parts() -> [[T]]? {
            guard !failed.load(ordering: .relaxed) else { return nil }
            return results.withLock { parts -> [[T]]? in
                var all: [[T]] = []
                all.reserveCapacity(parts.count)
                for part in parts {
                    guard let part else { return nil }
                    all.append(part)
                }
                return all
            }
        }
    }
}

extension FieldTable {
    /// An equal table whose storage no other value shares, for a thread that decodes beside others.
    func unshared() -> FieldTable { FieldTable(names: names) }
}

extension String {
    /// An equal string whose storage no other value shares (small strings have none).
    func unshared() -> String { String(decoding: Array(utf8), as: UTF8.self) }
}
