import Dispatch
import Synchronization
import LMDB

/// Values of something read from a store, now and after every commit that changes them: an
/// `AsyncSequence` whose first element is the current value, then one element per commit that
/// changed it (never one for a commit that did not), coalesced when commits arrive faster than
/// the consumer reads (it gets the newest value). Ends when the consuming task is cancelled;
/// throws the read's error if one fails.
///
/// ```swift
/// for try await bluths in store.observe(User.self, { $0.where(\.lastName == "Bluth").sorted(by: \.luckyNumber) }) {
///     print(bluths.map(\.firstName))
/// }
/// ```
public struct Observation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    let stream: AsyncThrowingStream<Value, any Error>
    /// How many times the value was read so far (commits found irrelevant are not reads).
    let reads: @Sendable () -> Int
    /// How many read transactions were opened for it so far: the reads, and the commits whose
    /// relevance could be decided only in a transaction and turned out irrelevant.
    let fetches: @Sendable () -> Int
    /// Returns once every commit made before the call has been looked at and no read is under
    /// way (tests call it before counting reads; it waits for no value).
    let settled: @Sendable () async -> Void

    public func makeAsyncIterator() -> AsyncThrowingStream<Value, any Error>.AsyncIterator { stream.makeAsyncIterator() }
}

/// Keeps one observation current: re-reads after relevant commits on a background thread,
/// one read at a time, and yields the value when it changed.
final class ObservationDriver<Value: Sendable & Equatable>: Sendable {
    /// Reads the value, given the changes since the last read (nil for the first read): returns
    /// nil when the changes provably leave the value as it was.
    typealias Fetch = @Sendable (ReadTransaction, ChangeSet?) throws -> Value?

    /// How a commit that the commit pass handed over (see ``ObserverInterest``) is judged
    /// relevant before any read.
    enum Relevance: Sendable {
        /// By the commit alone (the entities or keys it changed).
        case byCommit(@Sendable (ChangeSet) -> Bool)
        /// Against what the last read found (its result's keys): the judgement holds only while
        /// no read is queued or under way, whose result is not known yet; meanwhile every commit
        /// is handed to the next read, whose ``Fetch`` judges it against the result before it.
        case byLastRead(@Sendable (ChangeSet) -> Bool)
    }

    private struct State {
        var pending = ChangeSet()
        var hasPending = false
        var running = false
        var last: Value?
        var finished = false
        /// Tasks waiting in ``settled()``.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }

    private let store: Store
    private let relevance: Relevance
    /// Told while a read is queued or under way (``ObservedResult/busy``).
    private let result: ObservedResult?
    private let fetch: Fetch
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let state = ConditionLock(State())
    /// Reads done (`fetch` returned a value), for tests of skipped work.
    let reads = Atomic<Int>(0)
    /// Read transactions opened (`fetch` called), for tests of skipped work.
    let fetches = Atomic<Int>(0)

    init(store: Store, relevance: Relevance, result: ObservedResult? = nil, fetch: @escaping Fetch,
         continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
        self.store = store
        self.relevance = relevance
        self.result = result
        self.fetch = fetch
        self.continuation = continuation
    }

    /// Reads the first value at once.
    func start() { schedule(nil) }

    /// A commit happened.
    func notice(_ changes: ChangeSet) {
        switch relevance {
        case .byCommit(let relevant):
            guard relevant(changes) else { return }
            schedule(changes)
        case .byLastRead(let relevant):
            schedule(changes, unless: relevant)
        }
    }

    /// The consumer stopped: no more reads (one under way ends, then waiters are resumed).
    func finish() { state.withLock { $0.finished = true } }

    /// Returns once no read is queued or under way (at once when none is).
    func settled() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if !state.running { return true }
                state.idleWaiters.append(waiter)
                return false
            }
            if idle { waiter.resume() }
        }
    }

    /// Queues a read for `changes` (nil: the first read), except when `relevant` is given, no
    /// read is queued or under way, and it finds `changes` irrelevant to the last read's result.
    private func schedule(_ changes: ChangeSet?, unless relevant: (@Sendable (ChangeSet) -> Bool)? = nil) {
        let startNow = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if let changes, let relevant, !state.running, !state.hasPending, !relevant(changes) { return false }
            if let changes { state.pending.merge(changes) } else { state.pending = .external }
            state.hasPending = true
            if state.running { return false }
            state.running = true
            result?.busy.store(true, ordering: .releasing)
            return true
        }
        if startNow { DispatchQueue.global().async { self.run() } }
    }

    /// Reads until no commit arrived during the last read.
    private func run() {
        while true {
            var waiters: [CheckedContinuation<Void, Never>] = []
            let next = state.withLock { state -> (ChangeSet, first: Bool)? in
                guard state.hasPending, !state.finished else {
                    state.running = false
                    result?.busy.store(false, ordering: .releasing)
                    waiters = state.takeIdleWaiters()
                    return nil
                }
                let changes = state.pending
                state.pending = ChangeSet()
                state.hasPending = false
                return (changes, state.last == nil)
            }
            guard let (changes, first) = next else {
                for waiter in waiters { waiter.resume() }
                return
            }
            do {
                fetches.add(1, ordering: .relaxed)
                let value = try store.read { tx in try fetch(tx, first ? nil : changes) }
                guard let value else { continue }
                reads.add(1, ordering: .relaxed)
                let changed = state.withLock { state -> Bool in
                    guard state.last != value else { return false }
                    state.last = value
                    return true
                }
                if changed { continuation.yield(value) }
            } catch {
                continuation.finish(throwing: error)
                let waiters = state.withLock { state in
                    state.finished = true
                    state.running = false
                    result?.busy.store(false, ordering: .releasing)
                    return state.takeIdleWaiters()
                }
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }
}
