import ArgumentParser
import Strata

/// `--timeout`: the time limit of the command's queries, 30 seconds unless given, `none` for no
/// limit: a hostile pattern or a huge scan stops with an error rather than running on. `strata`'s
/// query commands and `strata-studio` declare it through this one type.
public struct TimeoutOption: ParsableArguments {
    /// The option's text as given: seconds, or `none`.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Stop with an error when the query runs longer than this many seconds; 'none' for no limit.",
                               valueName: "seconds|none"))
    public var timeout: String = "30"

    /// The option with its default (30 seconds), as the parser makes it.
    public init() {}

    /// Refuses a value that is neither `none` nor a number of seconds above 0 and at most 10⁹.
    public func validate() throws {
        guard timeout != "none" else { return }
        guard let seconds = Double(timeout), seconds > 0 && seconds <= 1e9 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 1000000000, or 'none' (it is '\(timeout)')")
        }
    }

    /// The limit `--timeout` sets; nil for `none`.
    public var limit: Duration? {
        guard let seconds = Double(timeout) else { return nil }
        return .milliseconds(Int64((seconds * 1_000).rounded(.up)))
    }

    /// The store at `path`, its queries limited to `--timeout`; read-only for a command that only
    /// reads. A store's warnings go to `warnings` (one line each).
    public func openStore(_ path: String, readOnly: Bool, warnings: @escaping @Sendable (String) -> Void) throws -> Store {
        try Store.existing(path, warnings: warnings) { configuration in
            configuration.readOnly = readOnly
            configuration.queryTimeout = limit
        }
    }
}
