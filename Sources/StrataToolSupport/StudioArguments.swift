import ArgumentParser

/// The arguments of `strata studio`, declared once: `strata-studio` parses them and serves the
/// studio; `strata` declares them too, for its help, manual and completions, and hands them to
/// `strata-studio` unparsed.
public struct StudioArguments: ParsableArguments {
    /// The store directory.
    @Argument(help: "The store directory.") public var store: String
    /// The port to listen on; 0 picks a free one.
    @Option(help: "The port to listen on; 0 (the default) picks a free one, printed in the URL.") public var port: Int = 0
    /// Whether the page may edit, delete and import records.
    @Flag(help: "Allow editing, deleting and importing records from the page.") public var write = false
    /// The time limit of the studio's queries.
    @OptionGroup public var limit: TimeoutOption

    /// The arguments' defaults, as the parser makes them.
    public init() {}

    /// Refuses a port outside 0...65535.
    public func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (it is \(port))") }
    }

    /// The command's one-line description.
    public static let abstract = "Serve a web inspector of a store on 127.0.0.1 and print its URL with an access token."

    /// The command's longer description.
    public static let discussion = """
        Prints one line, `studio: http://127.0.0.1:PORT/?token=TOKEN`, and serves until interrupted; it opens \
        no browser. Every request needs the token (128 random bits, new at each start). The studio only reads \
        unless --write is given; its queries stop at --timeout. The page and its JSON API (described at \
        /api/openapi.yaml) show entities, schemas, indexes, records, queries with their plans, the change \
        feed, migrations, verify and statistics, and follow commits from any process.

        The studio is a program of its own, strata-studio (the web server stays out of strata): `strata studio \
        ARGUMENTS` runs it with the same arguments, found beside the strata executable, else on PATH.
        """
}
