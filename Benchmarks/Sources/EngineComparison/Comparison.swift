import Foundation

/// The operations in the side-by-side table, in table order.
public enum Operation: String, CaseIterable, Sendable {
    case insert = "upsert all, one write transaction"
    case pointReads = "point reads, random order, one read transaction"
    case pointReadsBatched = "point reads, batches of 10,000 keys (`get(_:keys:)` / `fetchAll(_:keys:)`)"
    case pointReadsOwnTransaction = "point reads, one read transaction each"
    case scanAll = "full scan into an array (`all` / `fetchAll`)"
    case scanStreaming = "full scan, streaming (`forEach` / `fetchCursor`)"
}

/// Measurements outside the table, reported as notes.
public enum ExtraOperation: String, Sendable {
    case grdbCachedStatementReads = "GRDB point reads through one cached `SELECT … WHERE id = ?` statement"
}

/// Records per second for each operation, for one engine.
public struct EngineResult: Sendable {
    public let engine: String
    public var recordsPerSecond: [Operation: Double] = [:]
    public var seconds: [Operation: Double] = [:]
    public var databaseBytes = 0
    public var extras: [ExtraOperation: Double] = [:]
}

/// Runs every operation once for `engine`, in order, on a fresh database, with wall-clock timing.
///
/// Insert runs first and populates the database the reads and scans then use. Point reads cover
/// every key in `workload.readOrder`; the one-transaction-each variant covers its first
/// `perCallReads` keys (it is much slower per record, so a prefix keeps the run short).
public func runComparison(
    _ engine: any ComparedEngine.Type, workload: Workload, perCallReads: Int,
    log: (String) -> Void = { _ in }
) throws -> EngineResult {
    var result = EngineResult(engine: engine.name)
    let instance = try engine.init(workload: workload)
    defer { instance.close() }

    func measure(_ operation: Operation, records: Int, _ body: () throws -> Void) throws {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        result.seconds[operation] = seconds
        result.recordsPerSecond[operation] = Double(records) / seconds
        log("\(engine.name): \(operation.rawValue): \(records) records in \(String(format: "%.3f", seconds)) s")
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
    if let grdb = instance as? GRDBEngine {
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try grdb.readPointsCachedStatement(workload.readOrder[...]) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        result.extras[.grdbCachedStatementReads] = Double(workload.count) / seconds
        log("\(engine.name): \(ExtraOperation.grdbCachedStatementReads.rawValue): \(String(format: "%.3f", seconds)) s")
    }
    try measure(.scanAll, records: workload.count) { try instance.scanAll() }
    try measure(.scanStreaming, records: workload.count) { try instance.scanStreaming() }
    return result
}

/// The side-by-side Markdown table: | operation | Strata (records/s) | GRDB (records/s) | Strata/GRDB |
public func markdownTable(strata: EngineResult, grdb: EngineResult) -> String {
    var lines = [
        "| operation | \(strata.engine) (records/s) | \(grdb.engine) (records/s) | \(strata.engine)/\(grdb.engine) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for operation in Operation.allCases {
        guard let s = strata.recordsPerSecond[operation], let g = grdb.recordsPerSecond[operation] else { continue }
        lines.append("| \(operation.rawValue) | \(grouped(s)) | \(grouped(g)) | \(String(format: "%.2f×", s / g)) |")
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
