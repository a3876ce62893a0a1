#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LMDB

/// The worker threads that work beside a reading thread: decoding records (``BatchDecoder``,
/// ``DecodePipeline``), faulting in a result array (``ResultPrefault``) and parsing an import's
/// input (``ImportPipeline``).
///
/// A fixed, bounded set of threads, at most ``threadLimit`` (the cores but one: the calling thread
/// is the other; none on one core), started one at a time when work is offered and none is idle,
/// shared by every ``Store`` of one environment (``Store/decodeExecutor``), and ended (joined) when
/// the last of those stores is released. At process exit the idle workers end with the process.
///
/// Work is *offered*, never relied upon: ``offer(_:)`` queues it and returns a ``DecodeTicket``,
/// and the caller goes on with its own share. When it needs the result it calls
/// ``DecodeTicket/reclaim()``: work no worker has started yet is taken back (it will never run)
/// and the caller does it itself; only work a worker is running is waited for
/// (``DecodeTicket/wait()``). So a caller never waits for a queue: with every worker busy (or
/// none), it does all its work on its own thread, as a one-core machine does. No thread is ever
/// parked waiting for another caller's work, and workers never wait inside a job.
///
/// ```swift
/// let ticket = executor.offer { decodeFirstHalf() }
/// decodeSecondHalf()
/// if ticket.reclaim() { decodeFirstHalf() } else { ticket.wait() }
/// ```
package final class DecodeExecutor: Sendable {
    /// The most worker threads this executor runs.
    package let threadLimit: Int
    /// The queue and the workers' state, which the worker threads share (they hold it, not the
    /// executor, so that the executor's release ends them).
    package let pool: WorkerPool

    /// An executor of at most `threads` workers (`cores − 1` for a store); none are started yet.
    package init(threads: Int = max(0, DecodeThreads.cores - 1)) {
        threadLimit = max(0, threads)
        pool = WorkerPool(limit: threadLimit)
    }

    deinit {
        pool.shutDown()
    }

    /// Queues `work` for a worker, starting one if none is idle and fewer than ``threadLimit``
    /// run. With no workers allowed, the ticket comes back taken back already: the caller does it.
    package func offer(_ work: @escaping @Sendable () -> Void) -> DecodeTicket {
        guard threadLimit > 0 else {
            let ticket = DecodeTicket(pool: pool, work: nil)
            ticket.state = .reclaimed
            return ticket
        }
        let ticket = DecodeTicket(pool: pool, work: work)
        pool.enqueue(ticket)
        return ticket
    }
}

/// One piece of offered work: queued, running, done, or taken back by the caller.
///
/// `state` and `work` are read and written only under the pool's lock (hence `@unchecked Sendable`).
package final class DecodeTicket: @unchecked Sendable {
    package enum State { case queued, running, done, reclaimed }

    fileprivate let pool: WorkerPool
    fileprivate var state = State.queued
    /// The work, until a worker takes it or the caller takes it back: what it holds (a batch's
    /// bytes) is freed then, not when a worker gets to the ticket in the queue.
    fileprivate var work: (@Sendable () -> Void)?

    fileprivate init(pool: WorkerPool, work: (@Sendable () -> Void)?) {
        self.pool = pool
        self.work = work
    }

    /// Takes the work back unless a worker has started it: true when it will never run and the
    /// caller must do it itself; false when it is running or done (then ``wait()`` for it).
    package func reclaim() -> Bool {
        // Waiters wait for work to appear or to end; taking work back does neither.
        pool.lock.withLockWakingNone { _ in
            switch state {
            case .queued, .reclaimed:
                state = .reclaimed
                work = nil
                return true
            case .running, .done:
                return false
            }
        }
    }

    /// Takes the work back, as ``reclaim()`` does, only when no worker is free to start it: while
    /// one is (idle, or started and not yet running a job), waits until the work starts. For long
    /// work that should run beside the caller (an import's reader): taken back at once, it would
    /// rarely run on a worker at all, since starting a thread takes longer than the caller needs
    /// to come back for it. Work queued ahead of it is short (decoding), so the wait is too.
    package func reclaimUnlessStarting() -> Bool {
        pool.lock.withLock(untilDone: { pool -> ConditionLock<WorkerPool.State>.Step<Bool> in
            switch state {
            case .reclaimed:
                return .done(true)
            case .running, .done:
                return .done(false)
            case .queued:
                if pool.running > pool.busy, !pool.stopping { return .wait }
                state = .reclaimed
                work = nil
                return .done(true)
            }
        })
    }

    /// Whether a worker has run the work to its end.
    package var isDone: Bool { pool.lock.withLockWakingNone { _ in state == .done } }

    /// Waits until the work a worker started has ended; returns at once for work taken back.
    package func wait() {
        pool.lock.withLock(untilDone: { _ -> ConditionLock<WorkerPool.State>.Step<Void> in
            state == .running || state == .queued ? .wait : .done(())
        })
    }
}

