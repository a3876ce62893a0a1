import CLMDB

extension Environment {
    /// Throws when another process may have reused pages of the snapshot `snapshot` that a read of
    /// this ``isLockless`` environment used.
    ///
    /// LMDB's writer reuses a page freed by transaction `T` only once no reader it knows of is older
    /// than `T`; a lockless reader is known to none, so a page of snapshot `S` (freed at `S + 1`
    /// at the earliest) may be overwritten by transaction `S + 3`, whose pages reach the file before
    /// its meta page does, while the newest committed transaction still reads `S + 2`. A read that
    /// ends with the newest transaction at most `S + 1` read only its own snapshot's pages.
    func checkSnapshotKept(_ snapshot: Int) throws(LMDBError) {
        let newest = lastTransactionID
        guard newest > snapshot + 1 else { return }
        throw LMDBError(code: LMDBError.busyCode, operation: Environment.snapshotOperation,
                        context: "\(path) is open without its lock file (read-only media, or a store this process may not write), "
                            + "and another process committed \(newest - snapshot) transactions while this read of transaction \(snapshot) ran, "
                            + "so the pages it read may have been reused; read again, or open the store where its lock file can be written")
    }

    /// The operation named by ``checkSnapshotKept(_:)``'s error.
    static let snapshotOperation = "keep a lockless read's snapshot"
}

extension LMDBError {
    /// A read of a lockless environment (``Environment/isLockless``) ran while another process
    /// committed twice or more, so it may have read reused pages; ``context`` says so. Its code
    /// is the busy code (``isBusy`` is true too): reading again is the remedy.
    public var isSnapshotLost: Bool { operation == Environment.snapshotOperation }
}
