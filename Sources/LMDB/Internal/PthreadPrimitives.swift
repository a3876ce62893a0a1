#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex at a stable heap address, as every lock of this module keeps one (pthread
/// objects must not move); free it with ``freeMutex(_:)``.
func makeMutex() -> UnsafeMutablePointer<pthread_mutex_t> {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    return mutex
}

/// A condition variable whose timed waits use the monotonic clock, so that a change of the wall
/// clock neither cuts nor stretches a timeout; free it with ``freeCondition(_:)``.
func makeMonotonicCondition() -> UnsafeMutablePointer<pthread_cond_t> {
    let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
    pthread_condattr_destroy(&attributes)
    return condition
}

func freeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
}

func freeCondition(_ condition: UnsafeMutablePointer<pthread_cond_t>) {
    pthread_cond_destroy(condition)
    condition.deallocate()
}
