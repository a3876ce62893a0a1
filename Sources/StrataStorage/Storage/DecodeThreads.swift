import Foundation

/// What the threads that decode records side by side (``DecodeExecutor``'s workers and the caller) share.
///
/// Every decode retains the entity's field table and name and releases them. Shared by two
/// threads, those reference counts are one cache line both cores take from each other several
/// times a record (perf showed a quarter of a query's time in `swift_retain`/`swift_release`), so
/// a thread that decodes beside another works on its own copies (``FieldTable/unshared()``,
/// ``Swift/String/unshared()``), made once per share of work.
package enum DecodeThreads {
    /// The processors this process may run on, read once (each read costs a system call): the
    /// CPUs of its affinity mask where the system tells them, so that a process pinned to one CPU
    /// (`taskset -c 0`, a container's cpuset) starts no worker to share that CPU with; otherwise
    /// the processors online.
    package static let cores = allowedProcessors() ?? ProcessInfo.processInfo.activeProcessorCount

    /// The number of CPUs in the calling thread's affinity mask (`sched_getaffinity`; a process's
    /// threads inherit its mask, as `taskset` sets it), or nil where there is none to read.
    package static func allowedProcessors() -> Int? {
        #if os(Linux)
        // A mask of 1,024 CPUs, the size of glibc's `cpu_set_t`.
        var mask = [UInt64](repeating: 0, count: 16)
        let status = mask.withUnsafeMutableBytes { processAffinity(0, $0.count, $0.baseAddress!) }
        guard status == 0 else { return nil }
        let count = mask.reduce(0) { $0 + $1.nonzeroBitCount }
        return count > 0 ? count : nil
        #else
        return nil
        #endif
    }
}

#if os(Linux)
/// glibc's `sched_getaffinity`, which its module map leaves out (it needs `_GNU_SOURCE`).
@_silgen_name("sched_getaffinity")
private func processAffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32
#endif

extension FieldTable {
    /// An equal table whose storage no other value shares, for a thread that decodes beside others.
    package func unshared() -> FieldTable { FieldTable(names: names) }
}

extension String {
    /// An equal string whose storage no other value shares (small strings have none).
    package func unshared() -> String { String(decoding: Array(utf8), as: UTF8.self) }
}
