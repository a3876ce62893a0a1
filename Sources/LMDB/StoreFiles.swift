#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks an environment's directory and files pass before LMDB opens them, by name.
///
/// LMDB opens `data.mdb` and `lock.mdb` with `O_CREAT` and follows symbolic links: a `lock.mdb`
/// that links to another file gets LMDB's lock table written over it, a linked `data.mdb` turns
/// its target into an LMDB file, and a dangling link creates a file wherever it points. So every
/// file is looked at as a directory entry (`fstatat` without following links) and must be a
/// regular file; a missing one is created here, `O_EXCL | O_NOFOLLOW`, with the environment's
/// mode. Between this check and LMDB's own `open` only who may write to the directory can swap
/// an entry, hence the directory and files must belong to this user and be writable by no one
/// else, unless the environment's `fileMode` itself shares writing (a store shared by a group).
enum StoreFiles {
    /// The files of an environment directory: LMDB's two, and the writer gate's lock file.
    static let names = ["data.mdb", "lock.mdb", "writer.lock"]
    /// The operation named by the errors of these checks (see ``LMDBError/isUnsafeStoreFile``).
    static let operation = "check store files"

    /// Checks `directory` and its files, creating the missing lock files with exactly `mode` unless
    /// `readOnly` (LMDB then creates only `lock.mdb`, in a directory checked to be this user's).
    /// A missing `data.mdb` is left to ``DataFile/prepare(directory:options:)``, which creates it
    /// whole.
    ///
    /// Only the entries something is written to must be this user's and written by no one else:
    /// every one for a writable opening, the directory and `lock.mdb` for a read-only one with
    /// `access` ``Access/readOnly`` (LMDB writes its reader table; it only reads `data.mdb`), none
    /// for ``Access/lockless``, through which nothing is written (the files must still be regular
    /// files, whoever owns them).
    static func prepare(directory: String, mode: UInt16, readOnly: Bool, access: Access? = nil) throws(LMDBError) {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw LMDBError(code: errno, operation: "open", context: directory) }
        defer { close(folder) }
        let shared = mode_t(mode) & 0o022
        var status = stat()
        guard fstat(folder, &status) == 0 else { throw LMDBError(code: errno, operation: "fstat", context: directory) }
        if access != .lockless { try checkOwnerAndMode(status, shared: shared, what: "the store directory \(directory)") }
        for name in names {
            let path = directory + "/" + name
            var attempts = 0
            while fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) != 0 {
                guard errno == ENOENT else { throw LMDBError(code: errno, operation: "fstatat", context: path) }
                // data.mdb is made whole, meta pages and all, by DataFile.prepare: an empty one is damage.
                guard !readOnly, name != "data.mdb" else { break }
                attempts += 1
                let file = openat(folder, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
                guard file >= 0 else {
                    // Another process created it meanwhile: look at what it created.
                    guard errno == EEXIST, attempts < 3 else { throw LMDBError(code: errno, operation: "open", context: path) }
                    continue
                }
                let changed = fchmod(file, mode_t(mode)) == 0 ? 0 : errno
                close(file)
                guard changed == 0 else { throw LMDBError(code: changed, operation: "fchmod", context: path) }
            }
            // Missing: LMDB says so (read-only), or DataFile.prepare creates it (data.mdb).
            if readOnly || name == "data.mdb", fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) != 0 { continue }
            let written = access == .lockless ? false : access == .readOnly ? name == "lock.mdb" : true
            try checkEntry(status, path: path, shared: written ? shared : 0o7777)
        }
    }

    /// Refuses an entry that is not a regular file, or that others may change (unless `shared`
    /// is every bit: a lockless opening).
    private static func checkEntry(_ status: stat, path: String, shared: mode_t) throws(LMDBError) {
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            if shared != 0o7777 { try checkOwnerAndMode(status, shared: shared, what: "the store file \(path)") }
        case S_IFLNK:
            throw unsafe(ELOOP, "the store file \(path) is a symbolic link; a store's files are opened only as regular files in its directory (LMDB would write through the link to the file it names)")
        default:
            throw unsafe(ELOOP, "the store file \(path) is not a regular file")
        }
    }

    /// Refuses an entry of another user, or one writable by its group or others beyond `shared`.
    private static func checkOwnerAndMode(_ status: stat, shared: mode_t, what: String) throws(LMDBError) {
        if status.st_uid != geteuid(), shared == 0 {
            throw unsafe(EPERM, "\(what) belongs to \(userName(status.st_uid)), not to \(userName(geteuid())) who opens it; open a store as its owner (its owner could otherwise swap its files for links)")
        }
        let writable = status.st_mode & 0o022 & ~shared
        if writable != 0 {
            let who = writable == 0o022 ? "its group and others" : writable == 0o020 ? "its group" : "others"
            throw unsafe(EPERM, "\(what) is writable by \(who) (mode 0\(String(status.st_mode & 0o7777, radix: 8))); only the owner may write to a store's directory and files (chmod go-w), unless the store's file permissions share writing")
        }
    }

    /// How an opening that will not write (``Environment/Options/readOnly``) opens `directory`,
    /// judged by what this process may do there (`faccessat` with the effective ids, `statvfs`).
    enum Access: Equatable {
        /// Read-write, creating nothing: this user's store, every file of it and the directory
        /// writable. The registry opens a read-only request so when it can, so that a writable
        /// opening of the same path later shares the environment (see
        /// ``Environment/shared(path:options:)``).
        case writable
        /// `MDB_RDONLY`, registering its readers in `lock.mdb` (which is this user's and
        /// writable), though `data.mdb` or the directory is not writable.
        case readOnly
        /// `MDB_RDONLY | MDB_NOLOCK`, nothing written at all: a read-only file system, another
        /// user's store, a lock file this process may not write, or none. Reads register
        /// nowhere, so each checks at its end that no writer can have reused its pages (see
        /// ``Environment/read(_:)``).
        case lockless
    }

    /// The ``Access`` an opening that will not write gets for `directory`.
    static func readOnlyAccess(directory: String) -> Access {
        var volume = statvfs()
        if statvfs(directory, &volume) == 0, volume.f_flag & UInt(ST_RDONLY) != 0 { return .lockless }
        func ownWritableFile(_ name: String, missingIsFine: Bool = false) -> Bool {
            var status = stat()
            let path = directory + "/" + name
            guard lstat(path, &status) == 0 else { return missingIsFine && errno == ENOENT }
            return status.st_mode & S_IFMT == S_IFREG && status.st_uid == geteuid() && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0
        }
        var folder = stat()
        guard stat(directory, &folder) == 0, folder.st_uid == geteuid(), ownWritableFile("lock.mdb") else { return .lockless }
        let writable = faccessat(AT_FDCWD, directory, W_OK, AT_EACCESS) == 0 && ownWritableFile("data.mdb")
            && ownWritableFile("writer.lock", missingIsFine: true)
        return writable ? .writable : .readOnly
    }

    private static func unsafe(_ code: Int32, _ message: String) -> LMDBError {
        LMDBError(code: code, operation: operation, context: message)
    }

    /// `name (uid N)`, or `uid N` for a user without a name.
    private static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "user \(String(cString: name)) (uid \(uid))"
    }
}

extension LMDBError {
    /// The environment's directory or one of its files is unsafe to open (``context`` says which
    /// and why): a symbolic link or not a regular file (`ELOOP`), or another user's, or writable
    /// by others (`EPERM`).
    public var isUnsafeStoreFile: Bool { operation == StoreFiles.operation }
}
