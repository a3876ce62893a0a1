import Foundation

/// The command line of a benchmark executable, read flag by flag; a bad flag or value stops the
/// program with a message on standard error and exit status 2.
///
/// ```swift
/// var arguments = BenchmarkArguments(tool: "side-by-side")
/// while let flag = arguments.next() {
///     switch flag {
///     case "--count": count = arguments.positiveInteger(for: flag)
///     default: arguments.unknown(flag)
///     }
/// }
/// ```
public struct BenchmarkArguments {
    public let tool: String
    private var rest: ArraySlice<String>

    public init(tool: String, arguments: [String] = CommandLine.arguments) {
        self.tool = tool
        rest = arguments.dropFirst()
    }

    /// The next flag, or nil at the end.
    public mutating func next() -> String? { rest.popFirst() }

    /// The value after `flag`.
    public mutating func value(for flag: String) -> String {
        guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
        return value
    }

    /// The value after `flag`, a positive integer.
    public mutating func positiveInteger(for flag: String) -> Int {
        guard let number = Int(value(for: flag)), number > 0 else { fail("\(flag) must be a positive integer") }
        return number
    }

    /// The value after `flag`, an unsigned 64-bit integer (a seed).
    public mutating func unsignedInteger(for flag: String) -> UInt64 {
        guard let number = UInt64(value(for: flag)) else { fail("\(flag) must be an unsigned integer") }
        return number
    }

    /// The value after `flag`, one of `choices`.
    public mutating func choice(for flag: String, _ choices: [String]) -> String {
        let value = value(for: flag)
        guard choices.contains(value) else { fail("\(flag) is one of \(choices.joined(separator: ", "))") }
        return value
    }

    /// Stops at a flag this tool does not know.
    public func unknown(_ flag: String) -> Never { fail("unknown argument '\(flag)' (try --help)") }

    /// Stops with `message`.
    public func fail(_ message: String) -> Never { benchmarkFailure(tool, message) }
}

/// Writes "tool: message" to standard error and exits with status 2.
public func benchmarkFailure(_ tool: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
    exit(2)
}

/// Writes a progress line to standard error, keeping standard output for the tables.
public func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
