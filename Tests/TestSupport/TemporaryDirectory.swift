import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released.
///
/// ```swift
/// let dir = try TemporaryDirectory()
/// let store = try Store(path: dir.path("store"))
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let url: URL

    public init(_ label: String = "strata") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        // Owner-only whatever the umask: a store refuses a directory others may write to.
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory (not created).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The directory's own path.
    public var path: String { url.path }
}
