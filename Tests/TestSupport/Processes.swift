import Foundation

/// Runs Python 3 for cross-checks from outside Swift (reading the store with `lmdb` and `cbor2`).
public enum Python {
    /// True when `python3` runs and imports every module in `modules`.
    public static func hasModules(_ modules: [String]) -> Bool {
        let imports = modules.isEmpty ? "pass" : "import " + modules.joined(separator: ", ")
        guard let result = try? run(imports, arguments: []) else { return false }
        return result.status == 0
    }

    /// Runs `script` to completion, with `input` on its standard input when given, and returns its
    /// exit status, standard output and standard error.
    public static func run(_ script: String, arguments: [String], input: String? = nil) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Starts `script` in the background.
    public static func start(_ script: String, arguments: [String]) throws -> RunningProcess {
        try RunningProcess(["python3", "-c", script] + arguments)
    }
}

/// A child process whose standard output can be waited on line by line.
public final class RunningProcess: @unchecked Sendable {
    // @unchecked Sendable: used from one test at a time; Process itself is thread-safe for
    // terminate/isRunning, and the pipe is read only by `waitForLine`.
    private let process = Process()
    private let output = Pipe()

    public init(_ command: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = output
        try process.run()
    }

    /// Blocks until the process prints `line`; throws when it exits first.
    public func waitForLine(_ line: String) throws {
        var buffer = Data()
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "process exited before printing \(line)"]) }
            buffer.append(chunk)
            if String(decoding: buffer, as: UTF8.self).split(separator: "\n").contains(Substring(line)) { return }
        }
    }

    public func terminate() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { terminate() }
}

/// A small tmpfs mounted for one test, to make a file system read-only or full.
/// Needs root or CAP_SYS_ADMIN; ``available`` says whether this process can.
public final class ReadOnlyMount: Sendable {
    public let path: String

    /// Whether mounting works here (tried once).
    public static let available: Bool = {
        guard let probe = try? ReadOnlyMount(sizeKiB: 64) else { return false }
        probe.unmount()
        return true
    }()

    public init(sizeKiB: Int = 4096) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mount-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.shell(["mount", "-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", path]) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Remounts the file system read-only or writable.
    public func remount(readOnly: Bool) throws {
        guard Self.shell(["mount", "-o", readOnly ? "remount,ro" : "remount,rw", path]) == 0 else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    public func unmount() {
        _ = Self.shell(["umount", "-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func shell(_ command: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
