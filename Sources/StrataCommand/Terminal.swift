import Foundation

/// Where output goes, and whether a person is watching it.
enum Terminal {
    /// Standard output is a terminal: tables for people instead of JSON for programs.
    static let outputIsTerminal = isatty(STDOUT_FILENO) == 1
    /// Standard error is a terminal: progress bars are drawn there, else nothing.
    static let errorIsTerminal = isatty(STDERR_FILENO) == 1

    /// Writes a line to standard error, control characters other than line breaks made visible
    /// (messages quote names and values from the data).
    static func error(_ text: String) {
        let visible = text.escapingControlCharacters(keeping: ["\n"])
        FileHandle.standardError.write(Data((visible.hasSuffix("\n") ? visible : visible + "\n").utf8))
    }

    /// Writes text to standard output without buffering surprises (mixing `print` and
    /// `FileHandle` writes can reorder output). On a terminal, control characters other than
    /// line breaks and tabs are made visible, whatever the format.
    static func write(_ text: String) {
        let visible = outputIsTerminal ? text.escapingControlCharacters(keeping: ["\n", "\t"]) : text
        FileHandle.standardOutput.write(Data(visible.utf8))
    }
}

/// A progress bar on standard error with rate and ETA, drawn only when it is a terminal and at
/// most ten times a second.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: every mutable property is read and written under `lock`.
    private let label: String
    private let unit: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private let lock = NSLock()
    private var drawn = false

    init(_ label: String, unit: String) {
        self.label = label
        self.unit = unit
    }

    /// Redraws with `done` of `total` (nil when unknown) and `count` items so far.
    func update(fraction: Double?, count: Int, force: Bool = false) {
        guard Terminal.errorIsTerminal else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        drawn = true
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(count) / elapsed
        var line = "\r\(label) "
        if let fraction {
            let width = 30
            let filled = Int((fraction * Double(width)).rounded(.down))
            line += "[" + String(repeating: "#", count: min(filled, width)) + String(repeating: "-", count: max(width - filled, 0)) + "] "
            line += String(format: "%3.0f%% ", fraction * 100)
            if fraction > 0.01, fraction < 1 { line += "ETA \(Self.duration(elapsed / fraction - elapsed)) " }
        }
        line += "\(count.formatted()) \(unit) \(Int(rate).formatted())/s   "
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Ends the bar's line.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
        drawn = false
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}
