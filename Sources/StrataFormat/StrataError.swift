/// An error thrown by Strata, with a code a program can switch over and a message a person can act on.
///
/// Every error names what went wrong and where: the entity, the field, the key or the byte position,
/// whichever apply. The underlying error, when there is one (an LMDB return code, a decoding error
/// thrown by a record's `init(from:)`), is kept as ``cause``.
///
/// ```swift
/// do {
///     try store.write { tx in try tx.insert(user) }
/// } catch let error as StrataError where error.code == .duplicateKey {
///     print(error.message)   // "User: a record with key 1 already exists"
/// }
/// ```
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Extensible: new codes may be added in later versions,
    /// so a `switch` over codes needs a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as `description` prints it (`duplicateKey`).
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// Stored bytes do not form a valid record (truncated, corrupted or not CBOR).
        public static let corruptRecord = Code("corruptRecord")
        /// A stored value has a different type than the record type's field declares.
        public static let typeMismatch = Code("typeMismatch")
        /// A stored record lacks a field that the record type requires (it was written before the
        /// field was added; make the field optional or give it a default, ``Record/defaults``).
        public static let missingField = Code("missingField")
        /// A query cannot be understood: a syntax error in a predicate or sort string, a missing
        /// argument, a value of the wrong type for its field.
        public static let invalidQuery = Code("invalidQuery")
        /// A name is not a field of the entity: in a condition, an ordering, an aggregate
        /// (`sum("agee")`), an index, a migration step or the tool's `--fields`. One check makes
        /// this error wherever a field is named, with the nearest field as a suggestion.
        public static let unknownField = Code("unknownField")
        /// A value cannot be stored (for example a key longer than LMDB's key limit).
        public static let invalidValue = Code("invalidValue")
        /// `insert` found a record with the same primary key.
        public static let duplicateKey = Code("duplicateKey")
        /// A write would give a unique index a second record with the same value.
        public static let uniqueViolation = Code("uniqueViolation")
        /// `update` or a required lookup found no record with that key.
        public static let notFound = Code("notFound")
        /// The store was written by a newer format version, or its catalog or data file is damaged
        /// (empty, not LMDB's, truncated, or a page that `Store.checkPages(at:)` finds damaged).
        public static let incompatibleStore = Code("incompatibleStore")
        /// The store path cannot be used: it is a file, or it cannot be created.
        public static let invalidPath = Code("invalidPath")
        /// The operating system refused access (read-only directory, permissions).
        public static let permissionDenied = Code("permissionDenied")
        /// Another writer held the store's write lock for longer than the configured timeout.
        public static let busy = Code("busy")
        /// A `Store` was opened on a path already open in this process with a setting the two
        /// cannot share (see ``Store/Configuration``); the message names the setting.
        public static let configurationConflict = Code("configurationConflict")
        /// The disk or the configured maximum map size is full.
        public static let storageFull = Code("storageFull")
        /// Any other failure reported by LMDB; ``StrataError/cause`` holds the `LMDBError`.
        public static let storage = Code("storage")
        /// Input to an import is not well-formed JSON (truncated, invalid UTF-8, a trailing comma,
        /// too deep, too long); ``StrataError/position`` says where.
        public static let malformedJSON = Code("malformedJSON")
        /// An imported record cannot be mapped to its entity: a value of the wrong type, a missing
        /// primary key, an explicit null for a required field. ``StrataError/record`` names it.
        public static let invalidRecord = Code("invalidRecord")
        /// A delete was refused by a relationship's ``DeleteRule/deny`` rule: records still refer
        /// to the record. ``StrataError/entity`` and ``StrataError/key`` name it.
        public static let deleteDenied = Code("deleteDenied")
        /// A query ran past its time limit (``QueryRequest/timeout(_:)``,
        /// ``Store/Configuration/queryTimeout``) and was stopped; a write it was part of rolls back
        /// when the error leaves the write's closure.
        public static let timeout = Code("timeout")
        /// A query was stopped because the task running it (or awaiting its async transaction) was cancelled.
        public static let cancelled = Code("cancelled")
        /// The change log no longer holds the commits after the position asked for (they were
        /// pruned by its retention): the reader needs a fresh copy of the store (a backup) and
        /// the log after it.
        public static let changesPruned = Code("changesPruned")
        /// A program wrote to a replica, which takes changes only from its primary's change log
        /// (``Store/applyChanges(_:durability:)``, `strata replicate`).
        public static let readOnlyReplica = Code("readOnlyReplica")
        /// A replica was given changes of a source it does not follow: another store (another
        /// identity), the same store's log after it restarted (another epoch), or a history that
        /// no longer holds the commits the replica applied (a primary restored from an older
        /// backup). The message names what differs; nothing was applied.
        public static let replicaSourceMismatch = Code("replicaSourceMismatch")
        /// A migration (``Migrator``) failed and was rolled back with every migration of its run;
        /// the message names the migration and, when one is to blame, the entity and record key.
        public static let migrationFailed = Code("migrationFailed")
        /// The store's migration history is not a prefix of the migrator's list: a newer program
        /// migrated it, or a migration was renamed or reordered. Also what a write through a record
        /// type throws when the store has run migrations its `Store` does not know (see
        /// ``Migrator``); the message names them. Nothing was changed.
        public static let migrationMismatch = Code("migrationMismatch")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence naming what failed and where.
    public var message: String
    /// The entity (record type) involved, when one is.
    public var entity: String?
    /// The field involved, when one is.
    public var field: String?
    /// The primary key involved, rendered as text, when one is.
    public var key: String?
    /// The error that caused this one, if any.
    public var cause: (any Error & Sendable)?
    /// Where in an imported input the problem is, when it comes from one.
    public var position: InputPosition?
    /// The number of the imported record involved, when one is, counted from 1 as the messages
    /// count it (`record 1: …` is the input's first record) and as generated keys number records.
    public var record: Int?

    /// An error of `code` with a message naming what failed and where, and what is known of it.
    public init(
        _ code: Code, _ message: String,
        entity: String? = nil, field: String? = nil, key: String? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.entity = entity
        self.field = field
        self.key = key
        self.cause = cause
    }

    public var description: String {
        var text = "StrataError.\(code): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}

/// A place in a text input: byte offset (0-based), line and column (1-based; the column counts
/// bytes from the start of the line).
public struct InputPosition: Sendable, Hashable, CustomStringConvertible {
    /// The byte offset, from 0.
    public var offset: Int
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, in bytes from the start of the line.
    public var column: Int

    /// A position.
    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String { "byte \(offset) (line \(line), column \(column))" }
}

