import Foundation
import Strata
import StrataToolSupport

extension ImportSpool {
    /// All of standard input in a spool, because the import may read its input twice (to infer a
    /// schema, and again when the map must grow). The spool's file is unlinked from the start, so
    /// a killed `strata import -` leaves nothing in the temporary directory; a full disk fails
    /// with a message naming the directory.
    static func standardInput() throws -> ImportSpool {
        let spool = try ImportSpool()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw CommandFailure(message: "cannot read standard input: \(String(cString: strerror(errno))) (after \(total) bytes)")
            }
            if count == 0 { return spool }
            do { try spool.write(buffer[..<count]) } catch {
                throw CommandFailure(message: error.message + " (after \(total) bytes of standard input; "
                    + "the import reads its input twice, so it keeps a copy there: set TMPDIR to a directory with room, or pass a file)")
            }
            total += count
        }
    }
}
