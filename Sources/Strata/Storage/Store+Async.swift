import Dispatch

extension Store {
    /// Runs `body` in a read transaction on a background thread, without blocking the caller's.
    ///
    /// ```swift
    /// let n = try await store.read { tx in try tx.count(User.self) }
    /// ```
    public func read<R: Sendable>(_ body: @escaping @Sendable (ReadTransaction) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.read(body) })
            }
        }
    }

    /// Runs `body` in the write transaction on the store's writer thread, without blocking the
    /// caller's. Async writes run one after another, in the order they were called.
    @discardableResult
    public func write<R: Sendable>(
        durability: Durability = .synchronous, _ body: @escaping @Sendable (WriteTransaction) throws -> R
    ) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            writerQueue.async {
                continuation.resume(with: Result { try self.write(durability: durability, body) })
            }
        }
    }
}
