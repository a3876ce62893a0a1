// The official harness: Strata, SQLite-C and GRDB's pool (WAL, synchronous=NORMAL) side by side on
// the same users, with ordo-one/benchmark.
//
//   swift package --package-path Benchmarks benchmark
//   STRATA_BENCH_SCALE=kilo swift package --package-path Benchmarks benchmark   # 1,000 users: a smoke run
//
// Each benchmark handles `scalingFactor.rawValue` users (1,000,000 by default) in one iteration,
// so ordo-one's `throughput` and scaled wall clock read per record. The users are generated once
// per benchmark process, outside every measurement; so are database creation and teardown.
import Benchmark
import Dataset
import EngineComparison
import Foundation

/// Lazily built state shared by the benchmarks of this process (the harness runs them one by one
/// on one thread: setup, iterations, teardown).
final class Fixtures {
    let scale: BenchmarkScalingFactor
    private var cachedWorkload: Workload?
    var populated: (any ComparedEngine)?

    init() {
        scale = ProcessInfo.processInfo.environment["STRATA_BENCH_SCALE"] == "kilo" ? .kilo : .mega
    }

    var workload: Workload {
        if let cachedWorkload { return cachedWorkload }
        let workload = Workload(count: scale.rawValue, seed: 42)
        cachedWorkload = workload
        return workload
    }

    /// A database holding every user, for the read benchmarks.
    func populate(_ engine: EngineKind) throws {
        let instance = try engine.make(workload: workload)
        try instance.insertAll()
        try instance.verifyContents()
        populated = instance
    }

    func closePopulated() {
        populated?.close()
        populated = nil
    }
}

let benchmarks: @Sendable () -> Void = {
    let fixtures = Fixtures()
    let label = fixtures.scale == .mega ? "1M" : "1K"
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .peakMemoryResident],
        warmupIterations: 0,
        scalingFactor: fixtures.scale,
        maxDuration: .seconds(5),
        maxIterations: 3
    )
    // The engines that measure all three (raw LMDB decodes nothing; GRDB FULL differs from NORMAL
    // only in commits, which `side-by-side` shows).
    let engines: [EngineKind] = [.strata, .sqlite, .grdbNormal]

    for engine in engines {
        // A fresh empty database per iteration; only the write transaction is measured.
        Benchmark("\(engine.name) upsert \(label) users, one write transaction", configuration: configuration) { benchmark in
            let instance = try engine.make(workload: fixtures.workload)
            defer { instance.close() }
            benchmark.startMeasurement()
            try instance.insertAll()
            benchmark.stopMeasurement()
            try instance.verifyContents()
        }

        Benchmark(
            "\(engine.name) point reads \(label), random order, one read transaction",
            configuration: configuration,
            closure: { benchmark in
                let keys = fixtures.workload.readOrder[...]
                benchmark.startMeasurement()
                try fixtures.populated!.readPoints(keys)
            },
            setup: { try fixtures.populate(engine) },
            teardown: { fixtures.closePopulated() }
        )

        Benchmark(
            "\(engine.name) full scan \(label), decoding every record",
            configuration: configuration,
            closure: { _ in try fixtures.populated!.scanAll() },
            setup: { try fixtures.populate(engine) },
            teardown: { fixtures.closePopulated() }
        )
    }
}
