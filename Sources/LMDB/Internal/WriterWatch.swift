#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a write that it has waited too long for LMDB's own writer lock.
///
/// A write holds the writer gate (`writer.lock`) before it begins its LMDB transaction, so the
/// only writer it can still meet there is a program that writes the file with LMDB directly and
/// never takes the gate. LMDB waits for that writer's mutex without a timeout and offers no timed
/// wait, so the write cannot give up; it can only be reported. One thread, started at the first
/// write and sleeping while no write waits, calls each armed report once its deadline passes.
/// Arming and disarming take a mutex and wake the thread only when it sleeps past the new deadline.
// @unchecked Sendable: all mutable state (`entries`, `nextTicket`, `started`, `sleepsUntil`) is
// read and written only with `mutex` held; the mutex and condition live at stable heap addresses
// owned by this object, which lives for the whole process.
final class WriterWatch: @unchecked Sendable {
    static let shared = WriterWatch()

    private struct Entry {
        let deadline: Double
        let report: @Sendable () -> Void
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var entries: [Int: Entry] = [:]
    private var nextTicket = 0
    private var started = false
    /// The deadline the thread sleeps until; nil while it sleeps with nothing armed.
    private var sleepsUntil: Double?

    private init() {
        mutex = makeMutex()
        condition = makeMonotonicCondition()
    }

    /// Calls `report` once, on the watch's thread, unless ``disarm(_:)`` comes within `seconds`.
    func arm(after seconds: Double, report: @escaping @Sendable () -> Void) -> Int {
        let deadline = monotonicNow() + max(0, seconds)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let ticket = nextTicket
        nextTicket += 1
        entries[ticket] = Entry(deadline: deadline, report: report)
        if !started {
            started = true
            var thread = pthread_t()
            if pthread_create(&thread, nil, { _ in WriterWatch.shared.run(); return nil }, nil) == 0 {
                pthread_detach(thread)
            }
        } else if sleepsUntil.map({ deadline < $0 }) ?? true {
            pthread_cond_signal(condition)
        }
        return ticket
    }

    /// Cancels the report of `ticket` (nothing when it was made already).
    func disarm(_ ticket: Int) {
        pthread_mutex_lock(mutex)
        entries[ticket] = nil
        pthread_mutex_unlock(mutex)
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            guard let earliest = entries.values.lazy.map(\.deadline).min() else {
                sleepsUntil = nil
                pthread_cond_wait(condition, mutex)
                continue
            }
            let now = monotonicNow()
            guard earliest <= now else {
                sleepsUntil = earliest
                var until = timespec(earliest)
                pthread_cond_timedwait(condition, mutex, &until)
                continue
            }
            let due = entries.filter { $0.value.deadline <= now }
            for ticket in due.keys { entries[ticket] = nil }
            pthread_mutex_unlock(mutex)
            for entry in due.values { entry.report() }
            pthread_mutex_lock(mutex)
        }
    }
}
