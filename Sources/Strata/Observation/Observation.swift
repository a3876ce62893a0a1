import Dispatch
import Synchronization

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

    public func makeAsyncIterator() -> AsyncThrowingStream<Value, any Error>.AsyncIterator { stream.makeAsyncIterator() }
}

/// Keeps one observation current: re-reads after relevant commits on a background thread,
/// one read at a time, and yields the value when it changed.
final class ObservationDriver<Value: Sendable & Equatable>: Sendable {
    /// Reads the value, given the changes since the last read (nil for the first read): returns
    /// nil when the changes provably leave the value as it was.
    typealias Fetch = @Sendable (ReadTransaction, ChangeSet?) throws -> Value?

    private struct State {
        var pending = ChangeSet()
        var hasPending = false
        var running = false
        var last: Value?
        var finished = false
    }

    private let store: Store
    private let relevant: @Sendable (ChangeSet) -> Bool
    private let fetch: Fetch
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let state = Mutex(State())
    /// Reads done, for tests of skipped work.
    let reads = Atomic<Int>(0)

    init(store: Store, relevant: @escaping @Sendable (ChangeSet) -> Bool, fetch: @escaping Fetch,
         continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
        self.store = store
        self.relevant = relevant
        self.fetch = fetch
        self.continuation = continuation
    }

    /// Reads the first value at once.
    func start() { schedule(nil) }

    /// A commit happened.
    func notice(_ changes: ChangeSet) {
        guard relevant(changes) else { return }
        schedule(changes)
    }

    func finish() { state.withLock { $0.finished = true } }

    private func schedule(_ changes: ChangeSet?) {
        let startNow = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if let changes { state.pending.merge(changes) } else { state.pending = .external }
            state.hasPending = true
            if state.running { return false }
            state.running = true
            return true
        }
        if startNow { DispatchQueue.global().async { self.run() } }
    }

    /// Reads until no commit arrived during the last read.
    private func run() {
        while true {
            let next = state.withLock { state -> (ChangeSet, first: Bool)? in
                guard state.hasPending, !state.finished else { state.running = false; return nil }
                let changes = state.pending
                state.pending = ChangeSet()
                state.hasPending = false
                return (changes, state.last == nil)
            }
            guard let (changes, first) = next else { return }
            do {
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
                state.withLock { $0.finished = true; $0.running = false }
                return
            }
        }
    }
}
