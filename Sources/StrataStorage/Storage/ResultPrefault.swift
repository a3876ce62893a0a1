#if canImport(Glibc)
import Glibc
#endif

/// Faults in the pages of a large result array's reserved storage on one of the store's workers
/// (``DecodeExecutor``), while the scan that fills it runs.
///
/// `all` reserves its array at the exact record count: a million records are over a hundred MiB
/// of fresh memory, which the kernel hands out one zeroed page per fault as the records are
/// appended, on the scan's own thread (a large share of a large `all`). Asked
/// ahead with `madvise(MADV_POPULATE_WRITE)` (Linux 5.14), the kernel maps the pages in one call,
/// in parallel with the scan. The call reads and writes nothing a program can see (pages of an
/// anonymous mapping are zero whether faulted now or later), so it is safe while the scan
/// appends; a kernel without it refuses it, and everything works as before. When no worker has
/// started it by the time the scan ends, it is not done at all (it is only ahead of time).
package final class ResultPrefault: Sendable {
    /// Below this many bytes the pages are few and the hand-off is not worth it.
    package static var threshold: Int { 8 << 20 }

    /// The offered work, nil when the array is small.
    private let ticket: DecodeTicket?

    /// Offers faulting in the reserved storage of `array` (its capacity), if it is large.
    package init<T>(reservedFor array: [T], executor: DecodeExecutor) {
        #if os(Linux)
        let bytes = array.capacity * MemoryLayout<T>.stride
        // The address only, as an integer: nothing is read or written through it.
        let start = array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let page = max(1, UInt(sysconf(Int32(_SC_PAGESIZE))))
        // Whole pages inside the storage only.
        let first = (start + page - 1) / page * page
        let end = (start + UInt(bytes)) / page * page
        guard bytes >= Self.threshold, start != 0, end > first else {
            ticket = nil
            return
        }
        ticket = executor.offer {
            let populateWrite: Int32 = 23   // MADV_POPULATE_WRITE, not in every libc's headers
            _ = madvise(UnsafeMutableRawPointer(bitPattern: first), Int(end - first), populateWrite)
        }
        #else
        ticket = nil
        #endif
    }

    /// Takes the work back if no worker started it, else waits for it to end: called before the
    /// array can be freed or grown.
    package func wait() {
        if let ticket, !ticket.reclaim() { ticket.wait() }
    }
}
