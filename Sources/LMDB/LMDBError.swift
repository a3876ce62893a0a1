import CLMDB

/// An error returned by an LMDB call, with LMDB's own message and the operation that failed.
///
/// `MDB_NOTFOUND` never surfaces as an error: lookups return `nil` or `false` instead.
public struct LMDBError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The LMDB return code (`MDB_*`) or a system `errno` value.
    public var code: Int32
    /// The LMDB call or wrapper operation that failed, e.g. `mdb_put`.
    public var operation: String
    /// Extra context supplied by the wrapper (a path, a database name), or empty.
    public var context: String

    /// An error for `code`, returned by `operation`, with optional context (a path, a database name).
    public init(code: Int32, operation: String, context: String = "") {
        self.code = code
        self.operation = operation
        self.context = context
    }

    /// LMDB's text for ``code`` (`mdb_strerror`), which also covers system error numbers.
    public var message: String { String(cString: mdb_strerror(code)) }

    public var description: String {
        let suffix = context.isEmpty ? "" : " (\(context))"
        return "\(operation) failed: \(message) [\(code)]\(suffix)"
    }

    public static func == (lhs: LMDBError, rhs: LMDBError) -> Bool { lhs.code == rhs.code }

    /// `put` with `noOverwrite` found the key (`MDB_KEYEXIST`).
    public var isKeyExists: Bool { code == MDB_KEYEXIST }
    /// The map is full (`MDB_MAP_FULL`); `Environment.write` grows the map and retries on its own.
    public var isMapFull: Bool { code == MDB_MAP_FULL }
    /// Another process grew the map (`MDB_MAP_RESIZED`); handled inside `Environment`.
    public var isMapResized: Bool { code == MDB_MAP_RESIZED }
    /// A key or value has a size LMDB refuses (`MDB_BAD_VALSIZE`): empty, or a key over the key limit.
    public var isBadValueSize: Bool { code == MDB_BAD_VALSIZE }
    /// The file is not an LMDB file, or is damaged (`MDB_INVALID`, `MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`).
    public var isCorrupted: Bool {
        code == MDB_INVALID || code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND || code == MDB_VERSION_MISMATCH
    }
    /// The disk is full (`ENOSPC`) or the file size limit was hit (`EFBIG`).
    public var isDiskFull: Bool { code == 28 || code == 27 }
    /// The operating system refused access (`EACCES`, `EPERM`, `EROFS`).
    public var isPermissionDenied: Bool { code == 13 || code == 1 || code == 30 }
    /// All reader slots are taken (`MDB_READERS_FULL`).
    public var isReadersFull: Bool { code == MDB_READERS_FULL }
    /// The write lock could not be taken before the timeout (a wrapper code, not LMDB's).
    public var isBusy: Bool { code == LMDBError.busyCode }

    /// The code the wrapper uses for a write-lock timeout (`EBUSY`).
    public static let busyCode: Int32 = 16
}
