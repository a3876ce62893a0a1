import CLMDB

/// A position in a database, for ordered iteration and range scans (`MDB_cursor`).
///
/// Obtained only through ``Transaction/withCursor(_:_:)`` and valid only inside that closure.
/// Each move returns whether the cursor is now on an entry; ``key`` and ``value`` copy the current
/// entry, ``withCurrent(_:)`` lends it without copying. A `Cursor` only reads: the cursor that
/// also writes is a ``WritableCursor``, which only ``Transaction/withWritableCursor(_:_:)`` lends,
/// so code that is handed a `Cursor` cannot change the database through it.
///
/// ```swift
/// try txn.withCursor(db) { cursor in
///     var more = try cursor.seek(atLeast: lower)
///     while more {
///         print(cursor.key, cursor.value)
///         more = try cursor.next()
///     }
/// }
/// ```
public class Cursor {
    fileprivate var handle: OpaquePointer?
    fileprivate let transaction: Transaction
    fileprivate let database: Database
    // Exclusivity: a cursor is not Sendable, so one thread uses it, and every access to these three
    // is a short one inside this class's own methods: the C calls they are passed to never call
    // back, and no method holds an access while it runs a caller's closure (`withCurrent` and the
    // walks lend copies kept in locals). Accesses cannot overlap, so the runtime checks (two per
    // move, on every entry an index walk passes) are switched off.
    @exclusivity(unchecked) private var currentKey = MDB_val()
    @exclusivity(unchecked) private var currentValue = MDB_val()
    @exclusivity(unchecked) fileprivate var positioned = false

    init(handle: OpaquePointer, transaction: Transaction, database: Database) {
        self.handle = handle
        self.transaction = transaction
        self.database = database
    }

    final func close() {
        guard let cursor = handle else { return }
        handle = nil
        positioned = false
        mdb_cursor_close(cursor)
    }

    @inline(__always)
    fileprivate final func usableHandle() -> OpaquePointer {
        _ = transaction.usableHandle()
        guard let handle else { preconditionFailure("LMDB cursor used after its closure returned") }
        return handle
    }

    @inline(__always)
    private func move(_ operation: MDB_cursor_op) throws(LMDBError) -> Bool {
        let cursor = usableHandle()
        positioned = try checkFound(mdb_cursor_get(cursor, &currentKey, &currentValue, operation), "mdb_cursor_get",
                                    context: database.name ?? "<main>")
        if positioned { try transaction.checkEntry(currentKey, currentValue, in: database) }
        return positioned
    }

    @inline(__always)
    private func move(_ operation: MDB_cursor_op, key: [UInt8], value: [UInt8]? = nil) throws(LMDBError) -> Bool {
        let cursor = usableHandle()
        let found = try withMDBVal(key) { (keyVal: inout MDB_val) throws(LMDBError) -> Bool in
            var dataVal = MDB_val()
            let code: Int32
            if let value {
                code = withMDBVal(value) { (data: inout MDB_val) in mdb_cursor_get(cursor, &keyVal, &data, operation) }
                // On success LMDB points keyVal into the map but leaves data as given; fetch it properly.
                if code == 0 { return try checkFound(mdb_cursor_get(cursor, &currentKey, &currentValue, MDB_GET_CURRENT), "mdb_cursor_get") }
            } else {
                code = mdb_cursor_get(cursor, &keyVal, &dataVal, operation)
                if code == 0 { currentKey = keyVal; currentValue = dataVal }
            }
            return try checkFound(code, "mdb_cursor_get", context: database.name ?? "<main>")
        }
        positioned = found
        if found { try transaction.checkEntry(currentKey, currentValue, in: database) }
        return found
    }

    /// Moves to the first entry (`MDB_FIRST`).
    public final func first() throws(LMDBError) -> Bool { try move(MDB_FIRST) }
    /// Moves to the last entry (`MDB_LAST`).
    public final func last() throws(LMDBError) -> Bool { try move(MDB_LAST) }
    /// Moves to the next entry, duplicates included (`MDB_NEXT`).
    public final func next() throws(LMDBError) -> Bool { try move(MDB_NEXT) }
    /// Moves to the previous entry (`MDB_PREV`).
    public final func previous() throws(LMDBError) -> Bool { try move(MDB_PREV) }
    /// Moves to the first value of the next key, skipping duplicates (`MDB_NEXT_NODUP`).
    public final func nextKey() throws(LMDBError) -> Bool { try move(MDB_NEXT_NODUP) }
    /// Moves to the last value of the previous key (`MDB_PREV_NODUP`).
    public final func previousKey() throws(LMDBError) -> Bool { try move(MDB_PREV_NODUP) }
    /// Moves to the next value of the current key only (`MDB_NEXT_DUP`).
    public final func nextDuplicate() throws(LMDBError) -> Bool { try move(MDB_NEXT_DUP) }
    /// Moves to the first value of the current key (`MDB_FIRST_DUP`; sorted-duplicates databases only).
    public final func firstDuplicate() throws(LMDBError) -> Bool { try move(MDB_FIRST_DUP) }
    /// Moves to the last value of the current key (`MDB_LAST_DUP`).
    public final func lastDuplicate() throws(LMDBError) -> Bool { try move(MDB_LAST_DUP) }

