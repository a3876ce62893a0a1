// observation-overhead [--writes N] [--observers K] [--rounds R] [--deferred] [--observed-only]
//
// What K active observers cost a stream of small writes that do not touch what they observe:
// N single-record write transactions (durable commits) into an entity whose records are all
// "cold", while K observers each watch a query for "hot" records of that entity (their result
// never changes). Alternates rounds without and with observers and prints the write rates, the
// process's CPU time per write (writer and observers; a marker observer waits until the
// observers have seen the last commit) and the overheads. `--deferred` commits without fsync
// (Durability.deferred): the disk's latency, which on a busy machine swings more than the
// overhead measured, then no longer hides the CPU cost of observation. Build in release:
// `swift run -c release --package-path Benchmarks observation-overhead`. `--observed-only` skips the
// streams without observers, so that a profiler sees only the observed writes.
import EngineComparison
import Foundation
import Strata

struct Reading: Record, Equatable {
    var id: Int64
    var bucket: String
    var value: Double
    static let primaryKey = \Reading.id
    static let indexes: [IndexDefinition<Reading>] = [.index(\.bucket)]
}

var writes = 2_000
var observerCount = 100
var rounds = 3
var durability = Store.Durability.synchronous
var observedOnly = false
var arguments = BenchmarkArguments(tool: "observation-overhead")
while let flag = arguments.next() {
    switch flag {
    case "--writes": writes = arguments.positiveInteger(for: flag)
    case "--observers": observerCount = arguments.positiveInteger(for: flag)
    case "--rounds": rounds = arguments.positiveInteger(for: flag)
    case "--deferred": durability = .deferred
    case "--observed-only": observedOnly = true
    case "--help", "-h":
        print("usage: observation-overhead [--writes N (2000)] [--observers K (100)] [--rounds R (3)] [--deferred] [--observed-only]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

/// What a stream of writes took: writes per second of wall time, and CPU time of the whole
/// process (writer and observer threads) per write, which other load on the machine barely
/// changes.
struct StreamCost {
    var writesPerSecond: Double
    var cpuMicrosecondsPerWrite: Double
}

/// User plus system CPU time of this process, in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    func micro(_ t: timeval) -> Double { Double(t.tv_sec) * 1e6 + Double(t.tv_usec) }
    return micro(usage.ru_utime) + micro(usage.ru_stime)
}

/// Wall and CPU time from its creation on.
struct Meter {
    let start = DispatchTime.now().uptimeNanoseconds, cpuStart = processCPUMicroseconds()

    /// The cost of `writes` writes done since the meter was made.
    func cost(writes: Int) -> StreamCost {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return StreamCost(writesPerSecond: Double(writes) / seconds,
                          cpuMicrosecondsPerWrite: (processCPUMicroseconds() - cpuStart) / Double(writes))
    }
}

/// Writes `count` cold readings, one synchronous transaction each.
func writeSynchronously(_ store: Store, from first: Int64, count: Int, durability: Store.Durability) throws {
    for id in first..<(first + Int64(count)) {
        try store.write(durability: durability) { tx in try tx.upsert(Reading(id: id, bucket: "cold", value: Double(id))) }
    }
}

do {
    let directory = try ScratchDirectory(prefix: "strata-observation-bench")
    defer { directory.remove() }
    let store = try Store(path: directory.url.appendingPathComponent("store").path)
    try store.write { tx in
        try tx.upsert((1...1_000).map { Reading(id: Int64($0), bucket: $0 % 10 == 0 ? "hot" : "cold", value: Double($0)) })
    }
    var next: Int64 = 1_000_000
    var without: [StreamCost] = [], with: [StreamCost] = []
    for round in 1...rounds {
        let meter = Meter()
        if !observedOnly { try writeSynchronously(store, from: next, count: writes, durability: durability) }
        without.append(meter.cost(writes: writes))
        next += Int64(writes)
        // K observers of the hot readings, each consuming its values in its own task; the writes
        // start once every observer has its first value, so that first reads are not measured.
        let (firstValues, firstValue) = AsyncStream<Void>.makeStream()
        let tasks = (0..<observerCount).map { _ in
            Task {
                for try await _ in store.observe(Reading.self, { try $0.where("bucket == 'hot'").limit(20) }) {
                    firstValue.yield()
                }
            }
        }
        var ready = 0
        for await _ in firstValues {
            ready += 1
            if ready == observerCount { break }
        }
        // One more observer, of a marker record, tells when the observers have seen the last
        // commit: commits are shown to observers in commit order.
        let marker = -Int64(round)
        var markerValues = store.observe(Reading.self, key: marker).makeAsyncIterator()
        _ = try await markerValues.next()
        let observedMeter = Meter()
        try writeSynchronously(store, from: next, count: writes, durability: durability)
        try await store.write(durability: durability) { tx in try tx.upsert(Reading(id: marker, bucket: "marker", value: 0)) }
        _ = try await markerValues.next()   // the observers' work for these writes is done
        with.append(observedMeter.cost(writes: writes))
        next += Int64(writes)
        // Cancelling a consumer unregisters its observer before its task ends.
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result }
        log("round \(round): \(Int(without.last!.writesPerSecond)) writes/s without observers, \(Int(with.last!.writesPerSecond)) with \(observerCount); "
            + "CPU \(String(format: "%.1f", without.last!.cpuMicrosecondsPerWrite)) µs/write without, \(String(format: "%.1f", with.last!.cpuMicrosecondsPerWrite)) with")
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let rateWithout = median(without.map(\.writesPerSecond)), rateWith = median(with.map(\.writesPerSecond))
    let cpuWithout = median(without.map(\.cpuMicrosecondsPerWrite)), cpuWith = median(with.map(\.cpuMicrosecondsPerWrite))
    let kind = durability == .synchronous ? "durable" : "deferred (no fsync)"
    print("| \(writes.formatted()) single-record \(kind) commits, median of \(rounds) rounds | writes/s | CPU µs per write |")
    print("| --- | ---: | ---: |")
    print("| no observers | \(Int(rateWithout).formatted()) | \(String(format: "%.1f", cpuWithout)) |")
    print("| \(observerCount) observers of records these writes do not touch | \(Int(rateWith).formatted()) | \(String(format: "%.1f", cpuWith)) |")
    print("| overhead | \(String(format: "%.1f", (rateWithout / rateWith - 1) * 100)) % | \(String(format: "%.1f", (cpuWith / cpuWithout - 1) * 100)) % |")
} catch {
    benchmarkFailure("observation-overhead", "\(error)")
}
