import Foundation
import Strata
import StrataToolSupport

/// Where output goes, and whether a person is watching it.
enum Terminal {
    /// Standard output is a terminal: tables for people instead of JSON for programs.
    static let outputIsTerminal = isatty(STDOUT_FILENO) == 1
    /// Standard error is a terminal: progress bars are drawn there, else nothing.
    static let errorIsTerminal = isatty(STDERR_FILENO) == 1

    /// Writes a line to standard error, control characters other than line breaks made visible
    /// (messages quote names and values from the data).
    static func error(_ text: String) {
        StandardOutput.shared.flush()
        let visible = text.escapingControlCharacters(keeping: ["\n"])
        FileHandle.standardError.write(Data((visible.hasSuffix("\n") ? visible : visible + "\n").utf8))
    }

    /// Writes text to standard output through its buffer (``StandardOutput``). On a terminal,
    /// control characters other than line breaks and tabs are made visible, whatever the format.
    static func write(_ text: String) {
        StandardOutput.shared.write(outputIsTerminal ? text.escapingControlCharacters(keeping: ["\n", "\t"]) : text)
    }

    /// Appends bytes to standard output's buffer directly: only for text that holds no control
    /// characters (JSON, whose writer escapes them) or when standard output is not a terminal.
    static func append(_ body: (inout [UInt8]) -> Void) {
        StandardOutput.shared.append(body)
    }

    /// Writes what standard output holds.
    static func flush() { StandardOutput.shared.flush() }
}

/// A progress bar on standard error with rate and ETA, drawn only when it is a terminal and at
/// most ten times a second.
final class ProgressBar: Sendable {
    private let label: String
    private let unit: String
    private let start = Date()
    /// What the bar has drawn and was last asked for, under the package's one lock.
    private struct State {
        var lastDraw = Date.distantPast
        var drawn = false
        /// The last values drawn or asked for, which ``finish(completed:)`` draws at 100 %.
        var lastFraction: Double?
        var lastCount = 0
    }
    private let state = ConditionLock(State())

    init(_ label: String, unit: String) {
        self.label = label
        self.unit = unit
    }

    /// Redraws with `done` of `total` (nil when unknown) and `count` items so far.
    func update(fraction: Double?, count: Int, force: Bool = false) {
        guard Terminal.errorIsTerminal else { return }
        state.withLock { state in
            state.lastFraction = fraction
            state.lastCount = count
            let now = Date()
            guard force || now.timeIntervalSince(state.lastDraw) >= 0.1 else { return }
            state.lastDraw = now
            state.drawn = true
            Terminal.flush()   // what the command printed so far comes before the bar
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
    }

    /// Ends the bar: when the work `completed`, drawn once more at 100 % (the last throttled
    /// update may not have been drawn) and its line ended, so that what the command prints next
    /// starts a line of its own; when it failed, the bar is erased for the error message.
    func finish(completed: Bool) {
        guard Terminal.errorIsTerminal else { return }
        let (drawn, lastFraction, lastCount) = state.withLock { ($0.drawn, $0.lastFraction, $0.lastCount) }
        if completed, drawn || lastCount > 0 {
            update(fraction: lastFraction.map { _ in 1 }, count: lastCount, force: true)
        }
        state.withLock { state in
            if state.drawn { FileHandle.standardError.write(Data((completed ? "\n" : "\r\u{1B}[2K").utf8)) }
            state.drawn = false
        }
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}
