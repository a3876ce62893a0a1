// changelog-bench [--count N] [--rounds R] [--lag-writes W] [--rate PER_SECOND] [--notice-writes W]
//
// What the change log costs and how fast a replica follows, on ReplicatedUser (the users with
// three single-field indexes: lastName, luckyNumber, createdAt):
// 1. upsert of N users in one write transaction into an empty store, log off and log on,
//    alternately for R rounds: the rates and the overhead of the log (median against median);
// 2. a replica applying the whole feed of the logged upserts (`Store.replicate(from:)`): changes/s;
// 3. lag: a writer commits W single-record upserts at PER_SECOND writes/s (durable commits) while
//    a follower reads the feed as JSON lines (`Store.changes(after:)` → `ChangeFeedLines`) into a
//    pipe and a second thread reads the pipe and applies each commit to a replica
//    (`ChangeFeedLines.Reader` → `applyChanges`); the lag of a commit is from its commit returning
//    on the writer to its sequence being the replica's position. Prints the median, p99 and max;
// 4. cross-process notice: a follower in another process (this tool, `--notice-follower`) reads
//    `Store.changes(after:)` while this process commits W single-record durable upserts at
//    PER_SECOND writes/s; the notice time of a commit is from its `write` returning here to the
//    follower receiving it there (both on CLOCK_MONOTONIC). Prints the median, p99 and max.
// Build in release: `swift run -c release --package-path Benchmarks changelog-bench`.
import Dataset
import EngineComparison
import Foundation
import Strata
import Synchronization

