import CLMDB
import Synchronization

/// An LMDB environment: one memory-mapped file holding named databases, opened once per process.
///
/// ```swift
/// let env = try Environment(path: "/tmp/data")          // the directory must exist
/// try env.write { txn in
///     let db = try txn.openDatabase("users", options: .create)!
///     try txn.put([1], forKey: [42], in: db)
/// }
/// ```
///
/// The environment is opened with `MDB_NOTLS`, so read transactions may run on any thread, many at
/// once, beside one writer (MVCC: a reader sees the snapshot of its start). Writers are serialized
/// by a gate with a timeout, in this process and across processes.
///
/// ## LMDB notes
/// liblmdb stops the process when a page it reads is inconsistent (a damaged file): the
/// environment turns that `abort()` into a message naming the file and exit status 1 (see
/// `installAssertionHook`); ``checkPages(directory:)`` finds such damage beforehand as an error.
/// LMDB forbids opening the same file twice in one process; use ``shared(path:options:)`` to get
/// the one instance per path. The map size is managed for you: a write that fills the map makes the
/// environment grow it (`mdb_env_set_mapsize`) and run the write closure again, so a write closure
/// must not have effects outside its transaction that cannot be repeated.
public final class Environment: @unchecked Sendable {
    // @unchecked Sendable: `handle` is an MDB_env, whose functions LMDB documents as thread-safe for
    // use with MDB_NOTLS; the only mutable state (`mapSize`) sits in a ConditionLock, and map resizing is
    // made exclusive of every transaction by `mapLock`.

    /// How an environment is opened.
    public struct Options: Sendable {
        /// Initial map size in bytes; the map grows when a write fills it. Only address space: the
        /// file grows with the data (LMDB writes pages with `pwrite`; it does not preallocate).
        public var mapSize: Int = 1 << 30
        /// The map never grows past this size; a write that needs more fails with `MDB_MAP_FULL`.
        public var maxMapSize: Int = 1 << 40
        /// Reader slots (`mdb_env_set_maxreaders`): concurrent read transactions across all processes.
        /// Each process also keeps a few idle read transactions of the environment for reuse (an
        /// eighth of this, at most 8), and each of those keeps its slot.
        public var maxReaders: UInt32 = 126
        /// Named databases (`mdb_env_set_maxdbs`).
        public var maxDatabases: UInt32 = 1024
        /// Open without write access (`MDB_RDONLY`); writes then fail. Nothing is created in the
        /// directory. When this process may not write the lock file (a read-only file system,
        /// another user's store, a lock file it may not write, or none), the environment is
        /// opened without it (``isLockless``).
        public var readOnly = false
        /// Seconds a writer waits for another writer before failing with a busy error.
        public var writeLockTimeout: Double = 30
        /// The permissions of the files the environment creates: owner only by default.
        public var fileMode: UInt16 = 0o600
        /// The defaults: a 1 GiB map that may grow to 1 TiB, 126 readers, 1024 named databases, read-write, a
        /// 30-second write-lock wait, files readable and writable by the owner only.
        public init() {}
    }

    /// When a commit reaches the disk.
    public enum Durability: Sendable {
        /// `fsync` at every commit: a returned `write` survives power loss (LMDB's default).
        case synchronous
        /// No `fsync` at commit (`MDB_NOSYNC` for that commit); call ``sync()`` later. A process
        /// crash loses nothing, a power failure may lose the commits since the last sync.
        case deferred
    }

    let handle: OpaquePointer
    /// The directory holding `data.mdb` and `lock.mdb`.
    public let path: String
    /// The options the environment was opened with.
    public let options: Options
    let mapLock = MapLock()
    /// Reset read transactions that ``read(_:)`` renews instead of beginning new ones.
    let readHandles: ReadHandleCache
    /// `mdb_dbi_open` must not run in two transactions of one process at once.
    let databaseOpenLock = ConditionLock(())
    /// The writer gate, opened at the first write (so that an opening creates no `writer.lock`
    /// until something is written).
    private let writerGate = Mutex<WriterGate?>(nil)
    /// What notices commits for waits and observers, made at first use.
    private let commitWatchStorage = ConditionLock<CommitWatch?>(nil)
    var commitWatch: CommitWatch {
        commitWatchStorage.withLockWakingNone { watch in
            if let watch { return watch }
            let made = CommitWatch(environment: self)
            watch = made
            return made
        }
    }
    /// True when LMDB has the environment open for writing; false for ``Options/readOnly``,
    /// unless ``shared(path:options:)`` opened it writable for a later writable opening.
    public let isWritable: Bool
    /// True when opened without LMDB's lock file (`MDB_NOLOCK`): a read-only opening on
    /// read-only media or of a store whose lock file this process may not write. Its reads
    /// register nowhere, so each checks at its end that no other process's write can have reused
    /// the pages it read, and throws an error whose ``LMDBError/isSnapshotLost`` is true if one can.
    public let isLockless: Bool
    private let mapSize: ConditionLock<Int>
    /// Where this process maps `data.mdb` (0: unknown), which transactions check the entries
    /// LMDB hands out against (``MapBounds``); read again whenever the map is resized.
    let mapAddress = Atomic<UInt>(0)
    /// The size of `data.mdb` as last measured (``MapBounds/measure(_:)``).
    let dataFileSize = Atomic<UInt>(0)
    /// The fewest bytes of leaf pages a database spans for its look-ups to be prefetched
    /// (``Transaction/prefetches(_:)``): ``Transaction/defaultPrefetchThreshold``; tests lower it.
    package let prefetchThreshold = Atomic<Int>(Transaction.defaultPrefetchThreshold)
    /// The largest key LMDB accepts (`mdb_env_get_maxkeysize`), 511 bytes in Debian's build.
    public let maxKeySize: Int

