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

/// Runs every operation of `kind` once, in order, on a fresh database, with wall-clock timing.
///
/// Insert runs first and populates the database the reads and scans then use (an engine that
/// does not measure it still inserts, untimed). Point reads cover every key in
/// `workload.readOrder`; the one-transaction-each variant covers its first `perCallReads` keys
/// (it is much slower per record, so a prefix keeps the run short).
public func runComparison(
    _ kind: EngineKind, workload: Workload, perCallReads: Int, log: (String) -> Void = { _ in }
) throws -> EngineResult {
    let instance = try kind.make(workload: workload)
    defer { instance.close() }
    var result = EngineResult(kind: kind, settings: instance.settings)
    let measured = instance.operations

    func measure(_ operation: Operation, records: Int, _ body: () throws -> Void) throws {
        guard measured.contains(operation) else {
            if operation == .insert { try body() }
            return
        }
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        result.seconds[operation] = seconds
        result.recordsPerSecond[operation] = Double(records) / seconds
        log("\(kind.name): \(operation.rawValue): \(records) records in \(String(format: "%.3f", seconds)) s")
    }

    try measure(.insert, records: workload.count) { try instance.insertAll() }
    try instance.verifyContents()
    result.databaseBytes = instance.databaseSize()
    try measure(.pointReads, records: workload.count) { try instance.readPoints(workload.readOrder[...]) }
    try measure(.pointReadsBatched, records: workload.count) {
        try instance.readPointsBatched(workload.readOrder[...], batchSize: 10_000)
    }
    let prefix = workload.readOrder.prefix(min(perCallReads, workload.count))
    try measure(.pointReadsOwnTransaction, records: prefix.count) { try instance.readPointsOneTransactionEach(prefix) }
    try measure(.scanAll, records: workload.count) { try instance.scanAll() }
    try measure(.scanStreaming, records: workload.count) { try instance.scanStreaming() }
    return result
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
