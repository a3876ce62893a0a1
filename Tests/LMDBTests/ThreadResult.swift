import Foundation

/// The outcome of work run on a dedicated thread, awaitable from a test.
final class ThreadResult<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `result` is written once by the worker thread before `done` is signalled
    // and read only after waiting on `done`.
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    fileprivate func finish(_ result: Result<T, any Error>) {
        self.result = result
        done.signal()
    }

    /// Blocks the calling thread until the thread's result is there (inside a transaction, say,
    /// where a test cannot await).
    func wait() throws -> T {
        done.wait()
        done.signal()   // still done for a later `wait` or `value`
        return try result!.get()
    }

    /// Waits (off the cooperative pool) for the thread's result.
    var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                Thread.detachNewThread {
                    self.done.wait()
                    continuation.resume(with: self.result!)
                }
            }
        }
    }
}

extension Thread {
    /// Runs `body` on a new thread.
    static func detachedResult<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread.detachNewThread { result.finish(Result { try body() }) }
        return result
    }
}
