import LMDB

/// One record on its way from the parser to the writer: mapped, or failed with its reason.
struct PipelineItem: Sendable {
    enum Content: Sendable {
        case mapped(RecordMapper.Mapped)
        case failed(String)
    }

    var content: Content
    /// The record's index in the payload (0-based) and where it starts.
    var index: Int
    var position: InputPosition
    /// The input offset after the record, for progress.
    var endOffset: Int
}

/// What the producer hands over: records, then the end (with the keys it ignored) or an error.
enum PipelineBatch: Sendable {
    case records([PipelineItem])
    /// `offset`: the input's length, all of it read.
    case end(ignoredKeys: [String: Int], offset: Int)
    case failure(StrataError)
}

/// Parses and maps records on one of the store's workers (``DecodeExecutor``) while the write
/// transaction stores the previous ones: the two halves of an import take about the same time,
/// so on two cores an import runs at nearly twice the speed of one thread doing both.
///
/// The reader is offered to the executor as one job. If no worker is free to start it when the
/// consumer first asks for a batch (every one busy, or none on one core), the consumer takes it
/// back and reads each batch itself when it needs it: the same batches, on one thread.
///
/// At most `capacity` batches wait between the threads, so memory stays bounded. The consumer
/// must call ``finish()`` (also when it fails), which stops the reader and waits for it: no
/// work outlives the transaction.
final class ImportPipeline: Sendable {
    private let channel: HandoffChannel<PipelineBatch>
    private let reader: ImportReader
    private let ticket: DecodeTicket
    /// Whether the consumer reads batches itself (the job was taken back); decided at the first
    /// ``next()``, then read only by the consumer.
    private let inline = ConditionLock<Bool?>(nil)

    /// Offers the reader over `source`, mapping with a mapper made from these arguments.
    init(source: ImportSource, description: EntityDescription, graph: ImportGraph, options: ImportOptions,
         maximumKeySize: Int, executor: DecodeExecutor, batchSize: Int = 256, capacity: Int = 4) {
        let channel = HandoffChannel<PipelineBatch>(capacity: capacity)
        let reader = ImportReader(source: source, description: description, graph: graph, options: options,
                                  maximumKeySize: maximumKeySize, batchSize: batchSize)
        self.channel = channel
        self.reader = reader
        ticket = executor.offer {
            while let batch = reader.nextBatch() {
                guard channel.send(batch) else { return }
            }
        }
    }

    /// The next batch, waiting for the reader (or reading it here); nil after the end or a
    /// failure was taken.
    func next() -> PipelineBatch? {
        let inline = self.inline.withLock { decided in
            if let decided { return decided }
            let taken = ticket.reclaimUnlessStarting()
            decided = taken
            return taken
        }
        return inline ? reader.nextBatch() : channel.receive()
    }

    /// Stops the reader if it still runs and waits until it has.
    func finish() {
        channel.cancel()
        if !ticket.reclaim() { ticket.wait() }
    }
}

/// The producing half of an import: parses the source and maps its records, a batch at a time.
///
/// Used by one thread at a time: the worker that runs the pipeline's job, or the consumer that
/// took the job back (the executor's lock orders the hand-over), hence `@unchecked Sendable`.
final class ImportReader: @unchecked Sendable {
    private let source: ImportSource
    private let mapper: RecordMapper
    private let options: ImportOptions
    private let maximumKeySize: Int
    private let batchSize: Int
    private var parser: JSONParser?
    private var index = 0
    /// The end or a failure was handed out: nothing follows.
    private var ended = false

    init(source: ImportSource, description: EntityDescription, graph: ImportGraph, options: ImportOptions,
         maximumKeySize: Int, batchSize: Int) {
        self.source = source
        self.options = options
        self.maximumKeySize = maximumKeySize
        self.batchSize = batchSize
        mapper = RecordMapper(description: description, options: options, graph: graph)
    }

    /// The next batch of up to `batchSize` records, then the end (or a failure), then nil.
    func nextBatch() -> PipelineBatch? {
        guard !ended else { return nil }
        do throws(StrataError) {
            if parser == nil { parser = try options.parser(of: source) }
            var batch: [PipelineItem] = []
            batch.reserveCapacity(batchSize)
            while batch.count < batchSize {
                guard let (record, position) = try parser!.nextPendingRecordWithStart(rootKey: options.rootKey) else { break }
                switch record {
                case .parsed(let value):
                    batch.append(mapper.item(value, index: index, position: position, endOffset: parser!.offset,
                                             maximumKeySize: maximumKeySize))
                case .atValue:
                    // Straight from the parser's bytes, without a JSONValue tree.
                    batch.append(try mapper.item(reading: &parser!, index: index, position: position,
                                                 maximumKeySize: maximumKeySize))
                }
                index += 1
            }
            if !batch.isEmpty { return .records(batch) }
            ended = true
            return .end(ignoredKeys: mapper.allIgnoredKeys, offset: parser!.offset)
        } catch {
            ended = true
            return .failure(error)
        }
    }
}

/// A bounded queue between one producer thread and one consumer thread.
final class HandoffChannel<Element: Sendable>: Sendable {
    private struct State {
        /// Taken elements are cleared at once, so that a batch lives no longer than its consumer
        /// holds it.
        var queue: [Element?] = []
        var head = 0
        var cancelled = false
    }

    private let state = ConditionLock(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Producer side: queues `element`, waiting while the queue is full. False when the consumer
    /// has cancelled: the producer should stop.
    func send(_ element: Element) -> Bool {
        let capacity = self.capacity
        return state.withLock(untilDone: { state -> ConditionLock<State>.Step<Bool> in
            if state.cancelled { return .done(false) }
            guard state.queue.count - state.head < capacity else { return .wait }
            state.queue.append(element)
            return .done(true)
        })
    }

    /// Consumer side: the next element, waiting for one; nil once cancelled.
    func receive() -> Element? {
        state.withLock(untilDone: { state -> ConditionLock<State>.Step<Element?> in
            guard state.head < state.queue.count else { return state.cancelled ? .done(nil) : .wait }
            let element = state.queue[state.head].take()
            state.head += 1
            if state.head > 64 {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            return .done(element)
        })
    }

    /// Either side: no more elements pass; a waiting peer is released.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.queue.removeAll()
            state.head = 0
        }
    }
}
