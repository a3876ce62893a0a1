import Strata

extension Store {
    /// Opens the store at `path` for a command that must not create one (everything but
    /// `import` and `demo`): a mistyped path is `no store at PATH`, and nothing is left behind.
    static func existing(_ path: String, _ configure: (inout Configuration) -> Void = { _ in }) throws -> Store {
        var configuration = Configuration.command
        configuration.createIfMissing = false
        configure(&configuration)
        return try Store(path: path, configuration: configuration)
    }
}
