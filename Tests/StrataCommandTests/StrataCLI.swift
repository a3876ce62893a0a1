import Foundation
import Testing

/// Runs the built `strata` binary, as a user's shell would.
enum StrataCLI {
    /// The binary next to this test bundle (SwiftPM builds every product of the package, the
    /// test target depends on the command's target).
    static var binary: String {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return testBinary.deletingLastPathComponent().appendingPathComponent("strata").path
    }

    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `strata arguments...` (or `executable arguments...`, a program that runs strata) and
    /// returns its status and standard output as bytes (for binary output: `changes --format
    /// cbor`); standard error is dropped.
    static func runBytes(_ arguments: [String], executable: String? = nil) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// Runs `strata arguments...` in a terminal that script(1) gives it (where progress bars are
    /// drawn) and returns its status and everything the terminal showed.
    static func runInTerminal(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// Runs `strata arguments...` with `input` on standard input and waits for it; `environment`
    /// is added to this process's.
    @discardableResult
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            Issue.record("the strata binary is missing at \(binary); build the package (swift build) first", sourceLocation: sourceLocation)
            return Result(status: -1, output: "", error: "")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        // Read both pipes while the process runs, so that neither fills up and blocks it.
        let errorData = LockedData()
        let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                      error: String(decoding: errorData.value, as: UTF8.self))
    }

    /// What ``runKilling(_:environment:input:errorFile:after:when:)`` saw.
    struct Killed {
        /// Whether SIGKILL ended it (false when it exited first).
        var killed: Bool
        var status: Int32
        var seconds: Double
    }

    /// Runs `strata arguments` and kills it with SIGKILL once `trigger` holds (checked every half
    /// millisecond) and `delay` more seconds have passed, unless it exited first; with a nil
    /// `delay`, lets it finish. `environment` is added to this process's; `input` is a file for
    /// standard input; standard error goes to `errorFile` when given (else nowhere).
    static func runKilling(_ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                           errorFile: String? = nil, after delay: Double?, when trigger: () -> Bool = { true }) throws -> Killed {
        let started = Date()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input)) }
        if let errorFile {
            _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        } else {
            process.standardError = FileHandle.nullDevice
        }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var killed = false
        if let delay {
            while process.isRunning, !trigger() { usleep(500) }
            let deadline = Date().addingTimeInterval(delay)
            while process.isRunning, Date() < deadline { usleep(200) }
            if process.isRunning { killed = kill(process.processIdentifier, SIGKILL) == 0 }
        }
        process.waitUntilExit()
        killed = killed && process.terminationReason == .uncaughtSignal
        return Killed(killed: killed, status: process.terminationStatus, seconds: Date().timeIntervalSince(started))
    }

    /// Runs `script` with bash, for what only a shell writes (process substitution, `<(…)`), with
    /// `$STRATA` naming the binary; its standard output and error go through files in `directory`.
    static func bash(_ script: String, in directory: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let output = directory + "/bash.out", error = directory + "/bash.err"
        process.arguments = ["-c", "(\(script)) > '\(output)' 2> '\(error)'"]
        process.environment = ProcessInfo.processInfo.environment.merging(["STRATA": binary]) { $1 }
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: try String(contentsOfFile: output, encoding: .utf8),
                      error: try String(contentsOfFile: error, encoding: .utf8))
    }

    /// Parses `text` as JSON.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}

/// Bytes one thread hands to another.
final class LockedData: @unchecked Sendable {
    // @unchecked: both properties are only touched under `lock`.
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
