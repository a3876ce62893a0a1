import Foundation

/// What the threads that decode records side by side (``DecodeExecutor``'s workers and the caller) share.
///
/// Every decode retains the entity's field table and name and releases them. Shared by two
/// threads, those reference counts are one cache line both cores take from each other several
/// times a record (perf showed a quarter of a query's time in `swift_retain`/`swift_release`), so
/// a thread that decodes beside another works on its own copies (``FieldTable/unshared()``,
/// ``Swift/String/unshared()``), made once per share of work.
enum DecodeThreads {
    /// The processor count, read once (each read costs a system call and a parse).
    static let cores = ProcessInfo.processInfo.activeProcessorCount
}

extension FieldTable {
    /// An equal table whose storage no other value shares, for a thread that decodes beside others.
    func unshared() -> FieldTable { FieldTable(names: names) }
}

extension String {
    /// An equal string whose storage no other value shares (small strings have none).
    func unshared() -> String { String(decoding: Array(utf8), as: UTF8.self) }
}
