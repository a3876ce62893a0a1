#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one lock of Strata and its LMDB wrapper: a value guarded by a `pthread_mutex_t`, with a
/// condition variable for waiting until the value reaches some state.
///
/// Why this and not `Synchronization.Mutex`, written once for the whole package: both targets run
/// under ThreadSanitizer (`tools/sanitize thread`), which models pthread mutexes natively but does
/// not see `Mutex`'s locking (a futex on Linux) with the Swift 6.3.1 toolchain: two threads that
/// change a value only inside `Mutex.withLock` are reported as a Swift access race, so a sanitizer
/// run full of false reports would hide the real ones. And some callers must wait for a state
/// (a worker for work, a caller for a decoded chunk, an import's reader for room), which `Mutex`
/// cannot do; one type serves both, with no cost to callers that never wait (a broadcast with
/// no waiter returns at once). Lock-free counters and flags use `Atomic`; LMDB keeps two locks
/// for jobs this one does not do: the reader–writer ``MapLock`` around `mdb_env_set_mapsize`
/// (with its per-thread count) and the cross-process ``WriterGate``. `package`: Strata uses it too.
///
/// ```swift
/// let counter = ConditionLock(0)
/// counter.withLock { $0 += 1 }                                   // changes wake waiters
/// counter.withLock(untilDone: { n in n > 0 ? .done(n) : .wait }) // waits until positive
/// ```
// @unchecked Sendable: `value` is read and written only with `mutex` held; the mutex and condition
// live at stable heap addresses owned by this object and are touched only through pthread calls.
// Like `Mutex`, it makes a value that is not Sendable shareable: keep such values inside.
package final class ConditionLock<Value>: @unchecked Sendable {
    /// What a step run under ``withLock(untilDone:)`` asks for.
    package enum Step<Result> {
        /// Unlock and return this.
        case done(Result)
        /// Release the lock until another `withLock` changes the value, then run the step again.
        case wait
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = makeMutex()
        condition = makeMonotonicCondition()
    }

    deinit {
        freeCondition(condition)
        freeMutex(mutex)
    }

    /// Runs `body` with the lock held, then wakes every thread waiting in
    /// ``withLock(untilDone:)`` so that it looks at the value again.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Runs `body` with the lock held and wakes no waiter: for a look at the value, or a change
    /// that no waiter waits for. A waiter woken for nothing takes the lock only to wait again,
    /// which the thread that woke it then queues behind.
    package func withLockWakingNone<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `step` with the lock held until it returns ``Step/done(_:)``; after ``Step/wait`` the
    /// lock is released until another call changes the value (no access to the value is open then).
    package func withLock<Result, Failure: Error>(
        untilDone step: (inout Value) throws(Failure) -> Step<Result>
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while true {
            switch try step(&value) {
            case .done(let result): return result
            case .wait: pthread_cond_wait(condition, mutex)
            }
        }
    }

    /// Waits, with the lock released, until another call changes the value so that `isDone`
    /// holds, or until `deadline` (seconds of `monotonicNow()`) passes; returns whether `isDone`
    /// held. Wakes no waiter.
    package func wait(until deadline: Double, for isDone: (Value) -> Bool) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var until = timespec(deadline)
        while !isDone(value) {
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT { return isDone(value) }
        }
        return true
    }
}
