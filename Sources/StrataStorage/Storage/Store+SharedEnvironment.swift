import LMDB
import Logging

extension Store {
    /// Refuses a write through a read-only `Store`: the environment it shares may be writable,
    /// opened so by another `Store` on the same path.
    package func refuseWritesIfReadOnly() throws {
        guard configuration.readOnly else { return }
        throw StrataError(.permissionDenied, "the store at \(path) was opened read-only (Configuration.readOnly); open a Store without readOnly to write")
    }
}

extension Store {
    /// Logs, as a warning, that a write has waited ``Configuration/writeLockTimeout`` for LMDB's
    /// writer lock held by another program, which LMDB waits for without a timeout.
    package static func foreignWriterWarning(_ configuration: Configuration, path: String) -> @Sendable (String) -> Void {
        { [logger = configuration.logger] message in
            logger.warning("\(message)", metadata: ["path": "\(path)"])
        }
    }
}

extension DecodeExecutor {
    /// The executor of the stores open on `environment`: the one they share while any is open,
    /// else a new one (whose threads start when work is first offered).
    package static func shared(by environment: Environment) -> DecodeExecutor {
        executors.withLock { executors in
            let id = ObjectIdentifier(environment)
            if let executor = executors.first(where: { $0.environment == id })?.executor { return executor }
            // Entries of released executors go (an environment's identifier may be reused later).
            executors.removeAll { $0.executor == nil }
            let executor = DecodeExecutor()
            executors.append(WeakExecutor(environment: id, executor: executor))
            return executor
        }
    }
}

/// An executor held by the stores of its environment, not by the registry.
private struct WeakExecutor {
    let environment: ObjectIdentifier
    weak var executor: DecodeExecutor?
}

/// The executors of the environments open in this process (a few at most): a list, not a
/// dictionary by environment, whose first use cost the first store's opening the runtime's
/// look-up of `ObjectIdentifier: Hashable` through every conformance record of the program.
private let executors = ConditionLock<[WeakExecutor]>([])
