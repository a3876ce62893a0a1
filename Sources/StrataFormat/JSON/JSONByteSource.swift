import Foundation

/// Where a JSON parser's bytes come from, in chunks, so that memory does not grow with the input.
package protocol JSONByteSource {
    /// Replaces `buffer`'s contents with the next chunk; leaves it empty at the end of the input.
    mutating func nextChunk(into buffer: inout [UInt8]) throws(StrataError)
}

/// Bytes already in memory, handed out in one chunk.
package struct InMemoryByteSource: JSONByteSource {
    private var bytes: [UInt8]?

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package mutating func nextChunk(into buffer: inout [UInt8]) throws(StrataError) {
        if let bytes {
            buffer = bytes
            self.bytes = nil
        } else {
            buffer.removeAll()
        }
    }
}

/// A file read in chunks of `chunkSize` bytes with `read(2)`.
package final class FileByteSource: JSONByteSource {
    private let descriptor: Int32
    private let path: String
    private let chunkSize: Int

    /// Opens `path` for reading; throws `.invalidPath` or `.permissionDenied` naming it.
    package init(path: String, chunkSize: Int = 1 << 20) throws(StrataError) {
        self.path = path
        self.chunkSize = chunkSize
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            throw StrataError(code == EACCES || code == EPERM ? .permissionDenied : .invalidPath,
                              "cannot open the JSON file \(path): \(reason)")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw StrataError(.invalidPath, "cannot import \(path): it is a directory, not a JSON file")
        }
        // `/dev/fd/N` (a spooled, unlinked input) may share the offset of an open descriptor
        // where the system duplicates it rather than opening the file again: start at the top.
        _ = lseek(descriptor, 0, SEEK_SET)
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    package func nextChunk(into buffer: inout [UInt8]) throws(StrataError) {
        buffer.removeAll(keepingCapacity: true)
        let size = chunkSize
        var failure: Int32 = 0
        buffer.append(contentsOf: repeatElement(0, count: size))
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            while true {
                let n = read(descriptor, raw.baseAddress, size)
                if n >= 0 { return n }
                if errno == EINTR { continue }
                failure = errno
                return 0
            }
        }
        buffer.removeSubrange(count...)
        if failure != 0 {
            throw StrataError(.storage, "reading \(path) failed: \(String(cString: strerror(failure)))")
        }
    }
}
