#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

/// The raw `data.mdb` of an environment, read with `pread` before LMDB maps it.
///
/// LMDB trusts its file: a page past the end of a truncated file is a `SIGBUS` when the map is
/// read, and a new file whose first pages cannot be allocated (a full disk) is a `SIGBUS` when its
/// lock table is first written. These checks run before `mdb_env_open`, so such a file becomes a
/// typed ``LMDBError`` instead of a signal.
///
/// Layout (LMDB 0.9, 64-bit): a page starts with a 16-byte header (page number, pad, flags,
/// lower/upper bounds); pages 0 and 1 are meta pages whose `MDB_meta` follows the header: magic,
/// version, address, map size, the free and main databases' `MDB_db` records (the free one's
/// `md_pad` is the page size), the last used page and the transaction id.
enum DataFile {
    static let magic: UInt32 = 0xBEEF_C0DE
    static let version: UInt32 = 1
    static let pageHeaderSize = 16
    /// `P_META` in a page header's flags.
    static let metaFlag: UInt16 = 0x08
    /// `P_INVALID`: the root of an empty tree.
    static let noPage = UInt64.max
    /// Bytes of an `MDB_db` record.
    static let databaseRecordSize = 48
    /// The operation named by errors about the file's own bytes (see ``LMDBError/damage``).
    static let checkOperation = "check data file"

    /// One `MDB_db` record: a B-tree's root, depth and flags.
    struct DatabaseRecord {
        var pad: UInt32
        var flags: UInt16
        var depth: UInt16
        var entries: UInt64
        var root: UInt64

