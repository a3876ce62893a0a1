import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

extension Store.Configuration {
    /// How the commands open stores (``Store/Configuration/command(warnings:)``), warnings written
    /// by ``Terminal/error(_:)``.
    static func command() throws -> Store.Configuration {
        try command(warnings: Terminal.error)
    }
}

extension Store {
    /// Opens the store at `path` for a command that must not create one
    /// (``Store/existing(_:warnings:_:)``), warnings written by ``Terminal/error(_:)``.
    static func existing(_ path: String, _ configure: (inout Configuration) -> Void = { _ in }) throws -> Store {
        try existing(path, warnings: Terminal.error, configure)
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
