#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

extension Environment {
    /// The one open environment for `path` in this process, opening it when none is.
    ///
    /// LMDB forbids opening the same environment twice in one process (a second `mdb_env_open`
    /// would corrupt the lock table's view of readers and break the writer lock); every caller of
    /// this method for the same directory, however spelled, gets the same instance. The instance
    /// closes when the last reference goes away. `options` apply only when this call opens it.
    public static func shared(path: String, options: Options = Options()) throws(LMDBError) -> Environment {
        let canonical = canonicalPath(path)
        return try registry.withLock { (open: inout [String: RegisteredEnvironment]) throws(LMDBError) -> ConditionLock<[String: RegisteredEnvironment]>.Step<Environment> in
            if let entry = open[canonical] {
                if let existing = entry.environment { return .done(existing) }
                // The last reference is gone but the handle is not closed yet: its deinit removes
                // the entry (under this lock) once it is; opening the file before then would open
                // it twice.
                return .wait
            }
            let environment = try Environment(path: canonical, options: options)
            open[canonical] = RegisteredEnvironment(environment: environment, handle: UInt(bitPattern: environment.handle))
            return .done(environment)
        }
    }

    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// An environment opened by ``Environment/shared(path:options:)``, held weakly: the entry stays
/// until the environment's handle is closed, after the last reference is gone.
struct RegisteredEnvironment: Sendable {
    weak var environment: Environment?
    /// The `MDB_env` address, which identifies the entry when `environment` already reads nil.
    let handle: UInt
}

/// Closes an environment handle while holding the registry lock, and forgets its entry (waking a
/// `shared(path:)` that waits to open the same file again).
func closeUnderRegistryLock(_ handle: OpaquePointer) {
    let address = UInt(bitPattern: handle)
    registry.withLock { open in
        mdb_env_close(handle)
        if let path = open.first(where: { $0.value.handle == address })?.key {
            open[path] = nil
        }
    }
}

/// The environments open in this process, by canonical path. A pthread-based lock rather than
/// `Synchronization.Mutex`, which ThreadSanitizer reports falsely (see ``ConditionLock``).
private let registry = ConditionLock<[String: RegisteredEnvironment]>([:])
