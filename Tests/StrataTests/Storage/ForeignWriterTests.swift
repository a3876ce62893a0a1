import Foundation
import Logging
import Synchronization
import Testing
import TestSupport
@testable import Strata

/// A program writing the store's LMDB file directly holds LMDB's own writer lock, which LMDB
/// waits for without a timeout: a write waits for it, and after `writeLockTimeout` the store logs
/// a warning naming the path and the reason instead of hanging silently.
@Suite struct ForeignWriterTests {
    /// Holds a write transaction on the environment `argv[1]` for `argv[2]` seconds.
    static let holder = """
        import lmdb, sys, time
        env = lmdb.open(sys.argv[1], max_dbs=1024, map_size=1 << 30, create=False)
        txn = env.begin(write=True)
        print("holding", flush=True)
        time.sleep(float(sys.argv[2]))
        txn.abort()
        """

    @Test(.enabled(if: Python.hasModules(["lmdb"]), "needs python3 with its lmdb module"))
    func aWriteWaitingForAnotherProgramsLMDBWriterLogsAWarning() throws {
        let log = LogCapture()
        let (store, dir) = try makeStore {
            $0.writeLockTimeout = 0.5
            $0.logger = Logger(label: "test") { _ in log.handler }
        }
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx in try tx.insert(User.sample(1)) }
        #expect(log.warnings.isEmpty, "\(log.warnings)")

        let python = try Python.start(Self.holder, arguments: [store.path, "2.5"])
        defer { python.terminate() }
        try python.waitForLine("holding")
        let start = Date()
        try store.write { tx in try tx.insert(User.sample(2)) }
        let waited = Date().timeIntervalSince(start)
        #expect(waited > 1.5, "the write did not wait for the other program's transaction (\(waited) s)")
        #expect(log.warnings.count == 1, "\(log.warnings)")
        let warning = log.warnings.first ?? ""
        #expect(warning.contains("waiting for LMDB's writer lock on ") && warning.contains("store: another program (not Strata) holds a write transaction"), "\(warning)")
        #expect(try store.read { tx in try tx.count(User.self) } == 2)
    }
}

/// Collects the warnings a logger receives.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var warnings: [String] { lines.withLock { $0 } }

    var handler: some LogHandler { Handler(capture: self) }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .warning
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { capture.lines.withLock { $0.append("\(event.message)") } }
    }
}