    /// Moves to the first entry whose key is ≥ `key` (`MDB_SET_RANGE`).
    public final func seek(atLeast key: [UInt8]) throws(LMDBError) -> Bool { try move(MDB_SET_RANGE, key: key) }
    /// Moves to `key` exactly, its first value in a sorted-duplicates database (`MDB_SET_KEY`).
    public final func seek(exactly key: [UInt8]) throws(LMDBError) -> Bool { try move(MDB_SET_KEY, key: key) }
    /// In a sorted-duplicates database, moves to the first value ≥ `value` under exactly `key`
    /// (`MDB_GET_BOTH_RANGE`).
    public final func seek(key: [UInt8], valueAtLeast value: [UInt8]) throws(LMDBError) -> Bool {
        try move(MDB_GET_BOTH_RANGE, key: key, value: value)
    }

    /// The number of values under the current key (`mdb_cursor_count`).
    public final func duplicateCount() throws(LMDBError) -> Int {
        let cursor = usableHandle()
        var count = 0
        try check(mdb_cursor_count(cursor, &count), "mdb_cursor_count")
        return count
    }

    /// Calls `body` with the current key and its number of values, then with each following key,
    /// moving key by key (`MDB_NEXT_NODUP`; `mdb_cursor_count` in a sorted-duplicates database,
    /// 1 otherwise), until `body` returns false (the cursor stays on that key) or the keys run out.
    /// Keys are lent, not copied: a count of index entries in a key range reads no values.
    public final func forEachKey(_ body: (_ key: Span<UInt8>, _ values: Int) throws -> Bool) throws {
        let cursor = usableHandle()
        let duplicates = database.options.contains(.sortedDuplicates)
        // Locals, not the stored properties, inside the loop: no exclusivity check per key.
        var key = currentKey, value = currentValue
        var more = positioned
        defer { (currentKey, currentValue, positioned) = (key, value, more) }
        while more {
            var count = 1
            if duplicates { try check(mdb_cursor_count(cursor, &count), "mdb_cursor_count") }
            guard try key.withSpan({ span in try body(span, count) }) else { return }
            more = try checkFound(mdb_cursor_get(cursor, &key, &value, MDB_NEXT_NODUP), "mdb_cursor_get",
                                  context: database.name ?? "<main>")
            if more { try transaction.checkEntry(key, value, in: database) }
        }
    }

    /// What ``countEntries(upTo:throughPrefix:limit:)`` found.
    package struct EntryCount: Sendable, Equatable {
        /// Entries (values, duplicates included) under the keys counted.
        package var entries = 0
        /// True when the count stopped at its limit with keys within the bound left.
        package var reachedLimit = false
        /// The length of the longest key counted.
        package var longestKey = 0
    }

