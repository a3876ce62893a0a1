import Logging

extension Store {
    /// How a store is opened. The defaults suit almost every program; nothing here needs sizing
    /// by hand (the map grows on its own).
    ///
    /// `Store` values opened on one path in one process share one LMDB environment (LMDB allows
    /// no second), yet each keeps its own `readOnly`, `writeLockTimeout`, `logger` and
    /// `indexBuildProgress`. `maxReaders` and `maxMapSize` cannot differ between them (opening
    /// with another value throws `.configurationConflict`); `initialMapSize` and
    /// `filePermissions` are those of the first opening (the map grows anyway, and the files
    /// exist already).
    public struct Configuration: Sendable {
        /// Bytes of address space mapped at first; grown whenever a write needs more (a write that
        /// fills the map is run again after growth, so a large default saves retries). Only address
        /// space: the file on disk grows with the data, not with the map.
        public var initialMapSize: Int = 1 << 30
        /// The store never grows past this size; a write that needs more fails with `.storageFull`.
        /// The same for every `Store` open on one path in this process.
        public var maxMapSize: Int = 1 << 40
        /// Concurrent read transactions, across all processes using the store. The same for every
        /// `Store` open on one path in this process.
        public var maxReaders: UInt32 = 126
        /// Seconds a write of this `Store` waits for another process's or thread's write before
        /// failing with `.busy`.
        ///
        /// It covers Strata's writers, which meet at the store's `writer.lock`. A program that
        /// writes the store's LMDB file directly (Python's `lmdb`, `mdb_load`) holds LMDB's own
        /// writer lock, which LMDB waits for without a timeout: a write then waits until that
        /// program ends its transaction, and after this many seconds the store logs a warning
        /// (`waiting for LMDB's writer lock on PATH: another program (not Strata) holds a write
        /// transaction`). `.infinity` waits without limit; a negative or NaN value makes opening
        /// the store throw `.invalidValue`.
        public var writeLockTimeout: Double = 30
        /// Open without write access; writes then fail with `.permissionDenied`, even while a
        /// writable `Store` on the same path is open in this process. Read-only and writable
        /// `Store` values on one path open side by side in either order, as the shared environment
        /// is opened writable whenever this process may write the store (creating nothing until
        /// the first write). A read-only `Store` also opens a store this process may only read:
        /// on read-only media or another user's (LMDB then runs without its lock file, and a read
        /// during which another process commits twice throws `.busy`: read again). A writable
        /// `Store` opened beside it on such a store is refused (`.permissionDenied` when the
        /// directory cannot be written). Nothing is created in the store's directory.
        public var readOnly = false
        /// Create the directory and the store when `path` holds none (the default). When false,
        /// opening a path without a store throws `.notFound` (`no store at PATH`) and leaves
        /// nothing behind: what tools that only read, inspect or copy a store want.
        public var createIfMissing = true
        /// The permissions of the store's directory and files when this opening creates them:
        /// readable and writable by the owner only unless set otherwise (`0o640` shares reading
        /// with the group). The directory gets the execute bits of the read bits.
        public var filePermissions: UInt16 = 0o600
        /// Where the store logs (opening, schema changes, map growth). Silent unless you pass a logger.
        public var logger = Logger(label: "strata", factory: { _ in SwiftLogNoOpLogHandler() })
        /// Called while new indexes are built from existing records (every 10,000 records and at
        /// the end), on the thread of the write that builds them.
        public var indexBuildProgress: (@Sendable (IndexBuildProgress) -> Void)?
        /// The time limit of every query that sets none (``QueryRequest/timeout(_:)``): a query
        /// still running after it throws `.timeout`. No limit by default.
        public var queryTimeout: Duration?
        /// Keep a change log with this retention (see ``Store/enableChangeLog(retention:)``): set
        /// at opening (unless read-only) when the store keeps none or keeps it otherwise. Nil (the default) leaves the
        /// store as it is: a log enabled earlier, by this or another program, goes on.
        public var changeLog: ChangeLogRetention?
        /// Open as a replica (``replica``): reads and observation only; every write of this `Store`
        /// throws `.readOnlyReplica`, while ``Store/applyChanges(_:durability:)`` and
        /// ``Store/replicate(from:pageSize:)`` apply the primary's log. (A store that has applied a
        /// log refuses programs' writes whatever the configuration.)
        public var isReplica = false
        /// Migrations to run at opening (``Store/migrate(with:dryRun:)``), unless read-only or a
        /// replica: a store whose history they do not extend is not opened (`.migrationMismatch`),
        /// and one whose migration fails is left as it was (`.migrationFailed`).
        ///
        /// They are also the migrations this `Store` knows. A store that has run migrations this
        /// list does not register (any, when nil; say, a newer program or `strata migrate` ran
        /// them) refuses this `Store`'s writes through record types with `.migrationMismatch`
        /// naming them, so that an old record type cannot change the schema behind them; reads,
        /// writes by entity name and JSON imports by a description go on (see ``Migrator``).
        public var migrator: Migrator?

        /// The defaults, as each property says.
        public init() {}

        /// The configuration of a replica: ``isReplica``, the rest default.
        public static var replica: Configuration {
            var configuration = Configuration()
            configuration.isReplica = true
            return configuration
        }
    }

    /// When a write's commit reaches the disk.
    public enum Durability: Sendable {
        /// The default: `write` returns after the commit is on disk (`fsync`). Nothing it wrote
        /// is lost to a process crash or a power failure.
        case synchronous
        /// The commit is not synced; ``Store/flush()`` syncs everything written so far. For long
        /// bulk loads made of many writes. A killed process loses nothing (the operating system
        /// holds the pages); a power failure or kernel crash may lose the deferred commits since the
        /// last flush. Use it only for data you can load again.
        case deferred
    }
}
