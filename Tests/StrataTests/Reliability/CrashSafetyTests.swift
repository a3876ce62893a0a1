import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// Crash safety: a child process runs ``CrashWorkload`` (JSON imports with overflow-page records,
/// deletes, index builds over every record, map growth from 1 MiB, a full-text index kept throughout)
/// and is killed with SIGKILL at a random moment; the parent then opens the store, verifies every
/// entity's indexes (the full-text one against the records' texts too) and checks that
/// the store holds exactly the state after the last acknowledged step, or after the one following
/// it (committed, but killed before the acknowledgement was written). The next child continues on
/// the same store from there, so every run also starts from a crashed store.
///
/// The child acknowledges step n by writing `ack n` to its standard output (a pipe: the bytes are
/// the parent's once `write` returns) right after the step's commit returned. A thread of the
/// child sends SIGKILL to its own process after a random delay: the kill lands wherever the
/// writer is, mid-import, mid-commit, mid-index-build or mid-map-growth.
///
/// `swift test` runs 4 kills; `STRATA_EXTENDED=1` runs 60 (`STRATA_CRASH_KILLS=N` sets the number).
@Suite struct CrashSafetyTests {
    static var kills: Int { KillRuns.count(default: 4, extended: 60) }

    /// A map of 1 MiB at first (the workload grows it to tens of MiB); LMDB takes the larger size
    /// recorded in the file when it opens a grown store.
    static var smallMap: Store.Configuration {
        var configuration = Store.Configuration()
        configuration.initialMapSize = 1 << 20
        return configuration
    }

    /// Index verification problems of every entity.
    static func indexProblems(_ store: Store) throws -> [String] {
        try store.read { tx in
            try tx.entityNames().flatMap { entity in
                try tx.verifyIndexes(entity: entity).problems.map { "\(entity): \($0)" }
            }
        }
    }

    @Test func killedWritersLeaveExactlyTheLastCommittedState() async throws {
        let dir = try TemporaryDirectory("crash")
        let path = dir.path("store")
        let seed: UInt64 = UInt64(ProcessInfo.processInfo.environment["STRATA_CRASH_SEED"] ?? "") ?? 0xC0FFEE
        let workload = CrashWorkload(seed: seed)
        var random = SeededGenerator(seed: seed)
        var completed = 0                  // steps the store holds
        var model = workload.state(after: 0)
        var committedButUnacknowledged = 0
        var killedDuringSteps = 0
        for round in 0..<Self.kills {
            // The kill comes during or after step `killStep` (the first round: during the very first
            // step, while the map grows from 1 MiB); the steps before it commit however slow the
            // machine is (under a sanitizer, say), so every round makes progress.
            let start = completed
            let killStep = start + (round == 0 ? 1 : Int.random(in: 1...3, using: &random))
            let delay = UInt32.random(in: 0...300_000, using: &random)
            let result = await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) {
                [path = path as String, seed = seed as UInt64, start = start as Int, killStep = killStep as Int, delay = delay as UInt32] in
                let store = try Store(path: path, configuration: CrashSafetyTests.smallMap)
                let workload = CrashWorkload(seed: seed)
                for number in (start + 1)...(start + 200) {
                    if number == killStep {
                        Thread.detachNewThread {
                            usleep(delay)
                            kill(getpid(), SIGKILL)
                        }
                    }
                    try workload.run(number, on: store)
                    let line = Array("ack \(number)\n".utf8)
                    _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
                }
                while true { pause() }       // every step done: wait for the kill
            }
            let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            let acknowledged = output.split(separator: "\n").compactMap { line in
                line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil
            }
            #expect(acknowledged == Array((start + 1)..<(start + 1 + acknowledged.count)), "kill \(round): acknowledgements out of order")
            let last = acknowledged.last ?? start

            // The store opens, every index matches its records, and the state is one of the two allowed.
            let store = try Store(path: path, configuration: Self.smallMap)
            for problem in try Self.indexProblems(store) { Issue.record("kill \(round): \(problem)") }
            let found = try CrashWorkload.read(store)
            // The full-text index answers as the records do: record 0 alone is named "step N".
            if found.docs[0] != nil {
                let named = try await store.read { tx in try tx.query(entity: "Doc").where("name SEARCH 'step'").all().map(\.key) }
                #expect(named == [.int(0)], "kill \(round): the text index finds \(named) for 'step'")
            }
            while completed < last {
                completed += 1
                model = workload.state(after: completed)
            }
            if found == model {
                // the state of the last acknowledged step
            } else {
                let next = workload.state(after: last + 1)
                if found == next {
                    completed = last + 1
                    model = next
                    committedButUnacknowledged += 1
                } else {
                    Issue.record("kill \(round) \(delay) µs into step \(killStep): the store holds \(found), expected step \(last) (\(model)) or step \(last + 1) (\(next))")
                    return
                }
            }
            if acknowledged.count < 200 { killedDuringSteps += 1 }
            #expect(last >= killStep - 1, "kill \(round): steps before \(killStep) were not all acknowledged")
        }
        KillRuns.expectCoverage(completed > 0, "no step ever committed: the kills came too early to test anything")
        KillRuns.expectCoverage(killedDuringSteps == Self.kills, "\(killedDuringSteps) of \(Self.kills) kills landed during steps")
        let store = try Store(path: path, configuration: Self.smallMap)
        #expect(store.mapSize > 1 << 20, "the map never grew from 1 MiB")
        print("crash safety: \(Self.kills) kills survived, \(completed) steps committed, \(committedButUnacknowledged) committed but unacknowledged, map \(store.mapSize >> 10) KiB")
    }
}
