import Dataset
import EngineComparison
import Foundation
import GRDB
import QueryComparison
import Strata

/// What one engine did with one JSON file: a first import into an empty store with three
/// indexes, then the same file again (every record unchanged), each in one write transaction.
public struct ImportMeasurement: Codable, Sendable {
    public var engine: String
    public var records: Int
    public var fileBytes: Int
    public var firstSeconds: Double
    public var againSeconds: Double
    /// Peak resident memory of the process after each step, in bytes (`getrusage` high-water mark).
    public var peakAfterFirst: Int
    public var peakAfterAgain: Int
    /// The report of Strata's second import, to show every record was unchanged.
    public var note: String
    /// The engine's settings line (journal mode, synchronous, cache, statements, indexes).
    public var settings: String = ""

    public var firstRate: Double { Double(records) / firstSeconds }
    public var againRate: Double { Double(records) / againSeconds }
}

/// The process's peak resident set size so far, in bytes.
public func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss * 1024   // kilobytes on Linux
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Strata: `importJSON(contentsOf:as:)` streaming the file into `IndexedCodableUser` (its six
/// indexes, ``QueryIndexes``), one write transaction, durable commit.
public func measureStrataImport(file: URL, records: Int) throws -> ImportMeasurement {
    let directory = try ScratchDirectory(prefix: "strata-import-bench")
    defer { directory.remove() }
    let store = try Store(path: directory.url.appendingPathComponent("store").path)
    var first: ImportReport?
    let firstSeconds = try seconds { first = try store.importJSON(contentsOf: file, as: IndexedCodableUser.self) }
    let peakAfterFirst = peakResidentBytes()
    guard first?.inserted == records else { throw ComparisonError("Strata: first import \(String(describing: first)), expected \(records) inserted") }
    var again: ImportReport?
    let againSeconds = try seconds { again = try store.importJSON(contentsOf: file, as: IndexedCodableUser.self) }
    guard again?.unchanged == records else { throw ComparisonError("Strata: second import \(String(describing: again)), expected all unchanged") }
    let verification = try store.read { tx in try tx.verifyIndexes(entity: "IndexedCodableUser") }
    guard verification.isConsistent else { throw ComparisonError("Strata: indexes inconsistent: \(verification.problems.prefix(3))") }
    return ImportMeasurement(engine: "Strata", records: records, fileBytes: fileSize(file), firstSeconds: firstSeconds,
                             againSeconds: againSeconds, peakAfterFirst: peakAfterFirst, peakAfterAgain: peakResidentBytes(),
                             note: "second import: \(again.map(String.init(describing:)) ?? "")",
                             settings: StrataEngine.settingsLine(records: "`IndexedCodableUser` through its synthesized `Codable`", indexes: QueryIndexes.description) + "; `importJSON(contentsOf:as:)`")
}

/// GRDB as its users import JSON: read the file, `JSONDecoder` (snake_case keys, ISO 8601 dates)
/// into `[GRDBUser]`, then upsert each through one cached statement in one write transaction, on
/// the pool of `query-side-by-side` (WAL, synchronous=NORMAL) with the same indexes.
public func measureGRDBImport(file: URL, records: Int) throws -> ImportMeasurement {
    let engine = try IndexedGRDBEngine(synchronous: .normal)
    defer { engine.close() }
    func load() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let users = try decoder.decode([GRDBUser].self, from: Data(contentsOf: file))
        guard users.count == records else { throw ComparisonError("GRDB: decoded \(users.count) users, expected \(records)") }
        try engine.upsert(users)
    }
    let firstSeconds = try seconds(load)
    let peakAfterFirst = peakResidentBytes()
    let againSeconds = try seconds(load)
    let count = try engine.count()
    guard count == records else { throw ComparisonError("GRDB: \(count) rows after import, expected \(records)") }
    return ImportMeasurement(engine: engine.name, records: records, fileBytes: fileSize(file), firstSeconds: firstSeconds,
                             againSeconds: againSeconds, peakAfterFirst: peakAfterFirst, peakAfterAgain: peakResidentBytes(), note: "",
                             settings: engine.settings + "; `JSONDecoder` into `[GRDBUser]`, then the upserts")
}

func fileSize(_ file: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? Int) ?? 0
}

/// Writes `count` generated users (seed `seed`) as the JSON array the importers read.
public func writeDataset(count: Int, seed: UInt64, to file: URL) throws {
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
        throw ComparisonError("cannot create \(file.path)")
    }
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    var writer = UserJSONWriter(output: handle)
    for user in UserGenerator(count: count, seed: seed) { try writer.write(user) }
    try writer.finish()
}

/// The Markdown table of both engines' measurements.
public func importTable(strata: ImportMeasurement, grdb: ImportMeasurement) -> String {
    func rate(_ value: Double) -> String { value.formatted(.number.precision(.fractionLength(0))) }
    func mib(_ bytes: Int) -> String { (Double(bytes) / 1_048_576).formatted(.number.precision(.fractionLength(0))) + " MiB" }
    func ratio(_ a: Double, _ b: Double) -> String { (a / b).formatted(.number.precision(.fractionLength(2))) + "×" }
    return settingsHeader([(strata.engine, strata.settings), (grdb.engine, grdb.settings)]) + "\n\n" + """
        | import of \(strata.records.formatted()) users (\(mib(strata.fileBytes)) of JSON), \(QueryIndexes.columns.count) indexes, one write transaction | Strata | \(grdb.engine) | Strata / \(grdb.engine) |
        | --- | ---: | ---: | ---: |
        | first import (records/s) | \(rate(strata.firstRate)) | \(rate(grdb.firstRate)) | \(ratio(strata.firstRate, grdb.firstRate)) |
        | same file again, all unchanged (records/s) | \(rate(strata.againRate)) | \(rate(grdb.againRate)) | \(ratio(strata.againRate, grdb.againRate)) |
        | re-import speed-up over the first import | \(ratio(strata.againRate, strata.firstRate)) | \(ratio(grdb.againRate, grdb.firstRate)) | |
        | peak RSS after the first import | \(mib(strata.peakAfterFirst)) | \(mib(grdb.peakAfterFirst)) | \(ratio(Double(strata.peakAfterFirst), Double(grdb.peakAfterFirst))) |
        | peak RSS after both imports | \(mib(strata.peakAfterAgain)) | \(mib(grdb.peakAfterAgain)) | |
        """
}
