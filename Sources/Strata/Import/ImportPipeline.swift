import Foundation

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

/// Parses and maps records on a thread of its own while the write transaction stores the
/// previous ones: the two halves of an import take about the same time, so on two cores an
/// import runs at nearly twice the speed of one thread doing both.
///
/// At most `capacity` batches wait between the threads, so memory stays bounded. The consumer
/// must call ``finish()`` (also when it fails), which stops the producer and waits for it: no
/// thread outlives the transaction.
final class ImportPipeline: Sendable {
    private let channel: HandoffChannel<PipelineBatch>
    private let done = DispatchSemaphore(value: 0)

    /// Starts the producer over `source`, mapping with a mapper made from these arguments.
    init(source: ImportSource, description: EntityDescription, graph: ImportGraph, options: ImportOptions,
         maximumKeySize: Int, batchSize: Int = 256, capacity: Int = 4) {
        let channel = HandoffChannel<PipelineBatch>(capacity: capacity)
        self.channel = channel
        let done = self.done
        let thread = Thread {
            defer { done.signal() }
            let mapper = RecordMapper(description: description, options: options, graph: graph)
            do {
                var parser = JSONParser(source: try source.open(), limits: options.limits)
                var batch: [PipelineItem] = []
                batch.reserveCapacity(batchSize)
                var index = 0
                while true {
                    guard let (record, position) = try parser.nextPendingRecordWithStart(rootKey: options.rootKey) else { break }
                    switch record {
                    case .parsed(let value):
                        batch.append(mapper.item(value, index: index, position: position, endOffset: parser.offset,
                                                 maximumKeySize: maximumKeySize))
                    case .atValue:
                        // Straight from the parser's bytes, without a JSONValue tree.
                        batch.append(try mapper.item(reading: &parser, index: index, position: position,
                                                     maximumKeySize: maximumKeySize))
                    }
                    index += 1
                    if batch.count == batchSize {
                        guard channel.send(.records(batch)) else { return }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { guard channel.send(.records(batch)) else { return } }
                _ = channel.send(.end(ignoredKeys: mapper.allIgnoredKeys, offset: parser.offset))
            } catch let error as StrataError {
                _ = channel.send(.failure(error))
            } catch {
                _ = channel.send(.failure(StrataError(.storage, "the import's reader failed: \(error)", cause: error)))
            }
        }
        thread.name = "strata.import.reader"
        thread.start()
    }

    /// The next batch, waiting for the producer; nil after the end or a failure was taken.
    func next() -> PipelineBatch? { channel.receive() }

    /// Stops the producer if it still runs and waits until it has.
    func finish() {
        channel.cancel()
        done.wait()
    }
}

/// A bounded queue between one producer thread and one consumer thread.
final class HandoffChannel<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `condition`.
    private let condition = NSCondition()
    /// Taken elements are cleared at once, so that a batch lives no longer than its consumer
    /// holds it.
    private var queue: [Element?] = []
    private var head = 0
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Producer side: queues `element`, waiting while the queue is full. False when the consumer
    /// has cancelled: the producer should stop.
    func send(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count - head >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        queue.append(element)
        condition.broadcast()
        return true
    }

    /// Consumer side: the next element, waiting for one; nil once cancelled.
    func receive() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count && !cancelled { condition.wait() }
        guard head < queue.count else { return nil }
        let element = queue[head].take()
        head += 1
        if head > 64 {
            queue.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }

    /// Either side: no more elements pass; a waiting peer is released.
    func cancel() {
        condition.lock()
        cancelled = true
        queue.removeAll()
        head = 0
        condition.broadcast()
        condition.unlock()
    }
}
