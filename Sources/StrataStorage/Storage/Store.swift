import Dispatch
import Foundation
import LMDB
import Logging

/// A record store in one directory: Codable records in LMDB, read and written in transactions.
///
/// ```swift
/// let store = try Store(path: "app.strata")            // creates the directory when missing
/// try store.write { tx in
///     try tx.insert(User(id: 1, firstName: "Jimmy", lastName: "James", luckyNumber: 3, createdDate: .now))
/// }
/// let jimmy = try store.read { tx in try tx.get(User.self, key: 1) }
/// ```
///
/// Reads run on any thread, many at once, each on the snapshot of its start; writes are serialized
/// (one writer at a time across threads and processes) and atomic: a throw inside `write` undoes
/// everything the closure did. Any number of `Store` values may be opened on one path in one
/// process: they share one LMDB environment, and each keeps its own configuration where
/// ``Configuration`` says it may (`readOnly`, `writeLockTimeout`, `logger`).
///
/// ## LMDB notes
/// A `write` closure may run more than once: when the map fills, the transaction is aborted, the
/// map grown and the closure run again. Keep effects outside the transaction out of it.
public final class Store: Sendable {
    /// The store's directory.
    public let path: String
    /// The configuration the store was opened with.
    public let configuration: Configuration
    let environment: Environment
    package let catalog: Database
    /// What transactions learned about entities, for later ones. Nothing waits on it: it is taken
    /// with `withLockWakingNone` only (a plain lock, no wake-up per look).
    package let published: ConditionLock<PublishedState>
    /// The thread the async `write` runs writes on.
    package let writerQueue: DispatchQueue
    /// The worker threads that decode beside reading threads, shared by every `Store` of this
    /// environment and ended when the last of them is released (see ``DecodeExecutor``).
    package let decodeExecutor: DecodeExecutor
    /// What the layers above keep for this store: the observation center (told of commits,
    /// see ``observe(_:_:)``) and the plan cache (``QueryPlanner``).
    package let attachments = StoreAttachments()
    /// The migrations this `Store` knows (its configuration's migrator's, or those of the last
    /// ``migrate(with:dryRun:)``): writes through record types check the store's history against
    /// them (``WriteTransaction/checkKnownHistory(writing:)``).
    package let knownMigrations: ConditionLock<KnownMigrations>

