import CLMDB

extension Transaction {
    /// A copy of the value stored under `key`, or nil when absent (`mdb_get`).
    /// In a sorted-duplicates database, the first value of the key.
    public func value(forKey key: [UInt8], in database: Database) throws(LMDBError) -> [UInt8]? {
        try lookUp(key, in: database)?.bytes
    }

    /// Passes the value stored under `key` to `body` without copying it, or returns nil when absent.
    ///
    /// The span points into the memory map; the compiler keeps it from escaping `body`.
    public func withValue<R>(forKey key: [UInt8], in database: Database, _ body: (Span<UInt8>) throws -> R) throws -> R? {
        guard let found = try lookUp(key, in: database) else { return nil }
        return try found.withSpan(body)
    }

    /// Replaces the contents of `buffer` with a copy of the value stored under `key` and returns
    /// true, or returns false (leaving `buffer` alone) when absent: a point read that allocates
    /// nothing once `buffer` has the capacity, with the key in any memory (a caller's stack).
    public func copyValue(forKey key: UnsafeRawBufferPointer, in database: Database, into buffer: inout [UInt8]) throws(LMDBError) -> Bool {
        let txn = usableHandle()
        var keyVal = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var found = MDB_val()
        guard try checkFound(mdb_get(txn, database.dbi, &keyVal, &found), "mdb_get", context: database.name ?? "<main>") else {
            return false
        }
        try bounds.check(found, "value", database: database.name)
        // SAFETY: LMDB's value is valid until the transaction changes or ends, and is copied here.
        buffer.replaceSubrange(buffer.startIndex..<buffer.endIndex, with: found.bufferPointer)
        return true
    }

    /// True when `key` is present (`mdb_get`).
    public func contains(_ key: [UInt8], in database: Database) throws(LMDBError) -> Bool {
        try lookUp(key, in: database) != nil
    }

    /// The raw `mdb_get` result; valid while this transaction is open and unchanged.
    private func lookUp(_ key: [UInt8], in database: Database) throws(LMDBError) -> MDB_val? {
        let txn = usableHandle()
        var found = MDB_val()
        let present = try withMDBVal(key) { (keyVal: inout MDB_val) throws(LMDBError) -> Bool in
            try checkFound(mdb_get(txn, database.dbi, &keyVal, &found), "mdb_get", context: database.name ?? "<main>")
        }
        guard present else { return nil }
        try bounds.check(found, "value", database: database.name)
        return found
    }

    /// Stores `value` under `key` (`mdb_put`).
    ///
    /// Throws an error whose ``LMDBError/isKeyExists`` is true when `options` contains `noOverwrite`
    /// (or `noDuplicateData`) and the entry exists, and ``LMDBError/isBadValueSize`` for an empty
    /// key or one longer than ``Environment/maxKeySize``.
    public func put(_ value: [UInt8], forKey key: [UInt8], in database: Database, options: PutOptions = []) throws(LMDBError) {
        let txn = usableHandle()
        precondition(!isReadOnly, "put in a read-only transaction")
        do {
            try withMDBVal(key) { (keyVal: inout MDB_val) throws(LMDBError) in
                try withMDBVal(value) { (dataVal: inout MDB_val) throws(LMDBError) in
                    try check(mdb_put(txn, database.dbi, &keyVal, &dataVal, options.rawValue), "mdb_put",
                              context: database.name ?? "<main>")
                }
            }
        } catch {
            throw noteFailure(error)
        }
    }

    /// Stores `value` under `key` unless the key is present, in one B-tree search
    /// (`mdb_put` with `MDB_NOOVERWRITE`, which hands back the existing value).
    ///
    /// Returns nil when the value was stored, or a copy of the value already stored under `key`.
    public func putIfAbsent(_ value: [UInt8], forKey key: [UInt8], in database: Database) throws(LMDBError) -> [UInt8]? {
        let txn = usableHandle()
        precondition(!isReadOnly, "put in a read-only transaction")
        do {
            return try withMDBVal(key) { (keyVal: inout MDB_val) throws(LMDBError) -> [UInt8]? in
                try withMDBVal(value) { (dataVal: inout MDB_val) throws(LMDBError) -> [UInt8]? in
                    let code = mdb_put(txn, database.dbi, &keyVal, &dataVal, UInt32(MDB_NOOVERWRITE))
                    if code == MDB_KEYEXIST { return dataVal.bytes }   // LMDB pointed dataVal at the stored value
                    try check(code, "mdb_put", context: database.name ?? "<main>")
                    return nil
                }
            }
        } catch {
            throw noteFailure(error)
        }
    }

    /// Deletes `key` and all its values; returns false when it was absent (`mdb_del`).
    @discardableResult
    public func delete(_ key: [UInt8], in database: Database) throws(LMDBError) -> Bool {
        let txn = usableHandle()
        precondition(!isReadOnly, "delete in a read-only transaction")
        do {
            return try withMDBVal(key) { (keyVal: inout MDB_val) throws(LMDBError) -> Bool in
                try checkFound(mdb_del(txn, database.dbi, &keyVal, nil), "mdb_del", context: database.name ?? "<main>")
            }
        } catch {
            throw noteFailure(error)
        }
    }

    /// Deletes one key/value pair of a sorted-duplicates database; false when it was absent.
    @discardableResult
    public func delete(_ key: [UInt8], value: [UInt8], in database: Database) throws(LMDBError) -> Bool {
        let txn = usableHandle()
        precondition(!isReadOnly, "delete in a read-only transaction")
        do {
            return try withMDBVal(key) { (keyVal: inout MDB_val) throws(LMDBError) -> Bool in
                try withMDBVal(value) { (dataVal: inout MDB_val) throws(LMDBError) -> Bool in
                    try checkFound(mdb_del(txn, database.dbi, &keyVal, &dataVal), "mdb_del",
                                   context: database.name ?? "<main>")
                }
            }
        } catch {
            throw noteFailure(error)
        }
    }
}

extension Span where Element == UInt8 {
    /// A copy of the bytes as an array.
    package var copiedBytes: [UInt8] {
        // SAFETY: the buffer pointer lives only for this call; the array owns its copy.
        withUnsafeBufferPointer { Array($0) }
    }

    /// Appends a copy of the bytes to `array`: a copy without an allocation of its own when `array`
    /// has the capacity, for readers that reuse one buffer for many values.
    @inline(__always)
    package func appendBytes(to array: inout [UInt8]) {
        // SAFETY: the buffer pointer lives only for this call; the array owns its copy.
        withUnsafeBufferPointer { array.append(contentsOf: $0) }
    }

    /// Replaces the contents of `array` with a copy of the bytes, for readers that reuse one
    /// buffer for many entries: overwritten in place when `array` already holds as many bytes (the
    /// entries of one index, whose keys have one width), so no emptying pass and no growth check.
    /// An `array` another holder shares gets storage of its own first (copy-on-write).
    @inline(__always)
    package func replaceBytes(of array: inout [UInt8]) {
        // SAFETY: both buffer pointers live only for this call, and the counts are equal where
        // one is copied into the other; the array owns its copy.
        withUnsafeBufferPointer { source in
            guard array.count == source.count else {
                return array.replaceSubrange(array.startIndex..<array.endIndex, with: source)
            }
            guard let from = source.baseAddress else { return }
            array.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: from, count: source.count) }
        }
    }
}
