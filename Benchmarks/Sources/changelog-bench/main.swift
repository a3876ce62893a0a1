// changelog-bench [--count N] [--rounds R] [--lag-writes W] [--rate PER_SECOND]
//
// What the change log costs and how fast a replica follows, on IndexedBenchUser (the six indexes of query-side-by-side):
// 1. upsert of N users in one write transaction into an empty store, log off and log on,
//    alternately for R rounds: the rates and the overhead of the log (median against median);
// 2. a replica applying the whole feed of the logged upserts (`Store.replicate(from:)`): changes/s;
// 3. lag: a writer commits W single-record upserts at PER_SECOND writes/s (durable commits) while
//    a follower reads the feed as JSON lines (`Store.changes(after:)` → `ChangeFeedLines`) into a
//    pipe and a second thread reads the pipe and applies each commit to a replica
//    (`ChangeFeedLines.Reader` → `applyChanges`); the lag of a commit is from its commit returning
//    on the writer to its sequence being the replica's position. Prints the median, p99 and max.
// Build in release: `swift run -c release --package-path Benchmarks changelog-bench`.
import Dataset
import EngineComparison
import Foundation
import QueryComparison
import Strata
import Synchronization

var count = 1_000_000
var rounds = 3
var lagWrites = 3_000
var rate = 1_000.0
var arguments = BenchmarkArguments(tool: "changelog-bench")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--rounds": rounds = arguments.positiveInteger(for: flag)
    case "--lag-writes": lagWrites = arguments.positiveInteger(for: flag)
    case "--rate": rate = Double(arguments.positiveInteger(for: flag))
    case "--help", "-h":
        print("usage: changelog-bench [--count N (1000000)] [--rounds R (3)] [--lag-writes W (3000)] [--rate PER_SECOND (1000)]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

log("generating \(count) users…")
let users = Workload(count: count).users.map(IndexedBenchUser.init)
let conditions = RunConditions()

do {
    // 1. The log's cost on the indexed upsert.
    var off: [Double] = [], on: [Double] = []
    var replicaRates: [Double] = []
    for round in 1...rounds {
        for logged in [false, true] {
            let directory = try ScratchDirectory(prefix: "changelog-bench")
            defer { directory.remove() }
            let store = try Store(path: directory.url.appendingPathComponent("primary").path)
            try store.prepare(IndexedBenchUser.self)
            if logged { try store.enableChangeLog(retention: .commits(1_000)) }
            let elapsed = try seconds { try store.write { tx in try tx.upsert(users) } }
            let perSecond = Double(count) / elapsed
            log("round \(round), log \(logged ? "on" : "off"): \(grouped(perSecond)) records/s")
            if logged {
                on.append(perSecond)
                // 2. A replica of an empty store (the entity's schema entry came with the first commit) applies the feed.
                let replica = try Store(path: directory.url.appendingPathComponent("replica").path)
                let changes = try store.read { tx in try tx.loggedCommits(after: 0).reduce(0) { $0 + $1.changes.count } }
                let applied = try seconds { try replica.replicate(from: store) }
                replicaRates.append(Double(changes) / applied)
                log("round \(round), replica: \(grouped(Double(changes) / applied)) changes/s")
            } else {
                off.append(perSecond)
            }
        }
    }

    // 3. Lag at a steady rate, through a pipe of JSON lines.
    let (achieved, lags) = try await measureLag(users: users, writes: lagWrites, rate: rate)

    let overhead = (median(on) / median(off) - 1) * 100
    print("\(count) users with \(IndexedBenchUser.indexes.count) indexes, one write transaction each round, \(rounds) rounds alternating log off / on\n")
    print("| figure | " + (1...rounds).map { "round \($0)" }.joined(separator: " | ") + " | median |")
    print("| --- |" + String(repeating: " ---: |", count: rounds + 1))
    print("| upsert, log off (records/s) | " + off.map(grouped).joined(separator: " | ") + " | \(grouped(median(off))) |")
    print("| upsert, log on (records/s) | " + on.map(grouped).joined(separator: " | ") + " | \(grouped(median(on))) |")
    print("| replica applying the feed (changes/s) | " + replicaRates.map(grouped).joined(separator: " | ") + " | \(grouped(median(replicaRates))) |")
    print("\nlog on against off: \(String(format: "%+.1f", overhead)) % (median against median)")
    print("lag through a pipe of JSON lines, \(lagWrites) single-record durable commits at \(grouped(achieved)) writes/s (asked \(grouped(rate))): "
          + "median \(String(format: "%.2f", lags.isEmpty ? 0 : lags[lags.count / 2])) ms, "
          + "p99 \(String(format: "%.2f", lags.isEmpty ? 0 : lags[min(lags.count - 1, lags.count * 99 / 100)])) ms, "
          + "max \(String(format: "%.2f", lags.last ?? 0)) ms over \(lags.count) commits")
    print(conditions.summary())
} catch {
    benchmarkFailure("changelog-bench", "\(error)")
}

/// Commits `writes` single-record upserts at `rate` per second into a logged store while its feed
/// goes as JSON lines through a pipe to a replica; returns the rate achieved and each commit's lag
/// in milliseconds, sorted.
func measureLag(users: [IndexedBenchUser], writes: Int, rate: Double) async throws -> (Double, [Double]) {
    let directory = try ScratchDirectory(prefix: "changelog-lag")
    defer { directory.remove() }
    let primary = try Store(path: directory.url.appendingPathComponent("primary").path)
    try primary.enableChangeLog(retention: .commits(100_000))
    try upsert(users[0], into: primary)   // the entity and its schema entry: commit 1
    let replica = try Store(path: directory.url.appendingPathComponent("replica").path)
    try replica.replicate(from: primary)
    let pipe = Pipe()
    let committed = ConditionBox(), visible = ConditionBox()
    let last = UInt64(writes + 1)
    let feeder = Task.detached {
        for try await commit in primary.changes(after: 1) {
            let lines = try await primary.read { tx in
                var output: [UInt8] = []
                try ChangeFeedLines.append(commit, from: tx, to: &output)
                return output
            }
            try pipe.fileHandleForWriting.write(contentsOf: lines)
            if commit.sequence >= last { break }
        }
        try pipe.fileHandleForWriting.close()
    }
    let applier = Thread {
        var reader = ChangeFeedLines.Reader()
        var pending: [UInt8] = []
        let handle = pipe.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if let commit = try? reader.read(line: pending[start..<newline]),
                   (try? replica.applyChanges([commit], durability: .deferred)) != nil {
                    visible.set(commit.sequence, at: DispatchTime.now().uptimeNanoseconds)
                }
                start = newline + 1
            }
            pending.removeFirst(start)
        }
        visible.set(0, at: 1)   // done
    }
    applier.start()
    let interval = 1.0 / rate
    let started = DispatchTime.now().uptimeNanoseconds
    for index in 0..<writes {
        let due = started + UInt64(Double(index) * interval * 1e9)
        let now = DispatchTime.now().uptimeNanoseconds
        if due > now { usleep(UInt32((due - now) / 1_000)) }
        var user = users[(index + 1) % users.count]
        user.score = Double(index)
        try upsert(user, into: primary)
        committed.set(UInt64(index + 2), at: DispatchTime.now().uptimeNanoseconds)
    }
    let achieved = Double(writes) / (Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    _ = try await feeder.value
    while visible.time(of: 0) == nil { usleep(1_000) }
    var lags: [Double] = []
    for sequence in 2...last {
        guard let commit = committed.time(of: sequence), let seen = visible.time(of: sequence) else { continue }
        lags.append(Double(Int64(seen) - Int64(commit)) / 1e6)
    }
    return (achieved, lags.sorted())
}

/// One durable commit on this thread (the synchronous `write`, which an async function does not pick).
func upsert(_ user: IndexedBenchUser, into store: Store) throws {
    try store.write { tx in try tx.upsert(user) }
}

/// Times by sequence, written by one thread and read by another.
final class ConditionBox: Sendable {
    private let times = Mutex<[UInt64: UInt64]>([:])
    func set(_ sequence: UInt64, at time: UInt64) { times.withLock { $0[sequence] = time } }
    func time(of sequence: UInt64) -> UInt64? { times.withLock { $0[sequence] } }
}