var count = 1_000_000
var rounds = 3
var lagWrites = 3_000
var rate = 1_000.0
var noticeWrites = 2_000
var arguments = BenchmarkArguments(tool: "changelog-bench")
while let flag = arguments.next() {
    switch flag {
    case "--count": count = arguments.positiveInteger(for: flag)
    case "--rounds": rounds = arguments.positiveInteger(for: flag)
    case "--lag-writes": lagWrites = arguments.positiveInteger(for: flag)
    case "--rate": rate = Double(arguments.positiveInteger(for: flag))
    case "--notice-writes": noticeWrites = arguments.positiveInteger(for: flag)
    case "--notice-follower":
        // Follower mode: STORE AFTER; prints "sequence nanoseconds" per commit, until killed.
        let path = arguments.next() ?? "", after = UInt64(arguments.next() ?? "") ?? 0
        await followForNotice(path: path, after: after)
        exit(0)
    case "--help", "-h":
        print("usage: changelog-bench [--count N (1000000)] [--rounds R (3)] [--lag-writes W (3000)] [--rate PER_SECOND (1000)] [--notice-writes W (2000)]")
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
let users = Workload(count: count).users.map(ReplicatedUser.init)
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
            try store.prepare(ReplicatedUser.self)
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
    // 4. Notice of commits in another process.
    let (noticeRate, notices) = try measureNotice(users: users, writes: noticeWrites, rate: rate)

    let overhead = (median(on) / median(off) - 1) * 100
    print("\(count) users with \(ReplicatedUser.indexes.count) indexes, one write transaction each round, \(rounds) rounds alternating log off / on\n")
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
    print("notice in another process (Store.changes(after:)), \(noticeWrites) single-record durable commits at \(grouped(noticeRate)) writes/s: "
          + "median \(String(format: "%.2f", percentile(notices, 50))) ms, p99 \(String(format: "%.2f", percentile(notices, 99))) ms, "
          + "max \(String(format: "%.2f", notices.last ?? 0)) ms over \(notices.count) commits")
    print(conditions.summary())
} catch {
    benchmarkFailure("changelog-bench", "\(error)")
}

/// Commits `writes` single-record upserts at `rate` per second into a logged store while its feed
/// goes as JSON lines through a pipe to a replica; returns the rate achieved and each commit's lag
/// in milliseconds, sorted.
func measureLag(users: [ReplicatedUser], writes: Int, rate: Double) async throws -> (Double, [Double]) {
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
func upsert(_ user: ReplicatedUser, into store: Store) throws {
    try store.write { tx in try tx.upsert(user) }
}

/// Times by sequence, written by one thread and read by another.
final class ConditionBox: Sendable {
    private let times = Mutex<[UInt64: UInt64]>([:])
    func set(_ sequence: UInt64, at time: UInt64) { times.withLock { $0[sequence] = time } }
    func time(of sequence: UInt64) -> UInt64? { times.withLock { $0[sequence] } }
}

/// The benchmark's users with three single-field indexes (what a replica maintains here).
struct ReplicatedUser: Strata.Record {
    static let entityName = "User"
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String
    var luckyNumber: Int?
    var city: String
    var score: Double
    var active: Bool
    var tags: [String]
    var createdAt: Date
    var updatedAt: Date
    static let primaryKey = \ReplicatedUser.id
    static let indexes: [IndexDefinition<ReplicatedUser>] = [.index(\.lastName), .index(\.luckyNumber), .index(\.createdAt)]

    init(_ user: GeneratedUser) {
        (id, firstName, lastName, email, luckyNumber) = (user.id, user.firstName, user.lastName, user.email, user.luckyNumber)
        (city, score, active, tags, createdAt, updatedAt) = (user.city, user.score, user.active, user.tags, user.createdAt, user.updatedAt)
    }
}

/// Nanoseconds on CLOCK_MONOTONIC, which every process of the machine shares.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func percentile(_ sorted: [Double], _ p: Int) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * p / 100)]
}

/// The follower of ``measureNotice(users:writes:rate:)``: prints each commit's sequence and the
/// time it arrived, one line each, flushed.
func followForNotice(path: String, after: UInt64) async {
    do {
        let store = try Store(path: path)
        let output = FileHandle.standardOutput
        output.write(Data("ready\n".utf8))
        for try await commit in store.changes(after: after) {
            output.write(Data("\(commit.sequence) \(monotonicNanoseconds())\n".utf8))
        }
    } catch {
        benchmarkFailure("changelog-bench --notice-follower", "\(error)")
    }
}

/// Commits `writes` single-record upserts at `rate` per second while this tool follows the store
/// in another process; returns the rate achieved and each commit's notice time in milliseconds, sorted.
func measureNotice(users: [ReplicatedUser], writes: Int, rate: Double) throws -> (Double, [Double]) {
    let directory = try ScratchDirectory(prefix: "changelog-notice")
    defer { directory.remove() }
    let path = directory.url.appendingPathComponent("primary").path
    let primary = try Store(path: path)
    try primary.enableChangeLog(retention: .commits(100_000))
    try upsert(users[0], into: primary)   // commit 1
    let follower = Process()
    follower.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    follower.arguments = ["--notice-follower", path, "1"]
    let output = Pipe()
    follower.standardOutput = output
    try follower.run()
    defer { follower.terminate(); follower.waitUntilExit() }
    let lines = LineCollector(output.fileHandleForReading)
    while !lines.contains("ready") { usleep(1_000) }
    usleep(200_000)
    var committed: [UInt64: UInt64] = [:]
    let interval = 1.0 / rate
    let started = monotonicNanoseconds()
    for index in 0..<writes {
        let due = started + UInt64(Double(index) * interval * 1e9)
        let now = monotonicNanoseconds()
        if due > now { usleep(UInt32((due - now) / 1_000)) }
        var user = users[(index + 1) % users.count]
        user.score = Double(index)
        try upsert(user, into: primary)
        committed[UInt64(index + 2)] = monotonicNanoseconds()
    }
    let achieved = Double(writes) / (Double(monotonicNanoseconds() - started) / 1e9)
    let deadline = monotonicNanoseconds() + 10_000_000_000
    while lines.count < writes + 1, monotonicNanoseconds() < deadline { usleep(10_000) }
    var notices: [Double] = []
    for line in lines.all() {
        let parts = line.split(separator: " ")
        guard parts.count == 2, let sequence = UInt64(parts[0]), let seen = UInt64(parts[1]), let commit = committed[sequence] else { continue }
        notices.append(Double(Int64(seen) - Int64(commit)) / 1e6)
    }
    guard notices.count == writes else { benchmarkFailure("changelog-bench", "the follower reported \(notices.count) of \(writes) commits") }
    return (achieved, notices.sorted())
}

/// The lines another process writes to a pipe, collected on a thread of their own.
final class LineCollector: Sendable {
    private let lines = Mutex<[String]>([])

    init(_ handle: FileHandle) {
        Thread { [self] in
            var pending: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                pending.append(contentsOf: chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    self.lines.withLock { $0.append(line) }
                    pending.removeFirst(newline + 1)
                }
            }
        }.start()
    }

    var count: Int { lines.withLock { $0.count } }
    func contains(_ line: String) -> Bool { lines.withLock { $0.contains(line) } }
    func all() -> [String] { lines.withLock { $0 } }
}
