import ArgumentParser
import Foundation
import Strata
import StrataStudio
import Synchronization

/// `strata studio`: serves ``StrataStudio/Studio`` for a store on 127.0.0.1 until interrupted
/// (SIGINT or SIGTERM: exit status 0).
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Serve a web inspector of a store on 127.0.0.1 and print its URL with an access token.",
        discussion: """
            Prints one line, `studio: http://127.0.0.1:PORT/?token=TOKEN`, and serves until interrupted; it opens \
            no browser. Every request needs the token (128 random bits, new at each start). The studio only reads \
            unless --write is given; its queries stop at --timeout. The page and its JSON API (described at \
            /api/openapi.yaml) show entities, schemas, indexes, records, queries with their plans, the change \
            feed, migrations, verify and statistics, and follow commits from any process.
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Option(help: "The port to listen on; 0 (the default) picks a free one, printed in the URL.") var port: Int = 0
    @Flag(help: "Allow editing, deleting and importing records from the page.") var write = false
    @OptionGroup var limit: TimeoutOption

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (it is \(port))") }
    }

    func run() throws {
        let store = try limit.openStore(self.store, readOnly: !write)
        let studio = Studio(store: store, options: StudioOptions(writable: write))
        let token = studio.options.token
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let requested = port
        // SIGINT and SIGTERM end the studio at once: an open event stream waits for the next commit
        // and would hold a graceful shutdown forever; every write is a transaction LMDB commits whole.
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Foundation.exit(0) }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        Task {
            do {
                let application = studio.application(port: requested) { port in
                    let line = "studio: http://127.0.0.1:\(port)/?token=\(token)\n"
                    FileHandle.standardOutput.write(Data(line.utf8))
                }
                try await application.run()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw CommandFailure(message: "the studio stopped: \(error)") }
    }
}
