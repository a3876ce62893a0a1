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
    /// closes when the last reference goes away.
    ///
    /// A read-only opening (``Options/readOnly``) that finds none open opens the environment
    /// read-write when this process may write every file of it and the directory (creating
    /// nothing: `writer.lock` comes with the first write), so that a writable opening of the same
    /// path later, in either order, shares it; else read-only, or lockless where it may not write
    /// the lock file (read-only media, another user's store; see ``isLockless``). Either way the
    /// caller of a read-only opening must not write through the instance: read-only is the
    /// caller's policy, ``isWritable`` the instance's.
    ///
    /// When the environment is open already, `options` must agree with it where one environment
    /// cannot have two values, or this throws an error whose ``LMDBError/isConfigurationConflict``
    /// is true and whose context names the option: a writable opening of an environment this
    /// process could open only read-only (its files or directory not writable by it), another
    /// `maxReaders`, `maxMapSize` or `maxDatabases`. The others are harmless to share: `mapSize`
    /// is only where the map starts (it grows), `fileMode` applies when files are created (they
    /// exist), `writeLockTimeout` is the default of a `write` that passes its own.
    public static func shared(path: String, options: Options = Options()) throws(LMDBError) -> Environment {
        let canonical = canonicalPath(path)
        return try registry.withLock { (open: inout [String: RegisteredEnvironment]) throws(LMDBError) -> ConditionLock<[String: RegisteredEnvironment]>.Step<Environment> in
            if let entry = open[canonical] {
                if let existing = entry.environment {
                    try existing.checkSharable(with: options)
                    return .done(existing)
                }
                // The last reference is gone but the handle is not closed yet: its deinit removes
                // the entry (under this lock) once it is; opening the file before then would open
                // it twice.
                return .wait
            }
            let access = options.readOnly ? StoreFiles.readOnlyAccess(directory: canonical) : nil
            let environment = try Environment(path: canonical, options: options, access: access)
            open[canonical] = RegisteredEnvironment(environment: environment, handle: UInt(bitPattern: environment.handle))
            return .done(environment)
        }
    }

    /// Refuses `options` that this open environment cannot honour (see ``shared(path:options:)``).
    private func checkSharable(with requested: Options) throws(LMDBError) {
        func conflict(_ text: String) -> LMDBError {
            LMDBError(code: LMDBError.configurationConflictCode, operation: Environment.sharingOperation,
                      context: "\(path) is already open in this process \(text)")
        }
        if !isWritable, !requested.readOnly {
            let why = isLockless
                ? "without its lock file, which this process may not write (read-only media, or another user's store)"
                : "read-only, as this process may not write its data file or directory"
            throw conflict("\(why): this writable opening cannot share it; open the store where it can be written, or open with readOnly = true too")
        }
        let fixed: [(String, Int, Int)] = [
            ("maxReaders", Int(options.maxReaders), Int(requested.maxReaders)),
            ("maxMapSize", options.maxMapSize, requested.maxMapSize),
            ("maxDatabases", Int(options.maxDatabases), Int(requested.maxDatabases)),
        ]
        for (name, current, asked) in fixed where current != asked {
            throw conflict("with \(name) = \(current), and this opening asks for \(asked): one environment has one \(name); open every one of a path with the same")
        }
    }

    /// The operation named by ``shared(path:options:)``'s conflict errors.
    static let sharingOperation = "open the shared environment"

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

/// The environments open in this process, by canonical path.
private let registry = ConditionLock<[String: RegisteredEnvironment]>([:])

extension LMDBError {
    /// The code of a ``isConfigurationConflict`` error (`EINVAL`).
    public static let configurationConflictCode: Int32 = 22

    /// ``Environment/shared(path:options:)`` found the environment open with options this opening
    /// cannot share; ``context`` names the option.
    public var isConfigurationConflict: Bool {
        code == LMDBError.configurationConflictCode && operation == Environment.sharingOperation
    }
}
