import Foundation

/// Turns the memory faults a damaged data file can cause into an error message and exit status 1.
///
/// LMDB reads the store through a memory map and trusts its pages: a damaged page can point past
/// the end of `data.mdb` (`SIGBUS` when that part of the map is read) or outside the map
/// (`SIGSEGV`). Opening a store checks the file's size and meta pages and `strata verify` checks
/// every page first, but other commands do not read the whole file before they start. Only
/// async-signal-safe calls run in the handler: one `write` of a message made beforehand, then
/// `_exit`.
public enum FaultHandler {
    /// Installs the handler for `SIGBUS` and `SIGSEGV` in this process.
    public static func install() {
        // Globals are initialized on first use; do it now, not inside the handler.
        _ = busMessage.count + segmentationMessage.count
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            let message = signal == SIGBUS ? busMessage : segmentationMessage
            message.withUnsafeBufferPointer { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
            _exit(1)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
        sigaction(SIGSEGV, &action, nil)
    }
}

/// Made before any signal can arrive, so that the handler does not allocate.
private let busMessage = Array(
    "error: reading the store's data file failed (SIGBUS: a page past the end of data.mdb, or an I/O error): the file is damaged or was cut short; `strata verify STORE` names the page\n".utf8)
private let segmentationMessage = Array(
    "error: a memory fault while reading the store (SIGSEGV): its data file is probably damaged, `strata verify STORE` names the page; if verify finds nothing, this is a bug in strata\n".utf8)
