#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
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
        return try registry.withLock { (open: inout [String: WeakEnvironment]) throws(LMDBError) -> Environment in
            if let existing = open[canonical]?.environment { return existing }
            let environment = try Environment(path: canonical, options: options)
            open[canonical] = WeakEnvironment(environment: environment)
            open = open.filter { $0.value.environment != nil }
            return environment
        }
    }

    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

struct WeakEnvironment: Sendable {
    weak var environment: Environment?
}

/// Closes an environment handle while holding the registry lock.
func closeUnderRegistryLock(_ handle: OpaquePointer) {
    registry.withLock { _ in mdb_env_close(handle) }
}

private let registry = Mutex<[String: WeakEnvironment]>([:])
