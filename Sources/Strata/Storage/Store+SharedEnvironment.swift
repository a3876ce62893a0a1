extension Store {
    /// Refuses a write through a read-only `Store`: the environment it shares may be writable,
    /// opened so by another `Store` on the same path.
    func refuseWritesIfReadOnly() throws {
        guard configuration.readOnly else { return }
        throw StrataError(.permissionDenied, "the store at \(path) was opened read-only (Configuration.readOnly); open a Store without readOnly to write")
    }
}
