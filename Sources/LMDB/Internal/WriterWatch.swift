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
/// Its state is a ``ConditionLock`` (the one lock, with its timed wait): arming and disarming wake
/// no one, except an arming whose deadline comes before the one the thread sleeps until.
final class WriterWatch: Sendable {
    static let shared = WriterWatch()

    private struct Entry {
        let deadline: Double
        let report: @Sendable () -> Void
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextTicket = 0
        var started = false
        /// The deadline the thread sleeps until; nil while it sleeps with nothing armed (or is
        /// not started), so that every arming wakes it.
        var sleepsUntil: Double?

        var earliest: Double? { entries.values.lazy.map(\.deadline).min() }
    }

    private let state = ConditionLock(State())

    /// A watch of its own, whose thread starts at its first arming and lives as long as the
    /// process: the store's writes use ``shared``; a test uses its own, which no other write arms.
    init() {}

    /// Calls `report` once, on the watch's thread, unless ``disarm(_:)`` comes within `seconds`.
    func arm(after seconds: Double, report: @escaping @Sendable () -> Void) -> Int {
        let deadline = monotonicNow() + max(0, seconds)
        let (ticket, start, wake) = state.withLockWakingNone { state in
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.entries[ticket] = Entry(deadline: deadline, report: report)
            let start = !state.started
            state.started = true
            return (ticket, start, !start && (state.sleepsUntil.map { deadline < $0 } ?? true))
        }
        if start {
            var thread = pthread_t()
            // The thread holds the watch: `run` never returns.
            let watch = Unmanaged.passRetained(self).toOpaque()
            if pthread_create(&thread, nil, { watch in
                Unmanaged<WriterWatch>.fromOpaque(watch!).takeRetainedValue().run()
                return nil
            }, watch) == 0 {
                pthread_detach(thread)
            } else {
                Unmanaged<WriterWatch>.fromOpaque(watch).release()
            }
        } else if wake {
            state.withLock { _ in }   // the thread looks at the entries again
        }
        return ticket
    }

    /// The reports armed and not yet made or cancelled, and the deadline the thread sleeps until
    /// (nil while nothing is armed or a report is being made): what tests look at.
    var armed: (count: Int, sleepsUntil: Double?) {
        state.withLockWakingNone { ($0.entries.count, $0.sleepsUntil) }
    }

    /// Cancels the report of `ticket` (nothing when it was made already).
    func disarm(_ ticket: Int) {
        state.withLockWakingNone { $0.entries[ticket] = nil }
    }

    private func run() {
        while true {
            // Sleeps while nothing is armed; then the earliest deadline and the reports due by now.
            let (earliest, due) = state.withLock(untilDone: { state -> ConditionLock<State>.Step<(Double, [Entry])> in
                guard let earliest = state.earliest else {
                    state.sleepsUntil = nil
                    return .wait
                }
                let now = monotonicNow()
                let due = state.entries.filter { $0.value.deadline <= now }
                for ticket in due.keys { state.entries[ticket] = nil }
                state.sleepsUntil = due.isEmpty ? earliest : nil
                return .done((earliest, Array(due.values)))
            })
            guard due.isEmpty else {
                for entry in due { entry.report() }
                continue
            }
            // Until the deadline, or until an arming brings an earlier one (checked before sleeping,
            // so an arming between the two locks is not missed).
            _ = state.wait(until: earliest) { state in state.earliest.map { $0 < earliest } ?? false }
        }
    }
}
