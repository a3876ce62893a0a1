import Dispatch
import Synchronization

/// Decodes a query's results on two threads when there are a few dozen of them: decoding is most
/// of a query's time once its records are found (a `Codable` record costs microseconds, the
/// index entry and the record lookup a fraction of that), and below ``BatchDecoder``'s parallel
/// threshold a batch would be decoded on the calling thread alone.
///
/// The records are cut into small chunks that both threads take in turn from one counter, so
/// the calling thread never waits for the helper to start: on a busy machine it simply decodes
/// every chunk itself, and waits only for a chunk the helper has taken and not yet finished.
/// Results keep the batch's order. Any failure decodes the batch again on this thread, so the
/// error thrown is the one ``BatchDecoder/decode(_:describeKey:)`` throws.
enum SharedDecode {
    /// Fewer records than this are decoded on the calling thread: the hand-off costs more.
    static var threshold: Int { 24 }
    /// Records per chunk.
    static var chunkSize: Int { 4 }

    static func decode<T: Record>(_ batch: RawBatch, with decoder: BatchDecoder<T>,
                                  describeKey: ([UInt8]) -> String) throws -> [T] {
        guard batch.count >= threshold, batch.count < BatchDecoder<T>.parallelThreshold, decoder.cores > 1 else {
            return try decoder.decode(batch, describeKey: describeKey)
        }
        let work = Work<T>(batch: batch, fields: decoder.fields, entity: decoder.entity)
        DispatchQueue.global(qos: .userInitiated).async { work.run(helper: true) }
        work.run(helper: false)
        if work.completed.load(ordering: .acquiring) < work.chunks { work.helperDone.wait() }
        guard let records = work.records() else {
            return try decoder.decode(batch, describeKey: describeKey)
        }
        return records
    }

    /// The chunks of one batch, the counter both threads take them from, and their results.
    private final class Work<T: Record>: Sendable {
        let batch: RawBatch
        let fields: FieldTable
        let entity: String
        let chunks: Int
        let next = Atomic<Int>(0)
        let completed = Atomic<Int>(0)
        let results: Mutex<[[T]?]>
        let failed = Atomic<Bool>(false)
        /// Signalled by the helper when it completes the last chunk.
        let helperDone = DispatchSemaphore(value: 0)

        init(batch: RawBatch, fields: FieldTable, entity: String) {
            self.batch = batch
            self.fields = fields
            self.entity = entity
            chunks = (batch.count + SharedDecode.chunkSize - 1) / SharedDecode.chunkSize
            results = Mutex(Array(repeating: nil, count: chunks))
        }

        /// Takes and decodes chunks until none is left.
        func run(helper: Bool) {
            let decoder = RecordDecoder(for: T.self)
            var bytes: [UInt8] = []
            while true {
                let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard chunk < chunks else { return }
                let range = chunk * SharedDecode.chunkSize..<min(batch.count, (chunk + 1) * SharedDecode.chunkSize)
                var decoded: [T] = []
                decoded.reserveCapacity(range.count)
                do throws(StrataError) {
                    for index in range {
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

        /// Every chunk's records in order, or nil when one failed.
        func records() -> [T]? {
            guard !failed.load(ordering: .relaxed) else { return nil }
            return results.withLock { parts -> [T]? in
                var records: [T] = []
                records.reserveCapacity(batch.count)
                for part in parts {
                    guard let part else { return nil }
                    records += part
                }
                return records
            }
        }
    }
}