/// The queue of offered work and the threads that take it.
///
/// Everything mutable is in ``State`` under ``lock`` (one ``ConditionLock``: workers wait on it for
/// work, callers for a running ticket to end, ``shutDown()`` for the workers to exit).
package final class WorkerPool: Sendable {
    package struct State {
        /// Offered work not taken yet, oldest first from `head` (taken back work is skipped).
        package var queue: [DecodeTicket?] = []
        package var head = 0
        /// Workers started and not exited.
        package var running = 0
        /// Workers waiting for work.
        package var idle = 0
        /// Workers running a job.
        package var busy = 0
        /// The joinable handles of the workers started.
        package var threads: [pthread_t] = []
        /// No more work is taken; workers exit.
        package var stopping = false

        package var hasWork: Bool { head < queue.count }
    }

    package let lock: ConditionLock<State>
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
        lock = ConditionLock(State())
    }

    /// Workers started and not yet exited (for tests: zero once the executor is released).
    package var runningThreads: Int { lock.withLock { $0.running } }

    fileprivate func enqueue(_ ticket: DecodeTicket) {
        let startThread = lock.withLock { state -> Bool in
            state.queue.append(ticket)
            // A new worker only when the work waiting outnumbers the idle workers.
            guard state.queue.count - state.head > state.idle, state.running < limit, !state.stopping else { return false }
            state.running += 1
            return true
        }
        if startThread { start() }
    }

    /// Starts one worker thread (already counted in `running`).
    private func start() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            #if canImport(Glibc)
            let pool = Unmanaged<WorkerPool>.fromOpaque(context!).takeRetainedValue()
            #else
            let pool = Unmanaged<WorkerPool>.fromOpaque(context).takeRetainedValue()
            #endif
            pool.work()
            return nil
        }, context)
        if result == 0 {
            lock.withLock { $0.threads.append(thread) }
        } else {
            // No thread: the work offered stays queued until a caller takes it back.
            Unmanaged<WorkerPool>.fromOpaque(context).release()
            lock.withLock { $0.running -= 1 }
        }
    }

    /// A worker's life: takes queued work in order and runs it, waits while there is none, and
    /// exits when the pool stops.
    private func work() {
        while let ticket = takeAndRun() {
            lock.withLock { state in
                ticket.state = .done
                state.busy -= 1
            }
        }
    }

    /// Takes the next work, runs it and lets it go; nil once the pool stops. The work (and what it
    /// captured, a batch's buffers) is released when this returns, before the ticket says done:
    /// a caller that reuses the buffers after ``DecodeTicket/wait()`` then holds the only
    /// reference, and its `removeAll(keepingCapacity:)` keeps their storage instead of copying it.
    private func takeAndRun() -> DecodeTicket? {
        guard let (ticket, job) = take() else { return nil }
        job()
        return ticket
    }

    /// The next work to run, marked running; nil once the pool stops.
    private func take() -> (DecodeTicket, @Sendable () -> Void)? {
        /// Whether this worker is counted in `idle`.
        var counted = false
        return lock.withLock(untilDone: { state -> ConditionLock<State>.Step<(DecodeTicket, @Sendable () -> Void)?> in
            if counted {
                state.idle -= 1
                counted = false
            }
            while state.hasWork {
                let ticket = state.queue[state.head].take()!
                state.head += 1
                if state.head == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                // Work a caller took back is not run.
                guard ticket.state == .queued, let work = ticket.work.take() else { continue }
                ticket.state = .running
                state.busy += 1
                return .done((ticket, work))
            }
            if state.stopping {
                state.running -= 1
                return .done(nil)
            }
            state.idle += 1
            counted = true
            return .wait
        })
    }

    /// Stops the workers once they finish what they run and joins them. Work still queued is
    /// left to its callers, who take it back.
    package func shutDown() {
        let threads = lock.withLock { state -> [pthread_t] in
            state.stopping = true
            defer { state.threads.removeAll() }
            return state.threads
        }
        let current = pthread_self()
        for thread in threads {
            // A worker releasing the last store joins every worker but itself; it ends on its own.
            if pthread_equal(thread, current) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
        }
    }
}
