import Foundation
import Logging
import Strata

/// The work failed in a way already explained (the message, when not empty, is printed as
/// `error: ...`); exit status 1.
public struct CommandFailure: Error {
    /// What went wrong, in a sentence; empty when it was printed already.
    public var message: String

    /// A failure explained by `message`.
    public init(message: String) { self.message = message }
}

extension Store.Configuration {
    /// How the commands open stores: warnings (a write waiting for another program's LMDB writer
    /// lock) go to `warnings`, and `STRATA_WRITE_LOCK_TIMEOUT` sets the seconds a write waits
    /// for another writer before failing (30 unless set; `inf` waits without limit). A value that
    /// is no such number stops the command, naming it.
    public static func command(warnings: @escaping @Sendable (String) -> Void) throws -> Store.Configuration {
        var configuration = Store.Configuration()
        configuration.logger = Logger(label: "strata") { _ in WarningsToStandardError(write: warnings) }
        if let text = environmentVariable("STRATA_WRITE_LOCK_TIMEOUT") {
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
                throw CommandFailure(message: "STRATA_WRITE_LOCK_TIMEOUT must be a number of seconds, 0 or more ('inf' waits without limit); it is '\(text.prefix(40))'")
            }
            configuration.writeLockTimeout = seconds
        }
        return configuration
    }
}

extension Store {
    /// Opens the store at `path` for a command that must not create one (everything but
    /// `import` and `demo`): a mistyped path is `no store at PATH`, and nothing is left behind.
    /// Warnings go to `warnings`.
    public static func existing(_ path: String, warnings: @escaping @Sendable (String) -> Void,
                                _ configure: (inout Configuration) -> Void = { _ in }) throws -> Store {
        var configuration = try Configuration.command(warnings: warnings)
        configuration.createIfMissing = false
        configure(&configuration)
        return try Store(path: path, configuration: configuration)
    }
}

/// The value of the environment variable `name` as `ProcessInfo.processInfo.environment` gives
/// it (the last of repeated definitions, invalid UTF-8 repaired), read from `environ` without
/// making that dictionary of every variable at each command's start.
public func environmentVariable(_ name: String) -> String? {
    let prefix = name + "="
    let length = prefix.utf8.count
    var value: String?
    var entry = environ
    while let definition = entry.pointee {
        if strncmp(definition, prefix, length) == 0 { value = String(cString: definition + length) }
        entry += 1
    }
    return value
}

/// Passes warnings and errors a store logs to `write` as `warning: MESSAGE`; the store's
/// informational messages stay quiet, as the commands print their own reports.
struct WarningsToStandardError: LogHandler {
    var write: @Sendable (String) -> Void
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        write("warning: \(event.message)")
    }
}
