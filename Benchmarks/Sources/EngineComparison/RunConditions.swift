import Foundation

/// What else the machine did while a benchmark ran, so that a reader can tell a quiet run from a
/// contended one: Strata decodes on both cores, GRDB works on one, so another process taking a
/// core moves the two engines' figures differently.
///
/// Read from Linux's `/proc/stat` (every process's CPU time and the hypervisor's steal, in clock
/// ticks) and this process's own CPU time (`getrusage`), at the start and at the end.
///
/// ```swift
/// let conditions = RunConditions()
/// … measure …
/// print(conditions.summary())   // "machine during the run (41.2 s): this process 1.31 cores, other processes 0.02, steal 0.0 %, 2 cores, CPUs allowed 0-1"
/// ```
///
/// Runs are made both on every core and pinned to one (`taskset -c 0 …`); the summary names the
/// CPUs the process was allowed (Linux's `Cpus_allowed_list`), so the two kinds of output cannot be mixed up.
public struct RunConditions: Sendable {
    private let started: Date
    private let machine: MachineTicks?
    private let ownSeconds: Double

    public init() {
        started = Date()
        machine = MachineTicks.read()
        ownSeconds = Self.processCPUSeconds()
    }

    /// One line: the run's wall time, the cores this process and all others kept busy on average,
    /// and the share of time the hypervisor gave to other guests (steal); "not known" off Linux.
    public func summary() -> String {
        let wall = Date().timeIntervalSince(started)
        let own = Self.processCPUSeconds() - ownSeconds
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard let before = machine, let after = MachineTicks.read(), wall > 0 else {
            return String(format: "machine during the run (%.1f s): this process %.2f cores; other processes not known (no /proc/stat)", wall, own / wall)
                + Self.allowedCPUs()
        }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let busy = Double(after.busy - before.busy) / ticksPerSecond
        let steal = Double(after.steal - before.steal) / ticksPerSecond
        let total = Double(after.total - before.total) / ticksPerSecond
        let others = max(0, busy - own)
        return String(format: "machine during the run (%.1f s): this process %.2f cores, other processes %.2f, steal %.1f %%, %d cores",
                      wall, own / wall, others / wall, total > 0 ? 100 * steal / total : 0, cores)
            + Self.allowedCPUs()
    }

    /// ", CPUs allowed 0-1", or ", CPUs allowed 0 (1 of 2 cores: pinned, as by `taskset -c 0`)";
    /// empty where Linux's `/proc/self/status` is missing.
    static func allowedCPUs() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return "" }
        let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        let allowed = list.split(separator: ",").reduce(0) { count, range in
            let bounds = range.split(separator: "-").compactMap { Int($0) }
            return count + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : 1)
        }
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return allowed < online ? ", CPUs allowed \(list) (\(allowed) of \(online) cores: pinned, as by `taskset -c \(list)`)" : ", CPUs allowed \(list)"
    }

    /// This process's CPU time and that of its children it waited for (an engine run in a child process counts as its own).
    private static func processCPUSeconds() -> Double {
        func seconds(_ who: Int32) -> Double {
            var usage = rusage()
            getrusage(who, &usage)
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1_000_000
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1_000_000
        }
        return seconds(Int32(RUSAGE_SELF.rawValue)) + seconds(Int32(RUSAGE_CHILDREN.rawValue))
    }
}

/// The first line of `/proc/stat`: every CPU's time since boot, in clock ticks.
private struct MachineTicks: Sendable {
    /// user + nice + system + irq + softirq (time some process or the kernel ran).
    var busy: UInt64
    var steal: UInt64
    /// Every field: busy, idle, I/O wait and steal.
    var total: UInt64

    static func read() -> MachineTicks? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let fields = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 8 else { return nil }
        // user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice]
        return MachineTicks(busy: fields[0] + fields[1] + fields[2] + fields[5] + fields[6], steal: fields[7],
                            total: fields[0...7].reduce(0, +))
    }
}
