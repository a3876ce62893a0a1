import LMDB

/// Decodes a query's results on the store's workers while the query is still finding them.
///
/// The calling thread walks the access path and hands the matches' stored bytes over in chunks of
/// ``chunkSize``; once ``startAfter`` chunks are out, it offers a job to the store's
/// ``DecodeExecutor`` that takes the waiting chunks, in order, and decodes them until none is
/// left, then ends (it never waits for more); the next chunk published offers a job again. When
/// the walk ends, the calling thread takes the chunks still waiting too, and then waits only for a
/// chunk a worker has taken and not yet finished. Most of a query's decoding (a `Codable` record
/// is the costly part) so overlaps its index walk and record lookups, instead of starting once
/// the last match is found. Fewer than `chunkSize × startAfter` results are decoded on the
/// calling thread alone: the hand-off would cost more.
///
/// With no worker to hand chunks to (an executor of no threads: one core, or a process pinned to
/// one CPU), or when the caller expects at most ``decodedHereUpTo`` records (a query's limit or its
/// plan's estimate), each record is decoded as it is appended, from the transaction's bytes,
/// instead of being copied into a chunk first: for so few records a hand-off saves little, and
/// costs a wait when the worker's core is busy. The expectation holds until the first
/// ``drain(describeKey:_:)``: a query that finds more records than it expected hands the rest to
/// the workers.
///
/// Only copied bytes cross threads (``RawBatch``); the transaction stays on the calling thread.
/// If any record fails to decode, every chunk is decoded again on the calling thread through
/// ``BatchDecoder``, whose error names the first failing record's key, in result order.
///
/// Owned by the one thread that runs the query (not `Sendable`); call ``finish(describeKey:)``
/// once, or ``cancel()`` when the query stops early.
///
/// A class, as are the records decoded here: a generic caller that is not specialized for `T`
/// (a program's record type, in a module that sees only the library's interface) calls a class's
/// methods through the instance it holds, where a struct's would look its type up by `T` at each
/// record. Its state is that one thread's, so its properties go without the run-time exclusivity
/// check of a class's stored `var`.
package final class DecodePipeline<T: Record> {
    /// Records a chunk holds.
    package static var chunkSize: Int { 8 }
    /// Chunks handed over before the first job is offered.
    package static var startAfter: Int { 3 }
    /// The most records a caller may expect for them to be decoded on its thread as they are
    /// appended, though workers could take them (the results file of the query benchmark
    /// measures both ways).
    static var decodedHereUpTo: Int { 256 }

    private let fields: FieldTable
    private let entity: String
    private let executor: DecodeExecutor
    /// Made when the first chunk is full: a query of fewer results needs no lock.
    @exclusivity(unchecked) private var shared: Shared?
    /// The chunk being filled.
    @exclusivity(unchecked) private var current = RawBatch(capacity: chunkSize)
    /// The job offered last, taken back when the pipeline finishes or is cancelled before a worker
    /// started it.
    @exclusivity(unchecked) private var ticket: DecodeTicket?
    /// Records appended so far.
    @exclusivity(unchecked) package private(set) var count = 0
    /// The records decoded as they were appended, when no worker can take chunks.
    @exclusivity(unchecked) private var decodedHere: DecodedHere?
    /// Whether records are decoded as they are appended: no worker, or few records expected.
    @exclusivity(unchecked) private var decodesHere: Bool

    /// A pipeline for records of `entity`; `expectedCount`, when the caller knows it, is about how
    /// many records it will append (at most ``decodedHereUpTo``: all are decoded on this thread).
    package init(fields: FieldTable, entity: String, executor: DecodeExecutor, expectedCount: Int? = nil) {
        self.fields = fields
        self.entity = entity
        self.executor = executor
        decodesHere = executor.threadLimit == 0
        if let expectedCount { expect(expectedCount) }
    }

    /// Tells the pipeline, before the first record is appended, how many records to expect.
    package func expect(_ count: Int) {
        precondition(self.count == 0, "a pipeline is told what to expect before the first record")
        decodesHere = executor.threadLimit == 0 || count <= Self.decodedHereUpTo
    }

    /// Adds a match's stored key and bytes; returns the records appended so far (``count``, read here
    /// because a read of the property from another target pays a runtime exclusivity check).
    @discardableResult
    package func append(key: [UInt8], value: [UInt8]) -> Int {
        guard !decodesHere else {
            decoderHere().decode(key: key, value: value)
            count += 1
            return count
        }
        current.append(key: key, value: value)
        appended()
        return count
    }

    /// Adds a record's stored key and bytes lent by the transaction (copied once, into the chunk;
    /// decoded at once when they are decoded as appended); returns the records appended so far.
    @discardableResult
    package func append(key: [UInt8], value: Span<UInt8>) -> Int {
        guard !decodesHere else {
            decoderHere().decode(key: key, value: value)
            count += 1
            return count
        }
        current.append(key: key, value: value)
        appended()
        return count
    }

    /// The records decoded on this thread as they are appended, made on first use.
    private func decoderHere() -> DecodedHere {
        if let decodedHere { return decodedHere }
        let made = DecodedHere(fields: fields, entity: entity)
        decodedHere = made
        return made
    }

    /// Counts the record just added to `current`; hands `current` over once it is full.
    private func appended() {
        count += 1
        guard current.count == Self.chunkSize else { return }
        if shared == nil { shared = Shared(fields: fields, entity: entity) }
        let shared = shared!
        let offers = shared.publish(current, offering: executor.threadLimit > 0)
        current = RawBatch(capacity: Self.chunkSize)
        if offers {
            ticket = executor.offer { shared.decodeChunks(asJob: true) }
        }
    }

    /// Every record, in the order appended. Decodes what is left on this thread, then waits for
    /// the chunk a worker is still decoding.
    package func finish(describeKey: ([UInt8]) -> String) throws -> DecodedRecords<T> {
        if let here = decodedHere {
            decodedHere = nil
            return try here.finish(describeKey: describeKey)
        }
        guard let shared else {
            // Fewer results than a chunk: decoded here.
            return try BatchDecoder<T>(fields: fields, entity: entity, executor: executor).decodeInOrder(current, describeKey: describeKey)
        }
        if !current.isEmpty {
            _ = shared.publish(current, offering: false)
            current = RawBatch(capacity: 0)
        }
        shared.finishPublishing()
        takeBackJob()
        shared.decodeChunks(asJob: false)
        guard let parts = shared.waitForResults() else {
            return try BatchDecoder<T>(fields: shared.fields, entity: shared.entity, executor: executor)
                .decodeInOrder(shared.allRecords(), describeKey: describeKey)
        }
        return DecodedRecords(parts)
    }

    /// Passes every record appended so far to `body`, in order, each moved out rather than
    /// copied, and leaves this pipeline empty and ready for more: callers drain it every
    /// ``BatchDecoder/batchSize`` records, so memory stays bounded however many there are.
    package func drain(describeKey: ([UInt8]) -> String, _ body: (consuming T) throws -> Void) throws {
        var decoded = try finish(describeKey: describeKey)
        reset()
        _ = try decoded.forEach { (record: consuming T) in try body(consume record); return true }
    }

    /// Moves every record appended so far onto the end of `collected`, in order, and leaves this
    /// pipeline empty and ready for more, as ``drain(describeKey:_:)`` does: for a caller that
    /// keeps every record (``DecodedRecords/moveIntoArray()`` then makes one array of them).
    package func drain(describeKey: ([UInt8]) -> String, into collected: inout DecodedRecords<T>) throws {
        var decoded = try finish(describeKey: describeKey)
        reset()
        collected.append(contentsOf: &decoded)
    }

    /// Empty, as made: no chunk, no job, nothing decoded, and no expectation.
    private func reset() {
        shared = nil
        current = RawBatch(capacity: Self.chunkSize)
        ticket = nil
        count = 0
        decodedHere = nil
        decodesHere = executor.threadLimit == 0
    }

    /// Stops the job after the chunk it is decoding, for a query that ended early (a throw).
    package func cancel() {
        shared?.cancel()
        takeBackJob()
    }

    /// Takes the last job offered back if no worker has started it.
    private func takeBackJob() {
        if let ticket, ticket.reclaim() { shared?.jobTakenBack() }
    }

    /// Whether the records appended since the last drain were decoded as they came (no workers).
    package var decodesAsAppended: Bool { decodedHere != nil }

    /// Whether a job was offered and has not ended (or been taken back) yet.
    package var helperIsRunning: Bool { shared?.helperIsRunning ?? false }

    /// Records decoded on the calling thread as they are appended, in runs that double in size
    /// (so a query of a few results allocates room for a few); the first record that fails to
    /// decode is kept, with its key, and the records after it are not decoded.
    private final class DecodedHere {
        private let fields: FieldTable
        private let entity: String
        private let decoder = RecordDecoder(for: T.self)
        @exclusivity(unchecked) private var runs: [RecordRun<T>] = []
        @exclusivity(unchecked) private var run = RecordRun<T>(capacity: chunkSize)
        @exclusivity(unchecked) private var bytes: [UInt8] = []
        @exclusivity(unchecked) private var failed: (key: [UInt8], bytes: [UInt8])?

        init(fields: FieldTable, entity: String) {
            self.fields = fields
            self.entity = entity
        }

        func decode(key: [UInt8], value: Span<UInt8>) {
            guard failed == nil else { return }
            value.replaceBytes(of: &bytes)
            decode(key: key, value: bytes)
        }

        func decode(key: [UInt8], value: [UInt8]) {
            guard failed == nil else { return }
            do {
                let record = try decoder.decode(T.self, from: value, fields: fields, entity: entity, key: "")
                if run.count == run.capacity {
                    runs.append(run)
                    run = RecordRun<T>(capacity: min(run.capacity * 2, BatchDecoder<T>.batchSize))
                }
                run.append(consume record)
            } catch {
                failed = (key, value)
            }
        }

        /// The records in order, or the first failure, thrown with its record's key named.
        func finish(describeKey: ([UInt8]) -> String) throws -> DecodedRecords<T> {
            if let failed {
                _ = try decoder.decode(T.self, from: failed.bytes, fields: fields, entity: entity, key: describeKey(failed.key))
                preconditionFailure("a record failed to decode once and decoded the second time")
            }
            return DecodedRecords(runs + [run])
        }
    }

    /// The chunks, the order they are taken in, and their results; shared by both threads.
    private final class Shared: Sendable {
        let fields: FieldTable
        let entity: String

        private struct State {
            var chunks: [RawBatch] = []
            /// The next chunk to take.
            var next = 0
            /// Chunks decoded (or failed), by either thread.
            var done = 0
            /// Each chunk's records.
            var results: [RecordRun<T>?] = []
            var failed = false
            /// No chunk will be added.
            var finished = false
            var cancelled = false
            /// A job is offered or running: publishing offers no other.
            var jobActive = false
        }

        private let state = ConditionLock(State())

        init(fields: FieldTable, entity: String) {
            self.fields = fields
            self.entity = entity
        }

        /// Adds `chunk`; true when the caller should offer a job (`offering`, none active, and
        /// ``startAfter`` chunks published), which is then counted as active.
        func publish(_ chunk: RawBatch, offering: Bool) -> Bool {
            state.withLock { state in
                state.chunks.append(chunk)
                state.results.append(nil)
                guard offering, !state.jobActive, state.chunks.count >= startAfter else { return false }
                state.jobActive = true
                return true
            }
        }

        /// The job offered last was taken back before it started.
        func jobTakenBack() { state.withLock { $0.jobActive = false } }
        var helperIsRunning: Bool { state.withLock { $0.jobActive } }

        func finishPublishing() {
            state.withLock { $0.finished = true }
        }

        func cancel() {
            state.withLock { $0.cancelled = true }
        }

        /// Takes and decodes chunks until none is waiting (or the work was stopped). `asJob`: run
        /// by a worker, which marks the job ended when it finds nothing to take.
        func decodeChunks(asJob: Bool) {
            let decoder = RecordDecoder(for: T.self)
            // This thread's own copies (see `DecodeThreads`).
            let fields = self.fields.unshared(), entity = self.entity.unshared()
            while let (index, chunk) = take(asJob: asJob) {
                let outcome = BatchDecoder<T>.decodeRun(decoder, chunk, 0..<chunk.count, fields: fields, entity: entity, onWorker: asJob)
                state.withLock { state in
                    switch outcome {
                    case .success(let records): state.results[index] = records
                    case .failure: state.failed = true
                    }
                    state.done += 1
                }
            }
        }

        /// The next chunk to decode, or nil when there is none to take (or the work was stopped);
        /// a job that gets nil is ended in the same step, so a chunk published after it offers
        /// a new one.
        private func take(asJob: Bool) -> (Int, RawBatch)? {
            state.withLock { state in
                if !state.cancelled, !state.failed, state.next < state.chunks.count {
                    state.next += 1
                    return (state.next - 1, state.chunks[state.next - 1])
                }
                if asJob { state.jobActive = false }
                return nil
            }
        }

        /// Waits until every chunk taken is decoded; returns the results in chunk order, or nil
        /// when a record failed.
        func waitForResults() -> [RecordRun<T>]? {
            state.withLock(untilDone: { state -> ConditionLock<State>.Step<[RecordRun<T>]?> in
                guard state.done == state.next else { return .wait }
                guard !state.failed else { return .done(nil) }
                var parts: [RecordRun<T>] = []
                parts.reserveCapacity(state.results.count)
                for index in state.results.indices {
                    guard let part = state.results[index] else { return .done(nil) }
                    parts.append(part)
                    state.results[index] = nil
                }
                return .done(parts)
            })
        }

        /// Every chunk's records in one batch, for decoding again on one thread.
        func allRecords() -> RawBatch {
            let chunks = state.withLock { $0.chunks }
            var all = RawBatch(capacity: chunks.reduce(0) { $0 + $1.count })
            var bytes: [UInt8] = []
            for chunk in chunks {
                for position in 0..<chunk.count {
                    chunk.copyValue(at: position, into: &bytes)
                    all.append(key: chunk.key(at: position), value: bytes)
                }
            }
            return all
        }
    }
}

