import Foundation

/// The operations in the side-by-side table, in table order. The labels stay as they were when
/// Strata was compared with GRDB alone (`tools/ab-bench` matches figures by label).
public enum Operation: String, CaseIterable, Sendable {
    case insert = "upsert all, one write transaction"
    case pointReads = "point reads, random order, one read transaction"
    case pointReadsBatched = "point reads, batches of 10,000 keys (`get(_:keys:)` / `fetchAll(_:keys:)`)"
    case pointReadsOwnTransaction = "point reads, one read transaction each"
    case scanAll = "full scan into an array (`all` / `fetchAll`)"
    case scanStreaming = "full scan, streaming (`forEach` / `fetchCursor`)"
}

/// Records per second for each operation, for one engine.
public struct EngineResult: Sendable {
    public let kind: EngineKind
    public let settings: String
    public var recordsPerSecond: [Operation: Double] = [:]
    public var seconds: [Operation: Double] = [:]
    public var databaseBytes = 0

    public var engine: String { kind.name }
}

/// Runs every operation of every engine of `kinds`, each engine on a fresh database of its own, with
/// wall-clock timing, and returns one result per engine in the order of `kinds`.
///
/// The upsert runs first, once per engine, one engine after another, and populates the database the
/// reads and scans then use (an engine that does not measure it still upserts, untimed). Each read and
/// scan then runs `rounds` times per engine, the engines taking turns (in their order, then the
/// reverse: A B … B A), and its rate is its records over its summed time: the host's speed, which
/// drifts over seconds, then weighs on every engine alike. Point reads cover every key in
/// `workload.readOrder`; the one-transaction-each variant covers its first `perCallReads` keys (it is
/// much slower per record, so a prefix keeps the run short).
public func runComparison(
    _ kinds: [EngineKind], workload: Workload, perCallReads: Int, rounds: Int = 2, log: (String) -> Void = { _ in }
) throws -> [EngineResult] {
    let instances = try kinds.map { try $0.make(workload: workload) }
    defer { instances.forEach { $0.close() } }
    var results = zip(kinds, instances).map { EngineResult(kind: $0, settings: $1.settings) }
    var timedRecords = [[Operation: Int]](repeating: [:], count: kinds.count)
    let clock = ContinuousClock()

    /// Times `body` on engine `index`, adding its time and records to the operation's.
    func time(_ index: Int, _ operation: Operation, records: Int, _ body: () throws -> Void) throws {
        let elapsed = try clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        results[index].seconds[operation, default: 0] += seconds
        timedRecords[index][operation, default: 0] += records
        results[index].recordsPerSecond[operation] = Double(timedRecords[index][operation]!) / results[index].seconds[operation]!
        log("\(kinds[index].name): \(operation.rawValue): \(records) records in \(String(format: "%.3f", seconds)) s")
    }

    for (index, instance) in instances.enumerated() {
        if instance.operations.contains(.insert) {
            try time(index, .insert, records: workload.count) { try instance.insertAll() }
        } else {
            try instance.insertAll()
        }
        try instance.verifyContents()
        results[index].databaseBytes = instance.databaseSize()
    }
    let prefix = workload.readOrder.prefix(min(perCallReads, workload.count))
    let reads: [(Operation, Int, (any ComparedEngine) throws -> Void)] = [
        (.pointReads, workload.count, { try $0.readPoints(workload.readOrder[...]) }),
        (.pointReadsBatched, workload.count, { try $0.readPointsBatched(workload.readOrder[...], batchSize: 10_000) }),
        (.pointReadsOwnTransaction, prefix.count, { try $0.readPointsOneTransactionEach(prefix) }),
        (.scanAll, workload.count, { try $0.scanAll() }),
        (.scanStreaming, workload.count, { try $0.scanStreaming() }),
    ]
    for (operation, records, body) in reads {
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(instances.indices) : instances.indices.reversed()
            for index in order where instances[index].operations.contains(operation) {
                try time(index, operation, records: records) { try body(instances[index]) }
            }
        }
    }
    return results
}

/// One line per engine naming its settings, to print right above a table of its figures.
public func settingsHeader(_ engines: [(name: String, settings: String)]) -> String {
    "Settings: " + engines.map { "**\($0.name)**: \($0.settings)." }.joined(separator: " ")
}

/// The side-by-side Markdown table: records/s per engine in `results`' order, then Strata divided
/// by each of the ``EngineKind/ratioPeers`` that ran; "–" where an engine does not measure an
/// operation. With Strata alone: `| operation | Strata (records/s) |`.
public func markdownTable(_ results: [EngineResult]) -> String {
    let strata = results.first { $0.kind == .strata }
    let peers = strata == nil ? [] : EngineKind.ratioPeers.compactMap { peer in results.first { $0.kind == peer } }
    var header = ["operation"] + results.map { "\($0.engine) (records/s)" }
    header += peers.map { "Strata / \($0.engine)" }
    var lines = ["| " + header.joined(separator: " | ") + " |", "| --- |" + String(repeating: " ---: |", count: header.count - 1)]
    for operation in Operation.allCases {
        var cells = [operation.rawValue] + results.map { $0.recordsPerSecond[operation].map(grouped) ?? "–" }
        for peer in peers {
            let s = strata?.recordsPerSecond[operation], p = peer.recordsPerSecond[operation]
            cells.append(s.flatMap { s in p.map { String(format: "%.2f×", s / $0) } } ?? "–")
        }
        lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n")
}

/// 1234567.8 → "1,234,568": fixed grouping, independent of the locale.
public func grouped(_ value: Double) -> String {
    let digits = String(Int(value.rounded()))
    var out = ""
    for (i, ch) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0 { out.append(",") }
        out.append(ch)
    }
    return String(out.reversed())
}

/// 123456789 → "117.7 MiB".
public func mebibytes(_ bytes: Int) -> String {
    String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}
