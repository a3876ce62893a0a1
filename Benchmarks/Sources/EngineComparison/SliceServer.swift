import Foundation

/// One figure a benchmark process can time in short slices for `tools/ab-slices`: `run` does
/// `operations` of the figure's work (queries, record reads, scans, upserted records) and returns
/// what it saw (rows, records found), which must be the same in every build given the same commands.
public struct SliceFigure {
    public let name: String
    /// Records or queries per operation (a full scan: the records it decodes), for the rate.
    public let unitsPerOperation: Int
    /// The largest number of operations one slice may ask for (nil: no limit).
    public let maxOperations: Int?
    /// Untimed work before each slice (an upsert's batch deleted first, so that it is inserted again).
    let prepare: (Int) throws -> Void
    /// The timed slice.
    let run: (Int) throws -> Int

    public init(
        name: String, unitsPerOperation: Int = 1, maxOperations: Int? = nil,
        prepare: @escaping (Int) throws -> Void = { _ in }, run: @escaping (Int) throws -> Int
    ) {
        self.name = name
        self.unitsPerOperation = unitsPerOperation
        self.maxOperations = maxOperations
        self.prepare = prepare
        self.run = run
    }
}

/// A position that advances through `count` items and wraps: each build's process gets the same
/// commands, so its slices take the same items (parameter sets, keys) as the other build's.
public struct SliceCursor {
    public let count: Int
    public private(set) var position = 0
    public init(count: Int) { self.count = count }

    /// The indices of the next `n` items, wrapping at the end.
    public mutating func next(_ n: Int) -> [Int] {
        defer { position = (position + n) % count }
        return (0..<n).map { (position + $0) % count }
    }

    /// The next `n` items as one contiguous range (starting over at 0 when they would pass the end).
    public mutating func nextRange(_ n: Int) -> Range<Int> {
        if position + n > count { position = 0 }
        defer { position = (position + n) % count }
        return position..<(position + n)
    }
}

/// The slice mode of the benchmark executables (`--serve-slices`): the store is built once, then
/// `tools/ab-slices` sends one command per line on standard input and reads one answer per line on
/// standard output. Progress and errors of the setup go to standard error.
///
///     ready FIGURE...                      (once, when the store is built)
///     run FIGURE OPERATIONS             -> done FIGURE OPERATIONS UNITS NANOSECONDS CPU_NANOSECONDS CHECK
///     figures                           -> figures FIGURE...
///     quit                                 (or end of input)
///
/// NANOSECONDS is the monotonic clock (`ContinuousClock`) around the slice alone, CPU_NANOSECONDS the
/// process's CPU time over the same span (every thread; no time spent waiting for the disk or for a
/// core another process holds); UNITS the records or
/// queries of the slice; CHECK what the slice saw (rows, records), the same in every build. A command
/// it cannot run is answered `error MESSAGE`, and the server reads the next one.
public struct SliceServer {
    public let tool: String
    let figures: [SliceFigure]

    public init(tool: String, figures: [SliceFigure]) {
        self.tool = tool
        self.figures = figures
    }

    /// Serves until `quit` or the end of `input`. `reply` writes one line (flushed); used by tests with other streams.
    public func serve(input: () -> String? = { readLine() }, reply: (String) -> Void = SliceServer.write) {
        reply("ready " + figures.map(\.name).joined(separator: " "))
        while let line = input() {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if words == ["quit"] { return }
            reply(answer(words))
        }
    }

    /// The answer to one command line split into words.
    public func answer(_ words: [String]) -> String {
        switch words.first {
        case nil: return "error empty command; commands: run FIGURE OPERATIONS, figures, quit"
        case "figures": return "figures " + figures.map(\.name).joined(separator: " ")
        case "run":
            guard words.count == 3 else { return "error 'run' takes a figure and a number of operations: run FIGURE OPERATIONS" }
            guard let figure = figures.first(where: { $0.name == words[1] }) else {
                return "error unknown figure '\(words[1])'; one of: \(figures.map(\.name).joined(separator: ", "))"
            }
            guard let n = Int(words[2]), n > 0 else { return "error OPERATIONS must be a positive integer, not '\(words[2])'" }
            if let limit = figure.maxOperations, n > limit { return "error \(figure.name) takes at most \(limit) operations per slice" }
            do {
                try figure.prepare(n)
                let clock = ContinuousClock()
                let cpuStart = Self.cpuNanoseconds()
                let start = clock.now
                let check = try figure.run(n)
                let elapsed = start.duration(to: clock.now)
                let cpu = Self.cpuNanoseconds() - cpuStart
                let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
                return "done \(figure.name) \(n) \(n * figure.unitsPerOperation) \(nanoseconds) \(cpu) \(check)"
            } catch {
                return "error \(figure.name): \(error)".replacingOccurrences(of: "\n", with: " ")
            }
        default:
            return "error unknown command '\(words[0])'; commands: run FIGURE OPERATIONS, figures, quit"
        }
    }

    /// The CPU time of the whole process so far.
    static func cpuNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    public static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
