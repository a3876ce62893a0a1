import Foundation
import Testing
@testable import LMDB

/// The watch that reports a write kept waiting by a foreign LMDB writer (`WriterWatch`, its state
/// in a `ConditionLock`): an arming with an earlier deadline wakes the thread sleeping toward a
/// later one, every report is made once, a disarmed one never. No assertion depends on timing: the
/// deadlines are zero (due at once) or an hour (never due within a test). Each test has a watch of its
/// own: the shared one is armed by every write of the tests running beside these.
@Suite(.serialized) struct WriterWatchTests {
    /// Waits until `condition` holds, and fails the test instead of hanging when it has not after
    /// two minutes (a bound for a broken watch, not a measure: a working one answers at once).
    static func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let giveUp = Date().addingTimeInterval(120)
        while !condition() {
            guard Date() < giveUp else {
                Issue.record("the watch did not get there", sourceLocation: sourceLocation)
                return
            }
            usleep(1_000)
        }
    }

    @Test
    func anEarlierDeadlineWakesTheWatchSleepingTowardALaterOne() {
        let watch = WriterWatch()
        let made = ConditionLock([String]())
        let far = watch.arm(after: 3_600) { made.withLock { $0.append("far") } }
        Self.waitUntil { watch.armed.sleepsUntil != nil }   // asleep until the far deadline
        let near = watch.arm(after: 0) { made.withLock { $0.append("near") } }
        Self.waitUntil { made.withLockWakingNone { !$0.isEmpty } }
        #expect(made.withLockWakingNone { $0 } == ["near"])
        #expect(watch.armed.count == 1)
        watch.disarm(near)   // made already: nothing
        watch.disarm(far)
        #expect(watch.armed.count == 0)
        // Disarming wakes no one: the thread still sleeps toward the far deadline, and the next
        // earlier arming wakes it again.
        _ = watch.arm(after: 0) { made.withLock { $0.append("again") } }
        Self.waitUntil { made.withLockWakingNone { $0.count } == 2 }
        #expect(watch.armed.count == 0)
        #expect(made.withLockWakingNone { $0 } == ["near", "again"], "a disarmed report is never made")
    }

    @Test
    func reportsArmedFromManyThreadsAreEachMadeOnce() async {
        let watch = WriterWatch()
        let made = ConditionLock([Int: Int]())
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let ticket = watch.arm(after: index.isMultiple(of: 2) ? 0 : 3_600) { made.withLock { $0[index, default: 0] += 1 } }
                    if !index.isMultiple(of: 2) { watch.disarm(ticket) }
                }
            }
        }
        Self.waitUntil { made.withLockWakingNone { $0.count } == 32 }
        #expect(watch.armed.count == 0)
        #expect(made.withLockWakingNone { $0 } == Dictionary(uniqueKeysWithValues: stride(from: 0, to: 64, by: 2).map { ($0, 1) }))
    }
}