        /// Parses the 48 bytes at `offset` of `bytes`.
        init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            pad = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            flags = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            depth = bytes.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)
            entries = bytes.loadUnaligned(fromByteOffset: offset + 32, as: UInt64.self)
            root = bytes.loadUnaligned(fromByteOffset: offset + 40, as: UInt64.self)
        }
    }

    /// The meta page LMDB will use (the one with the larger transaction id).
    struct Meta {
        var pageSize: Int
        var free: DatabaseRecord
        var main: DatabaseRecord
        var lastPage: UInt64
        var transactionID: UInt64
        /// Which meta page (0 or 1) this is.
        var page: Int
    }

    /// Throws when the existing `data.mdb` in `directory` is empty, foreign, or shorter than its
    /// newest meta page says; creates a missing one (unless read-only) so that its first pages are
    /// on disk before LMDB maps it; reserves the lock table's blocks. Called by `Environment.init`
    /// before `mdb_env_open`. A full disk is `ENOSPC` here, not a `SIGBUS` inside LMDB. A
    /// `lockless` opening (`MDB_NOLOCK`) leaves the lock file alone.
    static func prepare(directory: String, options: Environment.Options, lockless: Bool = false) throws(LMDBError) {
        let path = directory + "/data.mdb"
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let error = errno
            guard error == ENOENT, !options.readOnly else { return }   // LMDB reports it as it always did
            try create(path: path, mode: options.fileMode)
        } else {
            defer { close(fd) }
            _ = try readMeta(fd: fd, path: path)
        }
        // LMDB creates and writes the lock file even for a read-only environment (unless the file
        // system is read-only, where this open fails and reserves nothing).
        if lockless { return }
        try reserveLockFile(directory + "/lock.mdb", readers: Int(options.maxReaders), mode: options.fileMode)
    }

    /// Reads both meta pages and checks them against the file's size: an empty file, a file that
    /// is not LMDB's, and a file cut short of its last page are errors naming what is wrong.
    static func readMeta(fd: Int32, path: String) throws(LMDBError) -> Meta {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw LMDBError(code: errno, operation: checkOperation, context: path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw damage(MDB_INVALID, "\(path) is not a regular file") }
        guard info.st_size > 0 else {
            throw damage(MDB_INVALID, "\(path) is empty (0 bytes): a store's data file is never empty, so it was truncated or replaced")
        }
        let first = try readMetaPage(fd: fd, path: path, offset: 0, page: 0, pageSize: nil)
        let second = try readMetaPage(fd: fd, path: path, offset: first.pageSize, page: 1, pageSize: first.pageSize)
        let newest = second.transactionID > first.transactionID ? second : first
        // The size is read after the metas: a writer grows the file before it writes a meta page.
        guard fstat(fd, &info) == 0 else { throw LMDBError(code: errno, operation: checkOperation, context: path) }
        let (needed, overflow) = (newest.lastPage &+ 1).multipliedReportingOverflow(by: UInt64(newest.pageSize))
        guard !overflow, newest.lastPage < UInt64(Int.max / newest.pageSize) else {
            throw damage(MDB_CORRUPTED, "\(path): meta page \(newest.page) claims an impossible last page \(newest.lastPage)")
        }
        guard UInt64(info.st_size) >= needed else {
            throw damage(MDB_CORRUPTED, "\(path) is \(info.st_size) bytes but its meta page \(newest.page) (transaction \(newest.transactionID)) "
                + "uses pages up to \(newest.lastPage), which need \(needed) bytes: the file was truncated")
        }
        for (name, record) in [("free-page", newest.free), ("main", newest.main)] where record.root != noPage && record.root > newest.lastPage {
            throw damage(MDB_CORRUPTED, "\(path): meta page \(newest.page) puts the \(name) database's root at page \(record.root), past the last page \(newest.lastPage)")
        }
        return newest
    }

    /// Reads and checks one meta page; `pageSize` is nil for page 0, which tells the page size.
    private static func readMetaPage(fd: Int32, path: String, offset: Int, page: Int, pageSize: Int?) throws(LMDBError) -> Meta {
        var buffer = [UInt8](repeating: 0, count: 160)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard count >= 0 else { throw LMDBError(code: errno, operation: checkOperation, context: path) }
        guard count == buffer.count else {
            throw damage(page == 0 ? MDB_INVALID : MDB_CORRUPTED,
                         "\(path) is too short (\(offset + count) bytes) to hold meta page \(page): it was truncated or is not a store")
        }
        let (flags, magic, version) = buffer.withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 10, as: UInt16.self), bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self),
             bytes.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        }
        guard magic == Self.magic else {
            throw damage(page == 0 ? MDB_INVALID : MDB_CORRUPTED,
                         "\(path): meta page \(page) lacks LMDB's magic number (found 0x\(String(magic, radix: 16))): "
                            + (page == 0 ? "the file is not an LMDB data file" : "the page is damaged"))
        }
        guard version == Self.version else {
            throw damage(MDB_VERSION_MISMATCH, "\(path): meta page \(page) has data format version \(version); this LMDB reads version \(Self.version)")
        }
        guard flags & metaFlag != 0 else {
            throw damage(MDB_CORRUPTED, "\(path): page \(page) is not marked as a meta page (flags 0x\(String(flags, radix: 16)))")
        }
        let meta = buffer.withUnsafeBytes { bytes in
            Meta(pageSize: Int(DatabaseRecord(bytes, at: 40).pad), free: DatabaseRecord(bytes, at: 40), main: DatabaseRecord(bytes, at: 88),
                 lastPage: bytes.loadUnaligned(fromByteOffset: 136, as: UInt64.self),
                 transactionID: bytes.loadUnaligned(fromByteOffset: 144, as: UInt64.self), page: page)
        }
        let size = meta.pageSize
        guard size >= 512, size <= 65_536, size & (size - 1) == 0, pageSize == nil || pageSize == size else {
            throw damage(MDB_CORRUPTED, "\(path): meta page \(page) has an invalid page size \(size)")
        }
        return meta
    }

    /// An error about the file's own bytes, with `explanation` as its context.
    static func damage(_ code: Int32, _ explanation: String) -> LMDBError {
        LMDBError(code: code, operation: checkOperation, context: explanation)
    }

    /// Creates `path` with its two meta pages written and synced, all or nothing: LMDB writes
    /// them into a temporary file of the same directory (opened without a lock file, so nothing
    /// is mapped for writing), which is then linked into place. A failure (a full disk) leaves no
    /// `data.mdb` behind, and a `data.mdb` that exists always has its meta pages.
    private static func create(path: String, mode: UInt16) throws(LMDBError) {
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        defer { unlink(temporary) }
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
        do {
            defer { mdb_env_close(env) }
            try check(mdb_env_set_mapsize(env, 1 << 20), "mdb_env_set_mapsize")
            try check(mdb_env_open(env, temporary, UInt32(MDB_NOSUBDIR | MDB_NOLOCK), mdb_mode_t(mode)), "mdb_env_open", context: path)
            try check(mdb_env_sync(env, 1), "mdb_env_sync", context: path)
        }
        // The store's mode exactly, whatever the umask (LMDB created the file through it).
        guard chmod(temporary, mode_t(mode)) == 0 else { throw LMDBError(code: errno, operation: "chmod", context: path) }
        if link(temporary, path) != 0 {
            let error = errno
            switch error {
            case EEXIST: break   // another process created it first
            case EPERM, EOPNOTSUPP, ENOSYS:
                // A file system without hard links: rename, which would replace a file created
                // meanwhile by another process, so only when there is none.
                guard access(path, F_OK) != 0 else { break }
                guard rename(temporary, path) == 0 else { throw LMDBError(code: errno, operation: "rename", context: path) }
            default:
                throw LMDBError(code: error, operation: "link", context: path)
            }
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let dirfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 { fsync(dirfd); close(dirfd) }
    }

    /// Allocates the blocks of LMDB's lock table before LMDB maps the lock file and writes into
    /// it: a write through a map to a block the file system cannot allocate is a `SIGBUS`, while
    /// `posix_fallocate` returns `ENOSPC`. An existing lock file keeps its size.
    private static func reserveLockFile(_ path: String, readers: Int, mode: UInt16) throws(LMDBError) {
        // Never through a symbolic link: this creates and extends the file.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { return }   // LMDB opens it next and reports why it cannot
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        // LMDB's table: a 192-byte header (two cache lines of mutexes, one reader slot) and 64 bytes
        // per further reader. A lock file in use keeps its size: LMDB sizes its reader table by it.
        let size = info.st_size > 0 ? info.st_size : off_t(readers - 1) * 64 + 192
        #if canImport(Glibc)
        let result = posix_fallocate(fd, 0, size)
        guard result == 0 || result == EOPNOTSUPP || result == EINVAL else {
            throw LMDBError(code: result, operation: "posix_fallocate", context: path)
        }
        #endif
    }
}

extension LMDBError {
    /// What is wrong with a damaged or foreign data file, naming the file and the page, when this
    /// error comes from the checks that read the file's bytes before LMDB does; nil otherwise.
    public var damage: String? { operation == DataFile.checkOperation ? context : nil }
}
