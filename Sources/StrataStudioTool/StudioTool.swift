import ArgumentParser
import Foundation
import Strata
import StrataStudio
import StrataToolSupport
import Synchronization

/// `strata-studio`, the program behind `strata studio` (which runs it with the same arguments):
/// serves ``StrataStudio/Studio`` for a store on 127.0.0.1 until interrupted (SIGINT or SIGTERM:
/// exit status 0). A program of its own so that `strata` links no web server.
///
/// Exit status: 0 when interrupted; 1 the studio could not start or stopped (`error: ...` on
/// stderr); 2 a usage error.
@main
struct StudioTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata studio", abstract: StudioArguments.abstract, discussion: StudioArguments.discussion)

    @OptionGroup var arguments: StudioArguments

    static func main() {
        runAsTool(printError: printError)
    }

    /// Writes a line to standard error, control characters other than line breaks made visible.
    @Sendable static func printError(_ text: String) {
        let visible = text.escapingControlCharacters(keeping: ["\n"])
        FileHandle.standardError.write(Data((visible.hasSuffix("\n") ? visible : visible + "\n").utf8))
    }

    func run() throws {
        let store = try arguments.limit.openStore(arguments.store, readOnly: !arguments.write, warnings: Self.printError)
        let studio = Studio(store: store, options: StudioOptions(writable: arguments.write))
        let token = studio.options.token
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let requested = arguments.port
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