    /// Counts the entries from the current key on, key by key (`MDB_NEXT_NODUP`, with
    /// `mdb_cursor_count` in a sorted-duplicates database), until the first key past `upper`
    /// (see ``KeyOrder/isKey(_:within:throughPrefix:)``; nil: to the last key), or until a key is
    /// reached with `limit` entries already counted. Reads no value and copies no key: a count of
    /// an index range costs LMDB's own moves and one comparison per key. The cursor is left where
    /// the count stopped.
    package final func countEntries(upTo upper: [UInt8]?, throughPrefix: Bool, limit: Int = .max) throws(LMDBError) -> EntryCount {
        let cursor = usableHandle()
        let duplicates = database.options.contains(.sortedDuplicates)
        var key = currentKey, value = currentValue
        var more = positioned
        defer { (currentKey, currentValue, positioned) = (key, value, more) }
        var result = EntryCount()
        // SAFETY: LMDB's key bytes are read only while the cursor stays on the key.
        func isWithin(_ key: MDB_val) -> Bool {
            guard let upper else { return true }
            return upper.withUnsafeBytes { upper in
                KeyOrder.isKey(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size), within: upper, throughPrefix: throughPrefix)
            }
        }
        while more, isWithin(key) {
            guard result.entries < limit else {
                result.reachedLimit = true
                return result
            }
            var count = 1
            if duplicates { try check(mdb_cursor_count(cursor, &count), "mdb_cursor_count") }
            result.entries += count
            result.longestKey = max(result.longestKey, key.mv_size)
            more = try checkFound(mdb_cursor_get(cursor, &key, &value, MDB_NEXT_NODUP), "mdb_cursor_get",
                                  context: database.name ?? "<main>")
            if more { try transaction.checkEntry(key, value, in: database) }
        }
        return result
    }

    /// Calls `body` with the current entry, then with each following one (`MDB_NEXT`), until
    /// `body` returns false (the cursor stays there) or the entries run out. The key is lent; the
    /// value is copied into `buffer`, whose storage is reused from entry to entry as long as
    /// `body` keeps no copy of it, so a scan that looks at most values only once allocates nothing.
    /// `admits`, when given, sees each value first, lent, and an entry it returns false for is
    /// passed over: neither copied nor handed to `body`.
    public final func forEachEntry(buffer: inout [UInt8], admitting admits: ((_ value: Span<UInt8>) throws -> Bool)? = nil,
                                   _ body: (_ key: Span<UInt8>, _ value: [UInt8]) throws -> Bool) throws {
        let cursor = usableHandle()
        var key = currentKey, value = currentValue
        var more = positioned
        defer { (currentKey, currentValue, positioned) = (key, value, more) }
        // Unwrapped once: an optional closure is copied at each use.
        let admitsAll = admits == nil, admits = admits ?? { _ in true }
        while more {
            if try admitsAll || value.withSpan(admits) {
                value.withSpan { $0.replaceBytes(of: &buffer) }
                guard try key.withSpan({ span in try body(span, buffer) }) else { return }
            }
            more = try checkFound(mdb_cursor_get(cursor, &key, &value, MDB_NEXT), "mdb_cursor_get", context: database.name ?? "<main>")
            if more { try transaction.checkEntry(key, value, in: database) }
        }
    }

    /// A copy of the current key.
    public final var key: [UInt8] {
        _ = usableHandle()
        precondition(positioned, "cursor read while not on an entry")
        return currentKey.bytes
    }

    /// A copy of the current value.
    public final var value: [UInt8] {
        _ = usableHandle()
        precondition(positioned, "cursor read while not on an entry")
        return currentValue.bytes
    }

    /// Lends the current key and value without copying; the spans cannot escape `body`.
    public final func withCurrent<R>(_ body: (_ key: Span<UInt8>, _ value: Span<UInt8>) throws -> R) rethrows -> R {
        _ = usableHandle()
        precondition(positioned, "cursor read while not on an entry")
        // Copies: no access to the properties stays open while `body` runs (it may move the cursor).
        let key = currentKey, value = currentValue
        return try key.withSpan { key in try value.withSpan { value in try body(key, value) } }
    }

    /// Copies the current entry and those after it (`MDB_NEXT`) into packed buffers, for gathering
    /// many entries in one call: each key's bytes are appended to `keys` and its end offset to
    /// `keyEnds`, each value's likewise to `values` and `valueEnds`. Stops after `limit` entries,
    /// or at the first key past `upper` (above it, or equal to it unless `inclusive`), which is
    /// not copied. Returns true when it stopped at the limit with the cursor on an entry not yet
    /// copied; false when the entries or the range ran out.
    ///
    /// One call per batch, with the cursor state in locals: no closure call, no exclusivity check
    /// and no transaction check per entry.
    package final func copyEntries(
        limit: Int, upTo upper: [UInt8]?, inclusive: Bool,
        keys: inout [UInt8], keyEnds: inout [Int], values: inout [UInt8], valueEnds: inout [Int]
    ) throws(LMDBError) -> Bool {
        let cursor = usableHandle()
        var key = currentKey, value = currentValue
        var more = positioned
        defer { (currentKey, currentValue, positioned) = (key, value, more) }
        var copied = 0
        while more {
            if let upper, !Self.key(key, isWithin: upper, inclusive: inclusive) { return false }
            guard copied < limit else { return true }
            // SAFETY: LMDB's key and value stay valid until the cursor moves; both are copied first.
            // (Typed buffers: `append(contentsOf:)` copies them with one memcpy, a raw buffer byte by byte.)
            keys.append(contentsOf: key.bufferPointer)
            keyEnds.append(keys.count)
            values.append(contentsOf: value.bufferPointer)
            valueEnds.append(values.count)
            copied += 1
            more = try checkFound(mdb_cursor_get(cursor, &key, &value, MDB_NEXT), "mdb_cursor_get", context: database.name ?? "<main>")
            if more { try transaction.checkEntry(key, value, in: database) }
        }
        return false
    }

    /// Whether `key` sorts before `upper`, or equals it when `inclusive`, in LMDB's default
    /// (bytewise, shorter first) key order (``KeyOrder``, as counts and index walks decide).
    @inline(__always)
    private static func key(_ key: MDB_val, isWithin upper: [UInt8], inclusive: Bool) -> Bool {
        // SAFETY: the bytes are read during this call only, while the cursor stays put.
        let bytes = UnsafeRawBufferPointer(start: key.mv_size > 0 ? key.mv_data : nil, count: key.mv_size)
        return upper.withUnsafeBytes { upper in
            let common = KeyOrder.compareCommon(bytes, upper)
            if common != 0 { return common < 0 }
            return bytes.count < upper.count || (inclusive && bytes.count == upper.count)
        }
    }
}

