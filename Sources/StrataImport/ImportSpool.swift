import Foundation

/// An import's input spooled to an unnamed temporary file: created in the temporary directory
/// and unlinked at once, so only the open descriptor keeps it (a killed process leaves no file).
/// The import reads it again through `/dev/fd/N`, which opens the same file from the start.
/// `strata import -` spools standard input in one too.
package final class ImportSpool: Sendable {
    private let descriptor: Int32
    private let directory: String

    /// A path that opens the spooled bytes.
    package var path: String { "/dev/fd/\(descriptor)" }

    package init() throws(StrataError) {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array((directory + "/strata-import-XXXXXX.json").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
        guard descriptor >= 0 else {
            let code = errno
            throw StrataError(code == EACCES || code == EPERM ? .permissionDenied : .invalidPath,
                              "cannot create a temporary file to spool the import in \(directory): \(String(cString: strerror(code)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
        self.directory = directory
    }

    deinit { close(descriptor) }

    /// Appends `bytes`; a full disk throws `.storageFull` naming the temporary directory.
    package func write(_ bytes: ArraySlice<UInt8>) throws(StrataError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                let code = result < 0 ? errno : EIO
                throw StrataError(code == ENOSPC || code == EDQUOT ? .storageFull : .storage,
                                  "cannot spool the import to a temporary file in \(directory): \(String(cString: strerror(code)))")
            }
            written += result
        }
    }
}
