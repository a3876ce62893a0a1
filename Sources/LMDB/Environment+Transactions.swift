import CLMDB

extension Environment {
    /// Runs `body` in a read-only transaction that sees the snapshot of its start (`MDB_RDONLY`).
    ///
    /// Any number of reads may run at once, on any threads, beside one writer. The transaction is
    /// valid only inside `body`, and only on the calling thread; using it afterwards stops the program.
    ///
    /// The transaction's LMDB handle is reused: a read that ends keeps it reset for a later read
    /// to renew, on any thread (`mdb_txn_reset`, `mdb_txn_renew`), instead of ending it, when the
    /// read opened no database and fewer than a few are kept (see ``Options/maxReaders``). A read
    /// nested in another gets a handle of its own. A child process made by `fork()` reuses none
    /// of its parent's.
    ///
    /// In a ``isLockless`` environment the read registers nowhere, so a writer of another process
    /// may reuse its pages once it has committed twice since the read began: the read then throws
    /// an error whose ``LMDBError/isSnapshotLost`` is true (whatever `body` returned or threw),
    /// never a result read from reused pages.
    public func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        let txn = try begin(readOnly: true)
        defer {
            txn.finishRead(keepingIn: readHandles)
            mapLock.unlockShared()
        }
        guard isLockless else { return try body(txn) }
        let snapshot = txn.id
        let result = Result { try body(txn) }
        try checkSnapshotKept(snapshot)
        return try result.get()
    }

    /// Runs `body` in the write transaction; a return commits, a throw aborts everything it did.
    ///
    /// Writers are serialized: this waits for another writer (in this process or another) at most
    /// `timeout` seconds (``Options/writeLockTimeout`` when nil), then throws an error whose
    /// ``LMDBError/isBusy`` is true. Each caller sharing the environment may wait its own time.
    /// When the map fills, the transaction is aborted, the map grown, and `body` runs again: it must
    /// not have effects outside the transaction that cannot be repeated.
    ///
    /// A second `write` on the same thread while one is open is a programmer error (it would
    /// deadlock) and stops the program; use ``Transaction/savepoint(_:)`` to nest.
    ///
    /// A program that writes the file with LMDB directly (not through this gate) holds LMDB's own
    /// writer lock, which LMDB waits for without a timeout: the write then waits as long as that
    /// program's transaction lasts, and `onForeignWriter`, when given, is called once with a
    /// message saying so after `timeout` seconds of that wait, on another thread.
    public func write<R>(durability: Durability = .synchronous, timeout: Double? = nil,
                         onForeignWriter: (@Sendable (String) -> Void)? = nil,
                         _ body: (Transaction) throws -> R) throws -> R {
        guard isWritable else {
            throw LMDBError(code: 13, operation: "write", context: "\(path) is opened read-only")
        }
        let gate = try gate()
        let timeout = timeout ?? options.writeLockTimeout
        // A map known to be nearly full grows before the writer gate is taken, so that its wait for
        // this process's open transactions does not hold up other processes' writers; not while a
        // writer of this process holds the gate (the grow would wait for its whole transaction).
        if !gate.isHeld { try growIfNearlyFull(timeout: timeout) }
        try gate.acquire(timeout: timeout, path: path)
        defer { gate.release() }
        // A reader slot of a process killed inside a read transaction pins that snapshot, so its
        // pages are never reused and the file grows: clear such slots before each write (a scan
        // of the reader table, with a lock probe only for other processes' slots).
        var dead: Int32 = 0
        mdb_reader_check(handle, &dead)
        var retries = 0
        while true {
            try growIfNearlyFull(timeout: timeout)
            let txn = try beginWrite(timeout: timeout, onForeignWriter: onForeignWriter)
            let outcome: Result<R, any Error>
            do {
                let value = try body(txn)
                try txn.commit(durability: durability)
                outcome = .success(value)
            } catch {
                txn.abort()
                outcome = .failure(error)
            }
            mapLock.unlockShared()
            if case .failure = outcome, txn.sawMapFull {
                // Each retry repeats the whole closure, so grow faster every time the same write
                // fills the map again: ×2, then ×4, then ×8.
                retries += 1
                try grow(atLeast: currentMapSize << min(retries, 3), timeout: timeout)
                continue
            }
            return try outcome.get()
        }
    }

    /// Begins a transaction holding the map lock shared (the caller unlocks it when the transaction
    /// ends), adopting a map size another process set (`MDB_MAP_RESIZED`) on the way.
    ///
    /// A read renews a handle ``readHandles`` kept when there is one (`mdb_txn_renew`, under the
    /// map lock like a begin, so against the map as it is now), and begins one otherwise. A
    /// handle that fails to renew is aborted: after `MDB_MAP_RESIZED` the map size is adopted
    /// and the loop starts again; after another error a new transaction is begun instead.
    private func begin(readOnly: Bool) throws(LMDBError) -> Transaction {
        while true {
            mapLock.lockShared()
            var txnHandle: OpaquePointer?
            var code: Int32 = 0
            if readOnly, let kept = readHandles.take() {
                code = mdb_txn_renew(kept)
                if code == 0 { txnHandle = kept } else { mdb_txn_abort(kept) }
            }
            if txnHandle == nil, code != MDB_MAP_RESIZED {
                code = mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txnHandle)
            }
            if code == MDB_MAP_RESIZED {
                mapLock.unlockShared()
                try adoptForeignMapSize()
                continue
            }
            guard code == 0, let txnHandle else {
                mapLock.unlockShared()
                throw LMDBError(code: code, operation: "mdb_txn_begin", context: path)
            }
            return Transaction(environment: self, handle: txnHandle, isReadOnly: readOnly)
        }
    }

    /// Begins the write transaction, having ``WriterWatch`` call `onForeignWriter` if LMDB's
    /// writer lock (held by a program outside the gate) keeps it waiting `timeout` seconds.
    private func beginWrite(timeout: Double, onForeignWriter: (@Sendable (String) -> Void)?) throws(LMDBError) -> Transaction {
        guard let onForeignWriter else { return try begin(readOnly: false) }
        let ticket = WriterWatch.shared.arm(after: timeout) { [path] in
            onForeignWriter("waiting for LMDB's writer lock on \(path): another program (not Strata) holds a write transaction")
        }
        defer { WriterWatch.shared.disarm(ticket) }
        return try begin(readOnly: false)
    }

    /// Grows the map before a write when less than an eighth of it is free, so that most writes
    /// never pay for an abort and retry. Not from a thread with a transaction open (the grow would
    /// wait for it): the write then fills the map and fails as ``grow(atLeast:)`` describes.
    private func growIfNearlyFull(timeout: Double) throws(LMDBError) {
        let size = currentMapSize
        if usedBytes > size - size / 8, size < options.maxMapSize, MapLock.sharedHolds.value == 0 {
            try grow(atLeast: size * 2, timeout: timeout)
        }
    }
}
