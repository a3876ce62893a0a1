#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LMDB

extension Store {
    /// Writes a consistent copy of the store into `destination` (a new or empty directory) while
    /// readers and a writer go on; `compact` leaves out free pages, so the copy can be smaller.
    /// The copy is a complete store: it opens and verifies on its own.
    ///
    /// The backup appears whole or not at all, whatever interrupts it: it is written into a
    /// directory beside `destination` (`.NAME.partial-XXXXXX`, where the data file is named
    /// `data.mdb.partial` until it is complete and synced), then renamed into place. What a killed
    /// backup leaves is therefore no store, and the next backup beside it removes it. The copy
    /// gets the store's permissions (its directory's and its data file's), not the process umask,
    /// so it is no more readable than the store. `progress`, when given, is called with the bytes
    /// copied so far a few times a second, on another thread, and never after `backup` returns.
    ///
    /// Throws `.invalidPath` when `destination` is a file or a directory that is not empty.
    public func backup(to destination: String, compact: Bool = false, progress: (@Sendable (Int) -> Void)? = nil) throws {
        let target = try BackupTarget(destination)
        let modes = try permissionBits()
        let partial = try PartialBackup(beside: target)
        var renamed = false
        defer { partial.finish(removing: !renamed) }
        let copying = partial.path + "/data.mdb.partial"
        let file = open(copying, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw StrataError.system(errno, "create the backup file \(copying)") }
        let watcher = progress.map { ProgressWatcher(path: copying, report: $0) }
        do {
            try environment.copy(toFileDescriptor: file, compact: compact, context: destination)
        } catch {
            watcher?.stop()
            close(file)
            throw StrataError(error, path: destination)
        }
        watcher?.stop()
        guard fchmod(file, modes.file) == 0, fsync(file) == 0 else {
            let failure = errno
            close(file)
            throw StrataError.system(failure, "sync the backup file \(copying)")
        }
        guard close(file) == 0 else { throw StrataError.system(errno, "write the backup file \(copying)") }
        // Complete and on disk: only now does it get the name that makes the directory a store.
        guard rename(copying, partial.path + "/data.mdb") == 0 else { throw StrataError.system(errno, "rename \(copying)") }
        try partial.seal(mode: modes.directory)
        guard rename(partial.path, target.path) == 0 else {
            let failure = errno
            if failure == ENOTEMPTY || failure == EEXIST || failure == ENOTDIR {
                throw StrataError(.invalidPath, "the backup destination \(destination) was filled or replaced during the backup; back up into a new or empty directory")
            }
            throw StrataError.system(failure, "rename the backup into \(destination)")
        }
        renamed = true
        // The rename is on disk once the parent directory is synced.
        let parent = open(target.parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parent >= 0 {
            defer { close(parent) }
            guard fsync(parent) == 0 else { throw StrataError.system(errno, "sync the directory \(target.parent)") }
        }
        configuration.logger.info("backed up store", metadata: ["path": "\(path)", "to": "\(destination)", "compact": "\(compact)"])
    }

    /// The permission bits of the store's directory and data file, which its backup gets too.
    private func permissionBits() throws -> (directory: mode_t, file: mode_t) {
        var directory = stat(), file = stat()
        guard stat(environment.path, &directory) == 0 else { throw StrataError.system(errno, "read the permissions of \(path)") }
        guard stat(environment.path + "/data.mdb", &file) == 0 else { throw StrataError.system(errno, "read the permissions of \(path)/data.mdb") }
        return (directory.st_mode & 0o7777, file.st_mode & 0o777)
    }
}

/// Where a backup goes: a directory that does not exist yet or is empty, by absolute path.
private struct BackupTarget {
    let path: String
    let parent: String
    let name: String

