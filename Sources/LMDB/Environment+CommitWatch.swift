import CLMDB
import Glibc
import Synchronization

extension Environment {
    /// Blocks the calling thread until a transaction newer than `snapshot` (the
    /// ``Transaction/id`` of a read that found nothing new) is visible to new read transactions,
    /// or `timeout` seconds pass; returns whether one is. Commits of this and other processes are
    /// noticed as they are written (inotify on the data file, one thread per environment), not by polling.
    public func waitForCommit(after snapshot: Int, timeout: Double) -> Bool {
        let watch = commitWatch
        return watch.wait(after: snapshot, timeout: timeout)
    }

    /// Calls `handler` on a background thread with the id of the newest visible transaction
    /// whenever commits (of this or another process) have become visible to new reads, until the
    /// returned subscription is cancelled or released.
    public func observeCommits(_ handler: @escaping @Sendable (Int) -> Void) -> CommitSubscription {
        let watch = commitWatch
        return CommitSubscription(watch: watch, token: watch.add(handler))
    }

    /// The id of the newest transaction a read begun now sees (`mti_txnid` of the lock file; in a
    /// lockless environment, the newest meta page).
    public var visibleTransactionID: Int { (try? read { $0.id }) ?? lastTransactionID }

    /// Makes the last commit of a writer that died inside its commit visible, when there is one:
    /// a writer killed after writing its meta page but before publishing the transaction in the
    /// lock file leaves the commit on disk, yet new reads keep the older snapshot until the next
    /// writer takes LMDB's writer lock, which repairs the lock file's state after a dead owner.
    /// This takes the writer lock for a moment (and writes nothing) when the meta page is ahead of
    /// what reads see and no Strata writer of any process holds the lock (a live commit between
    /// its meta page and its publication holds it). Returns true when it published a commit.
    @discardableResult
    public func publishCommitOfDeadWriter() -> Bool {
        guard isWritable, !isLockless else { return false }
        let visible = visibleTransactionID
        guard lastTransactionID > visible else { return false }
        // Timeout 0: only when the gate is free at once (a live writer holds it through its commit).
        _ = try? write(timeout: 0) { _ in }
        return visibleTransactionID > visible
    }
}

/// A registration of ``Environment/observeCommits(_:)``; cancelled when released.
public final class CommitSubscription: Sendable {
    private let watch: CommitWatch
    private let token: Int

    init(watch: CommitWatch, token: Int) {
        self.watch = watch
        self.token = token
    }

    /// Stops the calls to the handler.
    public func cancel() { watch.remove(token) }

    deinit { watch.remove(token) }
}

