import Foundation

/// Standard input copied into an unnamed temporary file, because the import may read its input
/// twice (to infer a schema, and again when the map must grow).
///
/// The file is unlinked as soon as it is created: only the open descriptor keeps it, so a killed
/// `strata import -` leaves nothing behind in the temporary directory. The import reads it again
/// through `/dev/fd/N`, which opens the same file afresh.
final class StandardInputSpool {
    private let descriptor: Int32

    /// A path that opens the spooled input from the start.
    var path: String { "/dev/fd/\(descriptor)" }

    /// Copies all of standard input. Throws a ``CommandFailure`` naming the temporary directory
    /// and the reason (a full disk, say) when it cannot.
    init() throws {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array((directory + "/strata-stdin-XXXXXX.json").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
        guard descriptor >= 0 else {
            throw CommandFailure(message: "cannot create a temporary file for standard input in \(directory): \(String(cString: strerror(errno))) (set TMPDIR to another directory)")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
        try copyStandardInput(directory: directory)
    }

    deinit { close(descriptor) }

    private func copyStandardInput(directory: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw CommandFailure(message: "cannot read standard input: \(String(cString: strerror(errno))) (after \(total) bytes)")
            }
            if count == 0 { return }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, count - written) }
                if result < 0, errno == EINTR { continue }
                guard result > 0 else {
                    let reason = result < 0 ? String(cString: strerror(errno)) : "nothing written"
                    throw CommandFailure(message: "cannot copy standard input to a temporary file in \(directory): \(reason) "
                        + "(after \(total + written) bytes; the import reads its input twice, so it keeps a copy there; set TMPDIR to a directory with room, or pass a file)")
                }
                written += result
            }
            total += count
        }
    }
}
