import Foundation
import LMDB

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

    /// Lets `body` append many pieces (records) to the buffer, taking the lock once per buffer
    /// rather than once a piece: `body` calls the `add` it is given with each piece's writer,
    /// which runs with the lock held and the buffer written out whenever it is full. Nothing
    /// else writes to standard output while `body` runs between pieces (the lock is free then),
    /// so output stays in order.
    func appendEach(_ body: (_ add: (_ piece: (inout [UInt8]) -> Void) -> Void) throws -> Void) rethrows {
        // The pieces go into a buffer of the batch's own, handed over when full and at the end:
        // one lock for each 64 KiB instead of one for each piece.
        var batch: [UInt8] = []
        batch.reserveCapacity(Self.capacity + 4096)
        defer { if !batch.isEmpty { hand(over: &batch) } }
        try body { piece in
            piece(&batch)
            if batch.count >= Self.capacity { hand(over: &batch) }
        }
    }

    /// Writes what is buffered, then `batch` (emptied).
    private func hand(over batch: inout [UInt8]) {
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
