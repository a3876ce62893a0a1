import Logging

extension Store {
    /// Refuses a write through a read-only `Store`: the environment it shares may be writable,
    /// opened so by another `Store` on the same path.
    func refuseWritesIfReadOnly() throws {
        guard configuration.readOnly else { return }
        throw StrataError(.permissionDenied, "the store at \(path) was opened read-only (Configuration.readOnly); open a Store without readOnly to write")
    }
}

extension Store {
    /// Logs, as a warning, that a write has waited ``Configuration/writeLockTimeout`` for LMDB's
    /// writer lock held by another program, which LMDB waits for without a timeout.
    static func foreignWriterWarning(_ configuration: Configuration, path: String) -> @Sendable (String) -> Void {
        { [logger = configuration.logger] message in
            logger.warning("\(message)", metadata: ["path": "\(path)"])
        }
    }
}
