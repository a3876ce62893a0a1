import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Faults in the pages of a large result array's reserved storage on another thread, while the
/// scan that fills it runs.
///
/// `all` reserves its array at the exact record count: a million records are over a hundred MiB
/// of fresh memory, which the kernel hands out one zeroed page per fault as the records are
/// appended, on the scan's own thread (about half of its time in a million-record `all`). Asked
/// ahead with `madvise(MADV_POPULATE_WRITE)` (Linux 5.14), the kernel maps the pages in one call,
/// in parallel with the scan. The call reads and writes nothing a program can see (pages of an
/// anonymous mapping are zero whether faulted now or later), so it is safe while the scan
/// appends; a kernel without it refuses it, and everything works as before.
final class ResultPrefault: Sendable {
    /// Below this many bytes the pages are few and the hand-off is not worth it.
    static var threshold: Int { 8 << 20 }

    private let done = DispatchSemaphore(value: 0)
    private let started: Bool

    /// Starts faulting in the reserved storage of `array` (its capacity), if it is large.
    init<T>(reservedFor array: [T]) {
        #if os(Linux)
        let bytes = array.capacity * MemoryLayout<T>.stride
        // The address only, as an integer: nothing is read or written through it.
        let start = array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        guard bytes >= Self.threshold, start != 0, page > 0 else {
            started = false
            return
        }
        started = true
        // Whole pages inside the storage only.
        let first = (start + page - 1) / page * page
        let end = (start + UInt(bytes)) / page * page
        let done = self.done
        DispatchQueue.global().async {
            if end > first {
                let populateWrite: Int32 = 23   // MADV_POPULATE_WRITE, not in every libc's headers
                _ = madvise(UnsafeMutableRawPointer(bitPattern: first), Int(end - first), populateWrite)
            }
            done.signal()
        }
        #else
        started = false
        #endif
    }

    /// Waits for the pages to be faulted in: called before the array can be freed or grown.
    func wait() {
        if started { done.wait() }
    }
}