/// A cursor that also writes: ``put(_:forKey:options:)-([UInt8],_,_)`` and ``deleteCurrent()`` beside every
/// move and read of ``Cursor``.
///
/// Lent only by ``Transaction/withWritableCursor(_:_:)`` in a write transaction and valid only inside
/// that closure. Strata's storage layer is the only code that holds LMDB transactions, so it is the only
/// code that can write through a cursor; the layers above it are handed plain ``Cursor``s.
///
/// ```swift
/// try txn.withWritableCursor(db) { cursor in
///     while try cursor.first() { try cursor.deleteCurrent() }
/// }
/// ```
public final class WritableCursor: Cursor {
    /// Stores `value` under `key` through this cursor (`mdb_cursor_put`), which is left on the
    /// new entry. Consecutive puts of nearby keys skip the search from the root when the key
    /// falls on the cursor's page. Throws as ``Transaction/put(_:forKey:in:options:)``; an error
    /// whose ``LMDBError/isKeyExists`` is true (an entry in the way of `noOverwrite`, or a
    /// value out of order for `appendDuplicate`) leaves the transaction usable.
    public func put(_ value: [UInt8], forKey key: [UInt8], options: PutOptions = []) throws(LMDBError) {
        let result: Result<Void, LMDBError> = key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                do throws(LMDBError) { return .success(try put(value, forKey: key, options: options)) } catch { return .failure(error) }
            }
        }
        try result.get()
    }

    /// As ``put(_:forKey:options:)-([UInt8],_,_)``, from borrowed bytes (LMDB copies them).
    public func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, options: PutOptions = []) throws(LMDBError) {
        let cursor = usableHandle()
        precondition(!transaction.isReadOnly, "put in a read-only transaction")
        positioned = false
        var keyVal = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var dataVal = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        do {
            try check(mdb_cursor_put(cursor, &keyVal, &dataVal, options.rawValue), "mdb_cursor_put", context: database.name ?? "<main>")
        } catch {
            throw transaction.noteFailure(error)
        }
    }

    /// Deletes the current entry (`mdb_cursor_del`); a following ``Cursor/next()`` moves to the entry that
    /// came after the deleted one.
    public func deleteCurrent() throws(LMDBError) {
        let cursor = usableHandle()
        precondition(!transaction.isReadOnly, "delete in a read-only transaction")
        do { try check(mdb_cursor_del(cursor, 0), "mdb_cursor_del") } catch { throw transaction.noteFailure(error) }
        positioned = false
    }
}

extension Transaction {
    /// Runs `body` with a reading cursor on `database`, closed when `body` returns (`mdb_cursor_open`).
    public func withCursor<R>(_ database: Database, _ body: (Cursor) throws -> R) throws -> R {
        let cursor = Cursor(handle: try openCursor(database), transaction: self, database: database)
        defer { cursor.close() }
        return try body(cursor)
    }

    /// Runs `body` with a cursor on `database` that may also write, closed when `body` returns; only in
    /// a write transaction.
    public func withWritableCursor<R>(_ database: Database, _ body: (WritableCursor) throws -> R) throws -> R {
        precondition(!isReadOnly, "a writable cursor in a read-only transaction")
        let cursor = WritableCursor(handle: try openCursor(database), transaction: self, database: database)
        defer { cursor.close() }
        return try body(cursor)
    }

    private func openCursor(_ database: Database) throws(LMDBError) -> OpaquePointer {
        let txn = usableHandle()
        var handle: OpaquePointer?
        try check(mdb_cursor_open(txn, database.dbi, &handle), "mdb_cursor_open", context: database.name ?? "<main>")
        guard let handle else { throw LMDBError(code: 12, operation: "mdb_cursor_open") }
        return handle
    }
}
