import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An LMDB transaction, valid only inside the closure that received it and on that closure's thread.
///
/// Misuse is detected loudly, never left undefined: using a transaction after its closure returned,
/// from another thread, or while a savepoint of it is open stops the program with a message.
/// The type is deliberately not `Sendable`.
///
/// Values come out either copied (`[UInt8]`, safe to keep) or borrowed as a `Span` that the
/// compiler does not let escape the closure it is passed to (zero-copy reads).
public final class Transaction {
    let environment: Environment
    private(set) var handle: OpaquePointer?
    /// True for read-only transactions (`MDB_RDONLY`).
    public let isReadOnly: Bool
    private let owner: pthread_t
    private var hasOpenSavepoint = false
    private weak var parent: Transaction?
    /// Set when an operation failed with `MDB_MAP_FULL`, so the environment grows the map and
    /// retries even when the caller wrapped the error in its own type.
    var sawMapFull = false
    /// Set by ``openDatabase(_:options:)``: the transaction may have opened a database handle,
    /// which only a commit keeps, so a read that did is committed rather than reset for reuse.
    private var openedDatabase = false
    /// The trees of the databases ``prefetchLeaf(for:in:)`` was asked about, nil for those it does
    /// not prefetch (read once per transaction: a read-only snapshot's trees do not change).
    var leafTrees: [MDB_dbi: LeafTree?] = [:]
    /// The last of `leafTrees` asked for (a query asks for one database's, key after key).
    var lastLeafTree: (dbi: MDB_dbi, tree: LeafTree?)?
    /// What of the map this transaction's entries may point into (see ``MapBounds``).
    let bounds: MapBounds

    init(environment: Environment, handle: OpaquePointer, isReadOnly: Bool, parent: Transaction? = nil) {
        self.environment = environment
        self.handle = handle
        self.bounds = MapBounds(environment)
        self.isReadOnly = isReadOnly
        self.parent = parent
        self.owner = pthread_self()
    }

    /// The handle, after checking that this transaction may be used here and now.
    @inline(__always)
    func usableHandle() -> OpaquePointer {
        guard let handle else {
            preconditionFailure("LMDB transaction used after the closure that received it returned")
        }
        precondition(pthread_equal(owner, pthread_self()) != 0, "LMDB transaction used from another thread")
        precondition(!hasOpenSavepoint, "LMDB transaction used while one of its savepoints is open")
        return handle
    }

    /// Throws when the entry LMDB just returned runs past the data file (a damaged file).
    @inline(__always)
    func checkEntry(_ key: MDB_val, _ value: MDB_val, in database: Database) throws(LMDBError) {
        try bounds.check(key, "key", database: database.name)
        try bounds.check(value, "value", database: database.name)
    }

    @inline(__always)
    func noteFailure(_ error: LMDBError) -> LMDBError {
        if error.isMapFull {
            var txn: Transaction? = self
            while let current = txn { current.sawMapFull = true; txn = current.parent }
        }
        return error
    }

    func commit(durability: Environment.Durability) throws(LMDBError) {
        let txn = usableHandle()
        handle = nil
        if durability == .deferred { mdb_env_set_flags(environment.handle, UInt32(MDB_NOSYNC), 1) }
        let code = mdb_txn_commit(txn)   // frees the transaction whatever the outcome
        if durability == .deferred { mdb_env_set_flags(environment.handle, UInt32(MDB_NOSYNC), 0) }
        if code != 0 { throw noteFailure(LMDBError(code: code, operation: "mdb_txn_commit", context: environment.path)) }
    }

    /// Ends a read-only transaction: its handle goes reset (`mdb_txn_reset`) into `cache` for a
    /// later read to renew, unless the transaction opened a database or `cache` keeps no more.
    ///
    /// A reset, like an abort, closes the database handles the transaction opened, and a commit
    /// keeps them: a transaction that opened any ends with `mdb_txn_commit`. One that `cache` has
    /// no room for is aborted after its reset, which frees its reader slot and closes nothing.
    func finishRead(keepingIn cache: ReadHandleCache) {
        guard let txn = handle else { return }
        handle = nil
        if openedDatabase {
            mdb_txn_commit(txn)   // a read-only commit frees the transaction whatever it returns
            return
        }
        // Reset before it is on the list, where another thread may take it at once.
        mdb_txn_reset(txn)
        if !cache.keep(txn) { mdb_txn_abort(txn) }
    }

