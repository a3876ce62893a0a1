import CLMDB

extension Environment {
    /// Writes a consistent copy of the environment's data file into the open file `descriptor`
    /// while readers and a writer go on (`mdb_env_copyfd2`); `compact` omits free pages.
    ///
    /// The caller creates the file (name, mode, no symbolic link followed), and syncs and closes
    /// it: a backup that must appear whole is written under a temporary name and renamed.
    public func copy(toFileDescriptor descriptor: Int32, compact: Bool = false, context: String = "") throws(LMDBError) {
        try check(mdb_env_copyfd2(handle, descriptor, compact ? UInt32(MDB_CP_COMPACT) : 0), "mdb_env_copyfd2", context: context)
    }
}
