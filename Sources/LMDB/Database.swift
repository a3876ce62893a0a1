import CLMDB

/// A named key–value database inside an ``Environment`` (an LMDB `MDB_dbi`).
///
/// A handle stays valid for the life of the environment once the transaction that opened it has
/// committed (or, for a read transaction, ended). Handles opened in a write transaction that aborts
/// are invalid, as in LMDB.
public struct Database: Sendable, Hashable {
    /// The LMDB handle.
    let dbi: MDB_dbi
    /// The name, or nil for the unnamed main database.
    public let name: String?
    /// The flags the database was created with (read back from LMDB when it is opened).
    public let options: DatabaseOptions
}

/// How a database stores its keys and values (`mdb_dbi_open` flags).
public struct DatabaseOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Create the database when it does not exist (write transactions only; `MDB_CREATE`).
    public static let create = DatabaseOptions(rawValue: UInt32(MDB_CREATE))
    /// Keep several values per key, sorted bytewise (`MDB_DUPSORT`). Values are limited to the key size limit.
    public static let sortedDuplicates = DatabaseOptions(rawValue: UInt32(MDB_DUPSORT))
    /// With ``sortedDuplicates``: all values of a key have the same size (`MDB_DUPFIXED`).
    public static let fixedSizeDuplicates = DatabaseOptions(rawValue: UInt32(MDB_DUPFIXED))
    /// Compare keys from the end to the start (`MDB_REVERSEKEY`).
    public static let reverseKey = DatabaseOptions(rawValue: UInt32(MDB_REVERSEKEY))
}

/// How `put` treats existing entries (`mdb_put` flags).
public struct PutOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fail with `MDB_KEYEXIST` when the key is present (`MDB_NOOVERWRITE`).
    public static let noOverwrite = PutOptions(rawValue: UInt32(MDB_NOOVERWRITE))
    /// In a sorted-duplicates database, fail when the exact key/value pair exists (`MDB_NODUPDATA`).
    public static let noDuplicateData = PutOptions(rawValue: UInt32(MDB_NODUPDATA))
    /// The key sorts after every key in the database: a fast bulk-load path (`MDB_APPEND`).
    public static let append = PutOptions(rawValue: UInt32(MDB_APPEND))
    /// As ``append`` for duplicate values (`MDB_APPENDDUP`).
    public static let appendDuplicate = PutOptions(rawValue: UInt32(MDB_APPENDDUP))
}

/// Counts and sizes of one database (`mdb_stat`).
public struct DatabaseStatistics: Sendable, Equatable {
    /// The number of entries (key/value pairs, counting every duplicate).
    public var entries: Int
    /// The B-tree depth.
    public var depth: Int
    /// Pages used, by kind.
    public var branchPages: Int, leafPages: Int, overflowPages: Int
    /// The page size in bytes.
    public var pageSize: Int

    /// Bytes occupied by the database's pages.
    public var bytes: Int { (branchPages + leafPages + overflowPages) * pageSize }

    init(_ stat: MDB_stat) {
        entries = Int(stat.ms_entries)
        depth = Int(stat.ms_depth)
        branchPages = Int(stat.ms_branch_pages)
        leafPages = Int(stat.ms_leaf_pages)
        overflowPages = Int(stat.ms_overflow_pages)
        pageSize = Int(stat.ms_psize)
    }
}
