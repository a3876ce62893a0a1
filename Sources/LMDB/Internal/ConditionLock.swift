#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, with a condition variable for waiting until the value
/// reaches some state.
///
/// ThreadSanitizer models pthread mutexes natively; `Synchronization.Mutex` (a futex on Linux) is
/// reported as racing by the TSan of Swift 6.3 even when used correctly (its locking is not seen,
/// so two threads' accesses under it look unordered), so code whose sanitizer runs must stay
/// clean uses this lock. `package`: Strata's observation and async code use it too.
///
/// ```swift
/// let counter = ConditionLock(0)
/// counter.withLock { $0 += 1 }                                   // changes wake waiters
/// counter.withLock { n in n > 0 ? .done(n) : .wait }             // waits until positive
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
}
