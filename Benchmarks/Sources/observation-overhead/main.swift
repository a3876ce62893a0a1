// observation-overhead [--writes N] [--observers K] [--rounds R] [--deferred]
//
// What K active observers cost a stream of small writes that do not touch what they observe:
// N single-record write transactions (durable commits) into an entity whose records are all
// "cold", while K observers each watch a query for "hot" records of that entity (their result
// never changes). Alternates rounds without and with observers and prints the write rates and
// the overhead. `--deferred` commits without fsync (Durability.deferred), which leaves the CPU
// cost of observation instead of the disk's latency, which on a busy machine swings more than the
// overhead measured. Build in release:
// `swift run -c release --package-path Benchmarks observation-overhead`.
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
var arguments = BenchmarkArguments(tool: "observation-overhead")
while let flag = arguments.next() {
    switch flag {
    case "--writes": writes = arguments.positiveInteger(for: flag)
    case "--observers": observerCount = arguments.positiveInteger(for: flag)
    case "--rounds": rounds = arguments.positiveInteger(for: flag)
    case "--deferred": durability = .deferred
    case "--help", "-h":
        print("usage: observation-overhead [--writes N (2000)] [--observers K (100)] [--rounds R (3)] [--deferred]")
        exit(0)
    default: arguments.unknown(flag)
    }
}

#if DEBUG
log("warning: debug build; numbers are meaningless without -c release")
#endif

/// Writes `count` cold readings, one transaction each, and returns writes per second.
func writeStream(_ store: Store, from first: Int64, count: Int, durability: Store.Durability) throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for id in first..<(first + Int64(count)) {
        try store.write(durability: durability) { tx in try tx.upsert(Reading(id: id, bucket: "cold", value: Double(id))) }
    }
    return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

do {
    let directory = try ScratchDirectory(prefix: "strata-observation-bench")
    defer { directory.remove() }
    let store = try Store(path: directory.url.appendingPathComponent("store").path)
    try store.write { tx in
        try tx.upsert((1...1_000).map { Reading(id: Int64($0), bucket: $0 % 10 == 0 ? "hot" : "cold", value: Double($0)) })
    }
    var next: Int64 = 1_000_000
    var without: [Double] = [], with: [Double] = []
    for round in 1...rounds {
        without.append(try writeStream(store, from: next, count: writes, durability: durability))
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
        with.append(try writeStream(store, from: next, count: writes, durability: durability))
        next += Int64(writes)
        // Cancelling a consumer unregisters its observer before its task ends.
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result }
        log("round \(round): \(Int(without.last!)) writes/s without observers, \(Int(with.last!)) with \(observerCount)")
    }
    let medianWithout = without.sorted()[without.count / 2], medianWith = with.sorted()[with.count / 2]
    let kind = durability == .synchronous ? "durable" : "deferred (no fsync)"
    print("| \(writes.formatted()) single-record \(kind) commits, median of \(rounds) rounds | writes/s |")
    print("| --- | ---: |")
    print("| no observers | \(Int(medianWithout).formatted()) |")
    print("| \(observerCount) observers of records these writes do not touch | \(Int(medianWith).formatted()) |")
    print("| overhead | \(String(format: "%.1f", (medianWithout / medianWith - 1) * 100)) % |")
} catch {
    benchmarkFailure("observation-overhead", "\(error)")
}
