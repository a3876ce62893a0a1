import Foundation

/// A real second user account, for tests of files that belong to someone else: created with
/// `useradd` when the tests run as root, absent otherwise (``uid`` is nil; skip with a message).
public enum OtherUser {
    /// The account's name.
    public static let name = "strata-other"

    /// The account's user id, creating the account on first use; nil unless running as root.
    public static let uid: uid_t? = {
        guard getuid() == 0 else { return nil }
        if let entry = getpwnam(name) { return entry.pointee.pw_uid }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return getpwnam(name)?.pointee.pw_uid
    }()

    /// Gives `path` (not following a link) to the account.
    public static func give(_ path: String) throws {
        guard let uid, lchown(path, uid, gid_t(bitPattern: -1)) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
