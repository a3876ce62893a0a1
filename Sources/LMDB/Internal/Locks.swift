#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reader–writer lock that guards the memory map against resizing while transactions use it.
///
/// Every transaction holds it shared for its whole life; growing the map (`mdb_env_set_mapsize`)
/// holds it exclusively, because LMDB requires that no transaction of this process is active then.
///
/// It prefers a pending grow: once a thread waits to take it exclusively, new shared holders wait
/// until that grow is done, so readers that overlap without pause can no longer starve a write
/// that must grow the map (which holds the writer gate, across processes, while it waits). The
/// transactions already open finish first; the wait is bounded (``lockExclusive(timeout:)``).
/// A thread that already holds the lock shared (a read transaction open, on any environment) is
/// let in at once even while a grow waits: the grow waits for that thread anyway, so making it
/// wait in turn would deadlock.
// @unchecked Sendable: all mutable state (`shared`, `exclusive`, `waitingExclusive`) is read and
// written only with `mutex` held; the mutex and conditions live at stable heap addresses owned by
// this object.
final class MapLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Signalled when shared holders may enter (the exclusive holder left, or a grow gave up).
    private let sharedMayEnter: UnsafeMutablePointer<pthread_cond_t>
    /// Signalled when an exclusive holder may enter (the last shared holder or the exclusive one left).
    private let exclusiveMayEnter: UnsafeMutablePointer<pthread_cond_t>
    private var shared = 0
    private var exclusive = false
    private var waitingExclusive = 0

    init() {
        mutex = makeMutex()
        sharedMayEnter = makeMonotonicCondition()
        exclusiveMayEnter = makeMonotonicCondition()
    }

    deinit {
        freeCondition(sharedMayEnter)
        freeCondition(exclusiveMayEnter)
        freeMutex(mutex)
    }

    /// Takes the lock shared; waits while it is held exclusively, or while a grow waits for it
    /// unless this thread already holds it shared.
    func lockShared() {
        let reentrant = MapLock.sharedHolds.value > 0
        pthread_mutex_lock(mutex)
        while exclusive || (waitingExclusive > 0 && !reentrant) {
            pthread_cond_wait(sharedMayEnter, mutex)
        }
        shared += 1
        pthread_mutex_unlock(mutex)
        MapLock.sharedHolds.value += 1
    }

    /// Takes the lock shared if `lockShared` would not wait; false otherwise.
    func tryLockShared() -> Bool {
        let reentrant = MapLock.sharedHolds.value > 0
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !exclusive, waitingExclusive == 0 || reentrant else { return false }
        shared += 1
        MapLock.sharedHolds.value += 1
        return true
    }

    func unlockShared() {
        MapLock.sharedHolds.value -= 1
        pthread_mutex_lock(mutex)
        shared -= 1
        if shared == 0, waitingExclusive > 0 { pthread_cond_broadcast(exclusiveMayEnter) }
        pthread_mutex_unlock(mutex)
    }

    /// Takes the lock exclusively, waiting at most `timeout` seconds for the shared holders (and
    /// another exclusive holder) to leave; new shared holders wait meanwhile. False on timeout,
    /// when the lock is not taken and waiting readers go on.
    func lockExclusive(timeout: Double) -> Bool {
        let deadline = monotonicNow() + max(0, timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        waitingExclusive += 1
        while exclusive || shared > 0 {
            var until = timespec(deadline)
            if pthread_cond_timedwait(exclusiveMayEnter, mutex, &until) == ETIMEDOUT, exclusive || shared > 0 {
                waitingExclusive -= 1
                if waitingExclusive == 0 { pthread_cond_broadcast(sharedMayEnter) }
                return false
            }
        }
        waitingExclusive -= 1
        exclusive = true
        return true
    }

    func unlockExclusive() {
        pthread_mutex_lock(mutex)
        exclusive = false
        // Another grow waiting goes first (it finds the map grown and returns): readers without a
        // hold wake and wait again while one is pending.
        pthread_cond_broadcast(exclusiveMayEnter)
        pthread_cond_broadcast(sharedMayEnter)
        pthread_mutex_unlock(mutex)
    }

    /// Threads waiting to take the lock exclusively (for tests).
    var pendingExclusive: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waitingExclusive
    }

    /// How many transactions the calling thread has open, across environments. Growing a map
    /// waits for all of them to end, so a thread that still holds one must not wait (it would wait
    /// for itself).
    static let sharedHolds = ThreadLocalCounter()

}