/// Notices commits as they are written, for the waits and observers of one environment: a thread
/// sleeps on inotify for writes to `data.mdb` (every commit writes its pages and meta page with
/// `pwrite`), then reads the newest visible transaction id and tells waiters and observers of any
/// change. The thread runs while anyone waits or observes. Between a commit's meta page and its
/// publication in the lock file (the commit's sync), the meta page is ahead of what reads see: the
/// thread then looks again after a millisecond or so, and after ``deadWriterDelay`` asks the
/// environment to publish the commit of a writer that died in that window
/// (``Environment/publishCommitOfDeadWriter()``). Where inotify is unavailable, and as a safety net
/// for writes it cannot see, it also looks every ``idleInterval`` (``fallbackInterval`` without
/// inotify).
final class CommitWatch: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is guarded by `state`'s lock; `wake` is a pipe
    // written by any thread and read only by the watch thread.
    static let idleInterval = 1.0
    static let fallbackInterval = 0.05
    static let deadWriterDelay = 0.05

    private struct State {
        var handlers: [Int: @Sendable (Int) -> Void] = [:]
        var waiters = 0
        var nextToken = 0
        var running = false
        var visible = 0
    }

    private unowned let environment: Environment
    private let state = ConditionLock(State())
    /// Wakes the watch thread when its users change: a pipe's reading and writing ends
    /// (-1 when none could be made: the thread then notices within ``idleInterval``).
    private let wake: (read: Int32, write: Int32)

    init(environment: Environment) {
        self.environment = environment
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC); _ = fcntl(end, F_SETFL, O_NONBLOCK) }
            wake = (ends[0], ends[1])
        } else {
            wake = (-1, -1)
        }
    }

    deinit {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    func add(_ handler: @escaping @Sendable (Int) -> Void) -> Int {
        let token = state.withLock { state in
            state.nextToken += 1
            state.handlers[state.nextToken] = handler
            return state.nextToken
        }
        startIfNeeded()
        return token
    }

    func remove(_ token: Int) {
        state.withLock { state in _ = state.handlers.removeValue(forKey: token) }
        signalThread()
    }

    func wait(after snapshot: Int, timeout: Double) -> Bool {
        if environment.visibleTransactionID > snapshot { return true }
        state.withLock { $0.waiters += 1 }
        startIfNeeded()
        defer {
            state.withLock { $0.waiters -= 1 }
            signalThread()
        }
        let deadline = monotonicNow() + max(0, timeout)
        while true {
            if environment.visibleTransactionID > snapshot { return true }
            let now = monotonicNow()
            guard now < deadline else { return false }
            // Woken by the thread at each change; the bound covers a change it has not seen yet.
            _ = state.wait(until: min(deadline, now + Self.idleInterval)) { $0.visible > snapshot }
        }
    }

    private func signalThread() {
        guard wake.write >= 0 else { return }
        var one: UInt8 = 1
        _ = Glibc.write(wake.write, &one, 1)
    }

    private func startIfNeeded() {
        let start = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        // The thread keeps the watch and its environment while it runs (a user holds both now).
        let box = Unmanaged.passRetained(ThreadStart(watch: self, environment: environment))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
            start.watch.run(start.environment)
            return nil
        }, box.toOpaque())
        if started == 0 {
            pthread_detach(thread)
        } else {
            box.release()
            state.withLock { $0.running = false }
        }
    }


    private final class ThreadStart {
        let watch: CommitWatch
        let environment: Environment
        init(watch: CommitWatch, environment: Environment) { self.watch = watch; self.environment = environment }
    }

    /// The watch thread: until no one waits or observes.
    private func run(_ environment: Environment) {
        let notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        let watched = notify >= 0 && inotify_add_watch(notify, environment.path + "/data.mdb", UInt32(IN_MODIFY)) >= 0
        defer { if notify >= 0 { close(notify) } }
        var visible = environment.visibleTransactionID
        state.withLock { $0.visible = visible }
        var aheadSince: Double?   // when the meta page was first seen ahead of what reads see
        var pause = 0.001
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let idle = watched ? Self.idleInterval : Self.fallbackInterval
            let timeout = aheadSince == nil ? idle : pause
            var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: watched ? notify : -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, 2, Int32((timeout * 1000).rounded(.up)))
            if wake.read >= 0 { while read(wake.read, &buffer, buffer.count) > 0 {} }
            if watched { while read(notify, &buffer, buffer.count) > 0 {} }

            let current = environment.visibleTransactionID
            if environment.lastTransactionID > current {
                let now = monotonicNow()
                let since = aheadSince ?? now
                aheadSince = since
                pause = min(pause * 2, 0.008)
                if now - since >= Self.deadWriterDelay, environment.publishCommitOfDeadWriter() { aheadSince = nil }
            } else {
                aheadSince = nil
                pause = 0.001
            }
            let latest = max(current, environment.visibleTransactionID)
            // withLock wakes the waiters, which look at `visible` again.
            let (handlers, keepRunning) = state.withLock { state -> ([@Sendable (Int) -> Void], Bool) in
                if latest > state.visible { state.visible = latest }
                guard !state.handlers.isEmpty || state.waiters > 0 else {
                    state.running = false
                    return ([], false)
                }
                return (latest > visible ? Array(state.handlers.values) : [], true)
            }
            if latest > visible {
                visible = latest
                for handler in handlers { handler(latest) }
            }
            guard keepRunning else { return }
        }
    }
}