    /// Opens the environment in the existing directory `path` (`mdb_env_open`).
    public convenience init(path: String, options: Options = Options()) throws(LMDBError) {
        try self.init(path: path, options: options, access: options.readOnly ? StoreFiles.readOnlyAccess(directory: path) : nil)
    }

    /// Opens the environment with `access` for a read-only opening (nil: a writable one, which
    /// creates the files it lacks); ``StoreFiles/Access/writable`` opens LMDB read-write.
    init(path: String, options requested: Options, access: StoreFiles.Access?) throws(LMDBError) {
        var options = requested
        options.readOnly = access == .readOnly || access == .lockless
        let lockless = access == .lockless
        try StoreFiles.prepare(directory: path, mode: options.fileMode, readOnly: access != nil, access: access)
        try DataFile.prepare(directory: path, options: options, lockless: lockless)
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: 12, operation: "mdb_env_create") }
        installAssertionHook(env)
        do {
            try check(mdb_env_set_maxreaders(env, options.maxReaders), "mdb_env_set_maxreaders")
            try check(mdb_env_set_maxdbs(env, MDB_dbi(options.maxDatabases)), "mdb_env_set_maxdbs")
            try check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS)
            if options.readOnly { flags |= UInt32(MDB_RDONLY) }
            if lockless { flags |= UInt32(MDB_NOLOCK) }
            try check(mdb_env_open(env, path, flags, mdb_mode_t(options.fileMode)), "mdb_env_open", context: path)
            if !options.readOnly {
                // Reader slots left by killed processes pin old snapshots: clear them now.
                var dead: Int32 = 0
                mdb_reader_check(env, &dead)
            }
        } catch {
            mdb_env_close(env)
            throw error
        }
        handle = env
        self.path = path
        self.options = options
        isWritable = !options.readOnly
        isLockless = lockless
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        mapSize = ConditionLock(info.me_mapsize)
        readHandles = ReadHandleCache(maxReaders: options.maxReaders)
        maxKeySize = Int(mdb_env_get_maxkeysize(env))
        noteMapAddress()
    }

    deinit {
        endKeptReads()
        // Closed under the registry lock so that `shared(path:)` never opens a second instance of
        // this file while this one is still closing.
        closeUnderRegistryLock(handle)
    }

    /// Aborts the read transactions ``readHandles`` kept, which refer to the environment: the
    /// deinit calls it before `mdb_env_close`. In a child process made by `fork()` it aborts
    /// none, as they are its parent's (see ``ReadHandleCache``).
    func endKeptReads() {
        for kept in readHandles.drain() { mdb_txn_abort(kept) }
    }

    /// The writer gate, opened (and `writer.lock` created when missing, as
    /// ``StoreFiles/prepare(directory:mode:readOnly:access:)`` creates it) at the first write.
    func gate() throws(LMDBError) -> WriterGate {
        try writerGate.withLock { (gate: inout WriterGate?) throws(LMDBError) -> WriterGate in
            if let gate { return gate }
            try StoreFiles.prepare(directory: path, mode: options.fileMode, readOnly: false)
            let opened = try WriterGate(lockFilePath: path + "/writer.lock", mode: options.fileMode)
            gate = opened
            return opened
        }
    }

    /// The current map size in bytes.
    public var currentMapSize: Int { mapSize.withLock { $0 } }

    /// Bytes of the map in use (last used page × page size).
    public var usedBytes: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_last_pgno + 1) * Int(stat.ms_psize)
    }

    /// The id of the last committed write transaction, by any process (`mdb_env_info`): it
    /// grows by one with every commit, which is how a process notices another's writes.
    public var lastTransactionID: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_last_txnid
    }

    /// Reader slots in use and available (`mdb_env_info`).
    public var readers: (used: Int, max: Int) {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return (Int(info.me_numreaders), Int(info.me_maxreaders))
    }

    /// Reader slots in use in the lock table, by any process (`mdb_reader_list`), counting those
    /// kept by idle read transactions; 0 for a ``isLockless`` environment, which has no table.
    var readerSlotsInUse: Int {
        var count = 0
        withUnsafeMutablePointer(to: &count) { counter in
            _ = mdb_reader_list(handle, { line, context in
                // One line per slot in use, whose first field is a pid; the header and the
                // "(no active readers)" line start otherwise.
                guard let line, let context else { return 0 }
                var first = line
                while first.pointee == 0x20 { first += 1 }
                if first.pointee >= 0x30, first.pointee <= 0x39 {
                    context.assumingMemoryBound(to: Int.self).pointee += 1
                }
                return 0
            }, counter)
        }
        return count
    }

    /// Flushes commits made with ``Durability/deferred`` to disk (`mdb_env_sync` with force).
    public func sync() throws(LMDBError) {
        try check(mdb_env_sync(handle, 1), "mdb_env_sync", context: path)
    }

    /// Writes a consistent copy of the environment into the existing empty directory `destination`
    /// while readers and a writer go on (`mdb_env_copy2`); `compact` omits free pages.
    public func copy(to destination: String, compact: Bool = false) throws(LMDBError) {
        try check(mdb_env_copy2(handle, destination, compact ? UInt32(MDB_CP_COMPACT) : 0),
                  "mdb_env_copy2", context: destination)
    }

    /// Grows the map to at least `minimum` bytes (doubling), with no transaction of this process
    /// active: new transactions wait while it waits for the open ones to end, at most `timeout`
    /// seconds (``Options/writeLockTimeout`` when nil; then a busy error).
    func grow(atLeast minimum: Int, timeout: Double? = nil) throws(LMDBError) {
        guard MapLock.sharedHolds.value == 0 else {
            throw LMDBError(code: MDB_MAP_FULL, operation: "grow map",
                            context: "\(path) is full and cannot grow while this thread keeps another transaction open; end reads before writing")
        }
        try lockMapExclusively(operation: "grow map", timeout: timeout)
        defer { mapLock.unlockExclusive() }
        try mapSize.withLock { (size: inout Int) throws(LMDBError) in
            guard size < minimum else { return }   // someone else grew it meanwhile
            guard size < options.maxMapSize else {
                throw LMDBError(code: MDB_MAP_FULL, operation: "grow map",
                                context: "\(path) reached its maximum map size of \(options.maxMapSize) bytes")
            }
            var target = size
            while target < minimum { target *= 2 }
            target = min(target, options.maxMapSize)
            try check(mdb_env_set_mapsize(handle, target), "mdb_env_set_mapsize", context: path)
            noteMapAddress()
            var info = MDB_envinfo()
            mdb_env_info(handle, &info)
            size = info.me_mapsize
        }
    }

    /// Takes the map lock exclusively within ``Options/writeLockTimeout`` seconds, or throws a
    /// busy error (a transaction of this process stayed open that long).
    private func lockMapExclusively(operation: String, timeout: Double? = nil) throws(LMDBError) {
        let timeout = timeout ?? options.writeLockTimeout
        guard mapLock.lockExclusive(timeout: timeout) else {
            throw LMDBError(code: LMDBError.busyCode, operation: operation,
                            context: "transactions of this process kept \(path) in use for more than \(timeout) s")
        }
    }

    /// Reads where the map is now (after opening and after every resize, which maps it anew).
    private func noteMapAddress() {
        MapBounds.measure(self)
        mapAddress.store(MapBounds.mapAddress(of: path + "/data.mdb"), ordering: .releasing)
    }

    /// Adopts a map size set by another process (after `MDB_MAP_RESIZED`).
    func adoptForeignMapSize() throws(LMDBError) {
        guard MapLock.sharedHolds.value == 0 else {
            throw LMDBError(code: MDB_MAP_RESIZED, operation: "mdb_txn_begin",
                            context: "another process grew \(path); end this thread's open transactions and retry")
        }
        try lockMapExclusively(operation: "adopt map size")
        defer { mapLock.unlockExclusive() }
        try check(mdb_env_set_mapsize(handle, 0), "mdb_env_set_mapsize", context: path)
        noteMapAddress()
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        mapSize.withLock { $0 = info.me_mapsize }
    }
}