/// An integer per thread (`pthread_getspecific`).
// @unchecked Sendable: the key is created once in init and never changes; the values it reaches
// are per thread by definition.
final class ThreadLocalCounter: @unchecked Sendable {
    private var key = pthread_key_t()

    init() { precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed") }

    var value: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }
}

/// Serializes writers in this process and, through an advisory `flock` on a lock file, across
/// processes, with a timeout: LMDB's own writer mutex would block forever.
///
/// The gate also remembers which thread holds it, so that a nested `write` on the same thread is
/// reported as the programmer error it is instead of deadlocking.
// @unchecked Sendable: all mutable state (`holder`) is read and written only with `mutex` held;
// the mutex and condition live at stable heap addresses owned by this object.
final class WriterGate: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var holder: pthread_t?
    private let lockFile: Int32

    /// Opens (creating, with permissions `mode`) `lockFilePath` for the inter-process lock.
    init(lockFilePath: String, mode: UInt16) throws(LMDBError) {
        let fd = open(lockFilePath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw LMDBError(code: errno, operation: "open", context: lockFilePath) }
        lockFile = fd
        mutex = makeMutex()
        condition = makeMonotonicCondition()
    }

    deinit {
        close(lockFile)
        freeCondition(condition)
        freeMutex(mutex)
    }

    /// True when the calling thread holds the gate.
    var isHeldByCurrentThread: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return holder.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// True when a thread of this process holds the gate (a snapshot: it may change at once).
    var isHeld: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return holder != nil
    }

    /// Takes the gate, waiting at most `timeout` seconds in all (in-process wait plus file lock).
    func acquire(timeout: Double, path: String) throws(LMDBError) {
        let deadline = monotonicNow() + max(0, timeout)
        pthread_mutex_lock(mutex)
        if let holder, pthread_equal(holder, pthread_self()) != 0 {
            pthread_mutex_unlock(mutex)
            preconditionFailure("a write transaction is already open on this thread for \(path); use a savepoint for nesting")
        }
        while holder != nil {
            var until = timespec(deadline)
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT, holder != nil {
                pthread_mutex_unlock(mutex)
                throw timeoutError(timeout, path: path)
            }
        }
        holder = pthread_self()
        pthread_mutex_unlock(mutex)

        // Across processes: poll the advisory lock with a short, growing pause.
        var pause: UInt32 = 200
        while flock(lockFile, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                release(fileLocked: false)
                throw LMDBError(code: failure, operation: "flock", context: path)
            }
            if monotonicNow() >= deadline {
                release(fileLocked: false)
                throw timeoutError(timeout, path: path)
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Gives the gate back.
    func release() { release(fileLocked: true) }

    private func release(fileLocked: Bool) {
        if fileLocked { flock(lockFile, LOCK_UN) }
        pthread_mutex_lock(mutex)
        holder = nil
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private func timeoutError(_ timeout: Double, path: String) -> LMDBError {
        LMDBError(code: LMDBError.busyCode, operation: "write lock",
                  context: "another writer held \(path) for more than \(timeout) s")
    }
}

/// Seconds on the monotonic clock.
func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

extension timespec {
    /// The time `seconds` after the clock's epoch; beyond a billion years (an infinite timeout),
    /// that; before the epoch (or NaN), the epoch.
    init(_ seconds: Double) {
        guard seconds < 3e16 else { self.init(tv_sec: 30_000_000_000_000_000, tv_nsec: 0); return }
        guard seconds > 0 else { self.init(tv_sec: 0, tv_nsec: 0); return }
        let whole = seconds.rounded(.down)
        self.init(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    }
}
