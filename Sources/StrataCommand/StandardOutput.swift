import Foundation
import Strata

/// Standard output through one buffer: bytes collect until 64 KiB and then go out in one
/// `write(2)`; ``flush()`` writes the rest (at the end of a command, and before anything is
/// written to standard error, so that a progress line or a message never lands in the middle
/// of buffered output on a shared terminal).
///
/// A reader that goes away (`strata query … | head`) ends the command quietly with status 0;
/// any other failed write ends it with an error and status 1.
final class StandardOutput: Sendable {
    static let shared = StandardOutput()
    /// Bytes held before a write.
    static let capacity = 64 << 10

    /// The bytes held before a write, under the package's one lock.
    private let buffer: ConditionLock<[UInt8]>

    private init() {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.capacity + 4096)
        buffer = ConditionLock(bytes)
    }

    /// Appends the UTF-8 of `text`.
    func write(_ text: String) {
        buffer.withLock { buffer in
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= Self.capacity { Self.drain(&buffer) }
        }
    }

    /// Lets `body` append bytes to the buffer directly.
    func append(_ body: (inout [UInt8]) -> Void) {
        buffer.withLock { buffer in
            body(&buffer)
            if buffer.count >= Self.capacity { Self.drain(&buffer) }
        }
    }

    /// Lets `body` write many pieces (records) through a batch of its own, handed over to
    /// standard output 64 KiB at a time: one lock for each batch instead of one for each piece.
    /// `body` ends each piece with ``OutputBatch/endPiece()``, so a batch is handed over whole
    /// pieces at a time, and the rest when `body` returns or throws. Text written to standard
    /// error while `body` runs (a warning) comes before the pieces not yet handed over.
    func appendEach(_ body: (inout OutputBatch) throws -> Void) rethrows {
        var batch = OutputBatch(output: self)
        defer { batch.handOver() }
        try body(&batch)
    }

    /// Writes what is buffered, then `batch` (emptied).
    fileprivate func write(batch: inout [UInt8]) {
        buffer.withLock { buffer in
            if !buffer.isEmpty { Self.drain(&buffer) }
            Self.drain(&batch)
        }
    }

    /// Writes whatever is buffered.
    func flush() {
        buffer.withLock { Self.drain(&$0) }
    }

    /// Writes `buffer` out, in as many `write` calls as the system needs, and empties it; called
    /// with the lock held.
    private static func drain(_ buffer: inout [UInt8]) {
        var written = 0
        while written < buffer.count {
            let result = buffer.withUnsafeBytes { raw in
                Glibc.write(STDOUT_FILENO, raw.baseAddress! + written, raw.count - written)
            }
            if result >= 0 {
                written += result
                continue
            }
            let code = errno
            if code == EINTR { continue }
            buffer.removeAll(keepingCapacity: true)
            if code == EPIPE { _exit(0) }
            let message = "error: cannot write to standard output: \(String(cString: strerror(code)))\n"
            _ = message.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
            _exit(1)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Bytes on their way to standard output (``StandardOutput/appendEach(_:)``).
struct OutputBatch {
    private let output: StandardOutput
    private var bytes: [UInt8] = []

    fileprivate init(output: StandardOutput) {
        self.output = output
        bytes.reserveCapacity(StandardOutput.capacity + 4096)
    }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append(contentsOf piece: [UInt8]) { bytes.append(contentsOf: piece) }
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Ends a piece: the batch goes out when it holds 64 KiB or more.
    mutating func endPiece() {
        if bytes.count >= StandardOutput.capacity { handOver() }
    }

    /// Writes the batch out now.
    fileprivate mutating func handOver() {
        if !bytes.isEmpty { output.write(batch: &bytes) }
    }
}