    init(_ destination: String) throws {
        var url = URL(fileURLWithPath: destination).standardized
        var status = stat()
        if lstat(url.path, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(url.path, nil) {
                // A link to a directory: the backup replaces the directory it names, not the link.
                url = URL(fileURLWithPath: String(cString: resolved))
                free(resolved)
                guard stat(url.path, &status) == 0 else { throw StrataError.system(errno, "read the backup destination \(destination)") }
            }
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw StrataError(.invalidPath, "the backup destination \(destination) is a file")
            }
            guard (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty ?? false else {
                throw StrataError(.invalidPath, "the backup destination \(destination) is not empty; back up into a new or empty directory")
            }
        } else if errno != ENOENT {
            throw StrataError.system(errno, "read the backup destination \(destination)")
        }
        path = url.path
        name = url.lastPathComponent
        parent = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw StrataError(.invalidPath, "cannot create the directory \(parent) for the backup \(destination): \(error.localizedDescription)",
                              cause: error as NSError)
        }
    }
}

/// The directory a backup is written into before it is renamed to its destination, locked
/// (`flock`) while the backup runs so that another backup can tell it from one left by a kill.
private final class PartialBackup {
    let path: String
    /// The directory, open and locked.
    private let descriptor: Int32

    /// Creates `.NAME.partial-XXXXXX` beside the destination, owner-only until it is sealed, after
    /// removing such directories that no running backup holds.
    init(beside target: BackupTarget) throws {
        let prefix = ".\(target.name).partial-"
        PartialBackup.removeAbandoned(in: target.parent, prefix: prefix)
        for _ in 0..<8 {
            var template = Array((target.parent + "/" + prefix + "XXXXXX").utf8CString)
            guard let created = mkdtemp(&template) else {
                throw StrataError.system(errno, "create a directory for the backup in \(target.parent)")
            }
            let candidate = String(cString: created)
            let fd = open(candidate, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }   // removed as abandoned before it was locked: try another
            var status = stat()
            if flock(fd, LOCK_EX) == 0, fstat(fd, &status) == 0, status.st_nlink > 0 {
                path = candidate
                descriptor = fd
                return
            }
            close(fd)
        }
        throw StrataError(.invalidPath, "cannot create a directory for the backup in \(target.parent): each one was removed at once")
    }

    /// Gives the directory the store directory's mode and syncs it (the data file's name in it).
    func seal(mode: mode_t) throws {
        guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else {
            throw StrataError.system(errno, "sync the backup directory \(path)")
        }
    }

    /// Unlocks the directory, removing it first when the backup did not reach its destination.
    func finish(removing: Bool) {
        if removing { PartialBackup.removeDirectory(path, descriptor: descriptor) }
        close(descriptor)
    }

    /// Removes the partial directories with `prefix` in `parent` that this user owns and no
    /// backup holds locked: those of killed backups.
    private static func removeAbandoned(in parent: String, prefix: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            let candidate = parent + "/" + entry
            let fd = open(candidate, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_uid == geteuid(), flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            removeDirectory(candidate, descriptor: fd)
        }
    }

    /// Removes the files a backup writes in the directory (and the lock files of a store opened
    /// on it), then the directory, which stays when it holds anything else.
    private static func removeDirectory(_ path: String, descriptor: Int32) {
        for file in ["data.mdb.partial", "data.mdb", "lock.mdb", "writer.lock"] { unlinkat(descriptor, file, 0) }
        rmdir(path)
    }
}

/// Reports a growing file's size every fifth of a second until stopped.
private final class ProgressWatcher: Sendable {
    private let stopped = ConditionLock(false)

    init(path: String, report: @escaping @Sendable (Int) -> Void) {
        let thread = Thread { [stopped] in
            while true {
                if stopped.withLock({ $0 }) { return }
                usleep(200_000)
                var status = stat()
                let size = stat(path, &status) == 0 ? Int(status.st_size) : 0
                // Reported under the lock, so that no report comes after `stop` returns.
                stopped.withLock { isStopped in if !isStopped { report(size) } }
            }
        }
        thread.start()
    }

    func stop() { stopped.withLock { $0 = true } }
}

extension StrataError {
    /// An error for a failed system call (`errno`) while trying to `action`.
    package static func system(_ code: Int32, _ action: String) -> StrataError {
        let kind: Code
        switch code {
        case EACCES, EPERM, EROFS: kind = .permissionDenied
        case ENOSPC, EDQUOT, EFBIG: kind = .storageFull
        default: kind = .invalidPath
        }
        return StrataError(kind, "cannot \(action): \(String(cString: strerror(code)))",
                           cause: NSError(domain: NSPOSIXErrorDomain, code: Int(code)))
    }
}
