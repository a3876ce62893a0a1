/// The engines `side-by-side` compares, in table order, and how to make each.
///
/// ```swift
/// let engine = try EngineKind.sqlite.make(workload: workload)   // an empty database, users converted
/// defer { engine.close() }
/// ```
public enum EngineKind: String, CaseIterable, Sendable {
    /// Strata with its defaults (durable commits).
    case strata
    /// Strata with a record type that has only its synthesized `Codable` (no `FieldCodable`):
    /// what a record costs before its type adopts the fast form (`query-side-by-side` only).
    case strataCodable = "strata-codable"
    /// SQLite through its C API: WAL, synchronous=NORMAL, a large page cache, statements prepared once.
    case sqlite = "sqlite-c"
    /// GRDB's `DatabasePool` (WAL) as GRDB sets it up: synchronous=NORMAL.
    case grdbNormal = "grdb-normal"
    /// GRDB's `DatabasePool` with synchronous=FULL: every commit fsynced, as Strata's are.
    case grdbFull = "grdb-full"
    /// LMDB alone through Strata's `LMDB` library: the physical limit of point reads and scans.
    case lmdb = "raw-lmdb"

    /// The column name in every table.
    public var name: String {
        switch self {
        case .strata: "Strata"
        case .strataCodable: "Strata Codable"
        case .sqlite: "SQLite-C"
        case .grdbNormal: "GRDB pool NORMAL"
        case .grdbFull: "GRDB pool FULL"
        case .lmdb: "raw LMDB"
        }
    }

    /// The engines a table divides Strata's figures by (a column "Strata / X" each).
    public static let ratioPeers: [EngineKind] = [.sqlite, .grdbNormal, .lmdb]

    /// An empty database in a fresh scratch directory, and the users in the engine's record type.
    public func make(workload: Workload) throws -> any ComparedEngine {
        switch self {
        case .strata: try StrataEngine(workload: workload)
        case .strataCodable: throw ComparisonError("'\(rawValue)' runs only in query-side-by-side")
        case .sqlite: try SQLiteEngine(workload: workload)
        case .grdbNormal: try GRDBEngine(workload: workload, synchronous: .normal)
        case .grdbFull: try GRDBEngine(workload: workload, synchronous: .full)
        case .lmdb: try RawLMDBEngine(workload: workload)
        }
    }

    /// The engines `side-by-side` runs (every one that measures its workload).
    public static let sideBySideEngines: [EngineKind] = allCases.filter { $0 != .strataCodable }

    /// Parses a comma-separated list of raw values (`strata,sqlite-c`), or "all".
    public static func list(_ text: String) -> [EngineKind]? {
        if text == "all" { return allCases }
        let kinds = text.split(separator: ",").map { EngineKind(rawValue: String($0)) }
        guard !kinds.isEmpty, !kinds.contains(nil) else { return nil }
        return allCases.filter { kinds.contains($0) }
    }
}
