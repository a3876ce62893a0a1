#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

/// What LMDB calls when a page it reads is inconsistent (`mdb_env_set_assert`).
///
/// liblmdb checks a few invariants of the pages it walks (a leaf where a leaf must be, a node
/// inside its page) and, when one fails, calls this hook and then `abort()`s: it has no way to
/// return an error from there. Such a failure means the file is damaged (or LMDB was misused), so
/// instead of a bare assertion and a core dump the process ends with a message that names the
/// file, what LMDB found and what to do, and exit status 1. Nothing committed is lost: the write
/// transaction in progress, if any, is never committed, and LMDB's locks are released by exit.
func installAssertionHook(_ env: OpaquePointer) {
    mdb_env_set_assert(env, lmdbAssertionFailed)
}

private func lmdbAssertionFailed(_ env: OpaquePointer?, _ message: UnsafePointer<CChar>?) {
    var path: UnsafePointer<CChar>?
    if let env { _ = mdb_env_get_path(env, &path) }
    let directory = path.map { String(cString: $0) } ?? "the store"
    let what = message.map { String(cString: $0) } ?? "an internal check failed"
    let text = "error: LMDB found an inconsistent page in \(directory)/data.mdb (\(what)): the file is damaged; "
        + "`strata verify \(directory)` names the page. Restore it from a backup.\n"
    text.utf8CString.withUnsafeBufferPointer { bytes in
        _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count - 1)
    }
    _exit(1)
}
