import ArgumentParser
import Foundation
import Logging
import Strata

extension Store.Configuration {
    /// How the commands open stores: warnings (a write waiting for another program's LMDB writer
    /// lock) go to standard error, and `STRATA_WRITE_LOCK_TIMEOUT` sets the seconds a write waits
    /// for another writer before failing (30 unless set; `inf` waits without limit). A value that
    /// is no such number stops the command, naming it.
    static func command() throws -> Store.Configuration {
        var configuration = Store.Configuration()
        configuration.logger = Logger(label: "strata") { _ in WarningsToStandardError() }
        if let text = environmentVariable("STRATA_WRITE_LOCK_TIMEOUT") {
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
                throw CommandFailure(message: "STRATA_WRITE_LOCK_TIMEOUT must be a number of seconds, 0 or more ('inf' waits without limit); it is '\(text.prefix(40))'")
            }
            configuration.writeLockTimeout = seconds
        }
        return configuration
    }
}

/// The value of the environment variable `name` as `ProcessInfo.processInfo.environment` gives
/// it (the last of repeated definitions, invalid UTF-8 repaired), read from `environ` without
/// making that dictionary of every variable at each command's start.
func environmentVariable(_ name: String) -> String? {
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

extension Store {
    /// Opens the store at `path` for a command that must not create one (everything but
    /// `import` and `demo`): a mistyped path is `no store at PATH`, and nothing is left behind.
    static func existing(_ path: String, _ configure: (inout Configuration) -> Void = { _ in }) throws -> Store {
        var configuration = try Configuration.command()
        configuration.createIfMissing = false
        configure(&configuration)
        return try Store(path: path, configuration: configuration)
    }
}

extension Store {
    /// Opens the store at `path` read-only for a command that only reads it (`query`, `get`,
    /// `export`, `schema`, `stats`, `verify`, `changes`, …): it works on read-only media and on a
    /// store this user may read but not write, writes nothing and creates no file in the store's
    /// directory (not `writer.lock`, not `lock.mdb`); like ``existing(_:_:)``, a path without a
    /// store is `no store at PATH`.
    static func reading(_ path: String, _ configure: (inout Configuration) -> Void = { _ in }) throws -> Store {
        try existing(path) { configuration in
            configuration.readOnly = true
            configure(&configuration)
        }
    }
}

/// `--read-only`, which every command that only reads takes: it opens the store read-only
/// whether given or not (``Store/reading(_:_:)``); the flag lets a script say so, and commands
/// that write do not take it.
struct ReadOnlyFlag: ParsableArguments {
    @Flag(name: .customLong("read-only"), help: ReadOnlyFlag.help) var readOnly = false

    /// The flag's help, also that of `get`, which declares the flag itself (see `GetCommand`).
    static let help: ArgumentHelp = "Open the store read-only, as this command always does: it works on read-only media and on stores you may read but not write, and creates no file in the store's directory."
}

/// Prints warnings and errors a store logs as `warning: MESSAGE` lines on standard error; the
/// store's informational messages stay quiet, as the commands print their own reports.
struct WarningsToStandardError: LogHandler {
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Terminal.error("warning: \(event.message)")
    }
}