    /// Opens the store in the directory `path`, creating the directory and the store when missing
    /// (unless ``Configuration/createIfMissing`` is false or the store is opened read-only).
    ///
    /// Throws `.notFound` when there is no store to open and none may be created, `.invalidPath`
    /// when `path` is a file or one of the store's files is a symbolic link
    /// (or not a regular file), `.permissionDenied` when the directory cannot be written or it or
    /// a store file belongs to another user or is writable by others, `.incompatibleStore` when
    /// it holds a store of a newer format or a damaged file, `.configurationConflict` when a
    /// `Store` open on the same path in this process has a setting this one cannot share.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        guard configuration.writeLockTimeout >= 0 else {
            throw StrataError(.invalidValue, "the write lock timeout must be 0 seconds or more, or infinity (it is \(configuration.writeLockTimeout))")
        }
        try Store.prepareDirectory(path, readOnly: configuration.readOnly, create: configuration.createIfMissing,
                                   permissions: configuration.filePermissions)
        var options = Environment.Options()
        options.mapSize = configuration.initialMapSize
        options.maxMapSize = configuration.maxMapSize
        options.maxReaders = configuration.maxReaders
        options.readOnly = configuration.readOnly
        options.writeLockTimeout = configuration.writeLockTimeout
        options.fileMode = configuration.filePermissions
        do {
            environment = try Environment.shared(path: path, options: options)
        } catch {
            throw StrataError(error, path: path)
        }
        let environment = self.environment
        let opened: (Database, [String: EntitySchema])
        do {
            // Reading the catalog needs no write lock, so opening an initialized store never
            // waits for another process's writer; only a new store is initialized in a write.
            let initialized = try environment.read { txn in try Catalog.isInitialized(in: txn) }
            if configuration.readOnly || initialized {
                opened = try environment.read { txn in try Catalog.open(in: txn, path: path) }
            } else {
                opened = try environment.write(timeout: configuration.writeLockTimeout, onForeignWriter: Store.foreignWriterWarning(configuration, path: path)) { txn in
                    try Catalog.open(in: txn, path: path)
                }
            }
            // A store made by an earlier version gets its identity (and its log's epoch) at its
            // first opening with write access; the read finds it there every time after.
            if !configuration.readOnly, try environment.read({ txn in try StoreIdentity.isIncomplete(in: txn, catalog: opened.0) }) {
                try environment.write(timeout: configuration.writeLockTimeout, onForeignWriter: Store.foreignWriterWarning(configuration, path: path)) { txn in
                    try StoreIdentity.ensure(in: txn, catalog: opened.0)
                }
            }
        } catch let error as LMDBError {
            throw StrataError(error, path: path)
        }
        catalog = opened.0
        published = ConditionLock(PublishedState())
        knownMigrations = ConditionLock(KnownMigrations(names: configuration.migrator?.names ?? []))
        decodeExecutor = DecodeExecutor.shared(by: environment)
        writerQueue = DispatchQueue(label: "strata.writer")
        // A writer killed inside its commit left it on disk but unseen by reads: publish it.
        environment.publishCommitOfDeadWriter()
        configuration.logger.debug("opened store", metadata: [
            "path": "\(path)", "entities": "\(opened.1.keys.sorted().joined(separator: ","))",
            "mapSize": "\(environment.currentMapSize)",
        ])
        if let retention = configuration.changeLog, !configuration.readOnly, !configuration.isReplica,
           try read({ try $0.changeLogRetention() }) != retention {
            try enableChangeLog(retention: retention)
        }
        if let migrator = configuration.migrator, !configuration.readOnly, !configuration.isReplica {
            try migrate(with: migrator)
        }
    }

    /// Creates `path` as a directory when missing and `create` allows; refuses a file.
    private static func prepareDirectory(_ path: String, readOnly: Bool, create: Bool, permissions: UInt16) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StrataError(.invalidPath, "\(path) is a file, not a store directory")
            }
            // An entry of any kind (a link too, which opening then refuses by name) is a store:
            // `lstat`, as `attributesOfItem` would, without its owner and group look-ups.
            var status = stat()
            guard (create && !readOnly) || lstat(path + "/data.mdb", &status) == 0 else {
                // A directory this user may not search hides its store: say so, not "no store".
                guard files.isExecutableFile(atPath: path) else {
                    throw StrataError(.permissionDenied, "the store directory \(path) cannot be read by this user (its permissions "
                        + "or owner do not allow it), so whether it holds a store is unknown")
                }
                throw StrataError(.notFound, "no store at \(path)")
            }
            guard readOnly || files.isWritableFile(atPath: path) else {
                throw StrataError(.permissionDenied, "the store directory \(path) is not writable by this user (or is on read-only media), so it cannot be opened for writing; open it read-only (Configuration.readOnly) to read it")
            }
            return
        }
        guard !readOnly, create else { throw StrataError(.notFound, "no store at \(path)") }
        do {
            // The read bits give the search bits: 0o600 → 0o700, 0o640 → 0o750.
            let searchable = permissions | ((permissions & 0o444) >> 2)
            try files.createDirectory(atPath: path, withIntermediateDirectories: true,
                                      attributes: [.posixPermissions: Int(searchable)])
        } catch {
            let code: StrataError.Code = (error as NSError).code == NSFileWriteNoPermissionError ? .permissionDenied : .invalidPath
            throw StrataError(code, "cannot create the store directory \(path): \(error.localizedDescription)", cause: error as NSError)
        }
    }

    /// Runs `body` in a read transaction and returns its result.
    ///
    /// The transaction sees the store as of its start, whatever writers commit meanwhile. It is
    /// valid only inside `body` and on the calling thread.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        var transaction: ReadTransaction?
        defer { transaction.map(publish) }
        return try translatingLMDBErrors(path: path) {
            try environment.read { txn in
                let tx = ReadTransaction(store: self, raw: txn)
                transaction = tx
                defer { tx.invalidate() }
                return try body(tx)
            }
        }
    }

    /// Runs `body` in the write transaction: a return commits, a throw rolls everything back.
    ///
    /// With the default ``Durability/synchronous`` durability the commit is on disk when `write`
    /// returns. Waits for another writer at most ``Configuration/writeLockTimeout`` seconds, then
    /// throws `.busy`. Nesting a `write` in a `write` on one thread is a programmer error; use
    /// ``WriteTransaction/savepoint(_:)``.
    @discardableResult
    public func write<R>(durability: Durability = .synchronous, _ body: (WriteTransaction) throws -> R) throws -> R {
        try write(durability: durability, replicating: false, body)
    }

    /// ``write(durability:_:)``; `replicating` is the replica applier's, the one writer a replica takes.
    package func write<R>(durability: Durability, replicating: Bool, _ body: (WriteTransaction) throws -> R) throws -> R {
        try refuseWritesIfReadOnly()
        if configuration.isReplica, !replicating {
            throw StrataError(.readOnlyReplica,
                "the store at \(path) was opened as a replica (Configuration.replica): it takes changes only from its primary's change log")
        }
        var committed: WriteTransaction?
        var transactionID = 0
        let mapSizeBefore = environment.currentMapSize
        let result = try translatingLMDBErrors(path: path) {
            try environment.write(durability: durability == .synchronous ? .synchronous : .deferred,
                                  timeout: configuration.writeLockTimeout,
                                  onForeignWriter: Store.foreignWriterWarning(configuration, path: path)) { txn in
                let tx = WriteTransaction(store: self, raw: txn)
                tx.changes.isTracking = attachments.commitListener?.isObserved ?? false
                defer { tx.invalidate() }
                try tx.prepareWrite(replicating: replicating)
                let value = try body(tx)
                try tx.flushTextBatches()
                try tx.refreshIndexStatistics()
                try tx.saveCatalogChanges()
                _ = try tx.finishChangeLog()
                committed = tx
                transactionID = txn.id
                return value
            }
        }
        if let committed {
            publish(committed)
            // Untracked changes (nothing observed when the write began) are news of unknown extent.
            attachments.commitListener?.didCommit(committed.changes.missed ? .external : committed.changes, transactionID: transactionID)
        }
        let mapSizeAfter = environment.currentMapSize
        if mapSizeAfter != mapSizeBefore {
            configuration.logger.notice("grew the map", metadata: ["path": "\(path)", "bytes": "\(mapSizeAfter)"])
        }
        return result
    }

    /// Brings the stored form of `type` up to date now: builds newly declared indexes from the
    /// stored records (reporting to ``Configuration/indexBuildProgress``), empties removed ones,
    /// rebuilds changed ones. Without this call it happens at the type's first write.
    ///
    /// ```swift
    /// let store = try Store(path: "app.strata")
    /// try store.prepare(User.self)
    /// ```
    public func prepare<T: Record>(_ type: T.Type) throws {
        try write { tx in _ = try tx.writableContext(for: type) }
    }

    /// Syncs commits made with ``Durability/deferred`` to disk.
    public func flush() throws {
        try translatingLMDBErrors(path: path) { try environment.sync() }
    }

    /// Bytes of address space currently mapped (grows on its own).
    public var mapSize: Int { environment.currentMapSize }
}