    func abort() {
        guard let txn = handle else { return }
        handle = nil
        mdb_txn_abort(txn)
    }

    /// The transaction's id (`mdb_txn_id`): for a write transaction, the id its commit gets.
    public var id: Int { Int(mdb_txn_id(usableHandle())) }

    // MARK: Databases

    /// Opens the database `name` (nil: the unnamed main database), or returns nil when it does not
    /// exist and `options` lacks `.create` (`mdb_dbi_open`).
    public func openDatabase(_ name: String?, options: DatabaseOptions = []) throws(LMDBError) -> Database? {
        let txn = usableHandle()
        openedDatabase = true
        var dbi = MDB_dbi()
        let code = environment.databaseOpenLock.withLock { _ in mdb_dbi_open(txn, name, options.rawValue, &dbi) }
        guard try checkFound(code, "mdb_dbi_open", context: name ?? "<main>") else { return nil }
        // The flags the database was created with, not those asked for now: a database opened
        // without `.sortedDuplicates` may hold duplicates, and counting them depends on knowing it.
        var flags: UInt32 = 0
        try check(mdb_dbi_flags(txn, dbi, &flags), "mdb_dbi_flags", context: name ?? "<main>")
        return Database(dbi: dbi, name: name, options: DatabaseOptions(rawValue: flags).subtracting(.create))
    }

    /// Deletes every entry of `database`; with `remove`, deletes the database itself (`mdb_drop`).
    public func drop(_ database: Database, remove: Bool = false) throws(LMDBError) {
        let txn = usableHandle()
        do { try check(mdb_drop(txn, database.dbi, remove ? 1 : 0), "mdb_drop", context: database.name ?? "<main>") }
        catch { throw noteFailure(error) }
    }

    /// Counts and sizes of `database` (`mdb_stat`).
    public func statistics(of database: Database) throws(LMDBError) -> DatabaseStatistics {
        let txn = usableHandle()
        var stat = MDB_stat()
        try check(mdb_stat(txn, database.dbi, &stat), "mdb_stat", context: database.name ?? "<main>")
        return DatabaseStatistics(stat)
    }

    /// The number of entries in `database`, counting duplicates; O(1).
    public func count(in database: Database) throws(LMDBError) -> Int {
        try statistics(of: database).entries
    }

    // MARK: Nesting

    /// Runs `body` with this transaction's own operations going to a nested write transaction:
    /// a throw undoes only what `body` did, a return folds its changes in. Unlike
    /// ``savepoint(_:)``, code holding this transaction goes on using it (its handle is the
    /// nested transaction's meanwhile), so layers built on it need no new objects to nest.
    package func inPlaceSavepoint<R>(_ body: () throws -> R) throws -> R {
        precondition(!isReadOnly, "savepoints need a write transaction")
        let parentHandle = usableHandle()
        var childHandle: OpaquePointer?
        try check(mdb_txn_begin(environment.handle, parentHandle, 0, &childHandle), "mdb_txn_begin")
        guard let childHandle else { throw LMDBError(code: 12, operation: "mdb_txn_begin") }
        handle = childHandle
        defer { handle = parentHandle }
        let value: R
        do {
            value = try body()
        } catch {
            mdb_txn_abort(childHandle)
            throw error
        }
        let code = mdb_txn_commit(childHandle)   // frees the nested transaction whatever the outcome
        if code != 0 { throw noteFailure(LMDBError(code: code, operation: "mdb_txn_commit", context: environment.path)) }
        return value
    }

    /// Runs `body` in a nested write transaction: a throw undoes only what `body` did, a return
    /// folds its changes into this transaction (`mdb_txn_begin` with a parent).
    public func savepoint<R>(_ body: (Transaction) throws -> R) throws -> R {
        precondition(!isReadOnly, "savepoints need a write transaction")
        let txn = usableHandle()
        var childHandle: OpaquePointer?
        try check(mdb_txn_begin(environment.handle, txn, 0, &childHandle), "mdb_txn_begin")
        guard let childHandle else { throw LMDBError(code: 12, operation: "mdb_txn_begin") }
        let child = Transaction(environment: environment, handle: childHandle, isReadOnly: false, parent: self)
        hasOpenSavepoint = true
        defer { hasOpenSavepoint = false }
        do {
            let value = try body(child)
            hasOpenSavepoint = false
            try child.commit(durability: .synchronous)
            return value
        } catch {
            child.abort()
            throw error
        }
    }
}
