import EngineComparison
import Foundation

/// A rate, or "–" when there is none (an engine that did not run).
func rate(_ value: Double?) -> String { value.map { $0.isFinite ? grouped($0) : "–" } ?? "–" }

/// A ratio as "1.23×", or "–" when either side did not run.
func times(_ value: Double) -> String { value.isFinite ? String(format: "%.2f×", value) : "–" }

/// One Markdown table row of `cells`.
func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }

/// `|` would end a Markdown table cell.
func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

func microseconds(_ seconds: Double?) -> String {
    guard let seconds, seconds.isFinite else { return "–" }
    return seconds >= 0.01 ? String(format: "%.0f", seconds * 1e6) : String(format: "%.1f", seconds * 1e6)
}

extension QueryComparisonResult {
    /// The settings line of every engine that ran, to print above each table.
    public var settingsHeader: String {
        EngineComparison.settingsHeader(engines.map { ($0.name, settings[$0] ?? "") })
    }

    /// | query shape | <engine> (queries/s)… | Strata / SQLite-C | Strata / GRDB pool NORMAL | Strata plan |:
    /// the upsert row first (records/s), then the shapes, then the medians of the shapes' ratios.
    /// The two ratio columns are always there ("–" for an engine that did not run), so that a
    /// Strata-only run still has the shape's Strata figure in its second cell (`tools/ab-bench`).
    public var markdownTable: String {
        let peers = Self.ratioPeers
        var header: [String] = ["query shape"]
        header += engines.map { "\($0.name) (queries/s)" }
        header += peers.map { "Strata / \($0.name)" }
        header.append("Strata plan")
        var lines = [row(header), "| --- |" + String(repeating: " ---: |", count: engines.count + peers.count) + " --- |"]
        var upsert: [String] = ["upsert all \(grouped(Double(count))), one write transaction, \(QueryIndexes.columns.count) indexes (records/s)"]
        upsert += engines.map { rate(upsertPerSecond[$0]) }
        upsert += peers.map { peer -> String in times((upsertPerSecond[.strata] ?? .nan) / (upsertPerSecond[peer] ?? .nan)) }
        upsert.append("")
        lines.append(row(upsert))
        for s in shapes {
            var cells: [String] = ["`\(s.shape.rawValue)`"]
            cells += engines.map { rate(s.queriesPerSecond[$0]) }
            cells += peers.map { times(s.ratio(to: $0)) }
            cells.append("`\(cell(s.strataPlan))`")
            lines.append(row(cells))
        }
        var medians: [String] = ["**median of the \(shapes.count) query shapes' ratios**"]
        medians += engines.map { _ in "" }
        medians += peers.map { "**\(times(medianRatio(to: $0)))**" }
        medians.append("")
        lines.append(row(medians))
        return lines.joined(separator: "\n")
    }

    /// Median latency per query and engine, Strata's planning time, rows per query, the index each
    /// shape is given, the SQL and SQLite's plan (GRDB's too where it differs from SQLite-C's).
    public var detailsTable: String {
        let others = engines.filter { $0 != .strata }
        var header: [String] = ["query shape", "Strata median (µs)", "of which planning (µs)"]
        header += others.map { "\($0.name) median (µs)" }
        header += ["rows/query (avg)", "queries timed (Strata)", "index", "SQL", "SQLite plan"]
        var lines = [row(header), "| --- |" + String(repeating: " ---: |", count: 4 + others.count) + " --- | --- | --- |"]
        for s in shapes {
            var plan = s.sqlitePlan.isEmpty ? s.grdbPlan : s.sqlitePlan
            if !s.sqlitePlan.isEmpty, !s.grdbPlan.isEmpty, s.grdbPlan != s.sqlitePlan { plan += " (GRDB: \(s.grdbPlan))" }
            var cells: [String] = ["`\(s.shape.rawValue)`", microseconds(s.medianSeconds[.strata]), microseconds(s.strataPlanningSeconds)]
            cells += others.map { microseconds(s.medianSeconds[$0]) }
            cells.append(String(format: "%.1f", s.averageRows) + (s.shape.isCount ? " (count)" : ""))
            cells.append("\(s.timedQueries[.strata] ?? 0)")
            cells += [s.shape.index, "`\(cell(QuerySQL.display(s.shape)))`", cell(plan)]
            lines.append(row(cells))
        }
        return lines.joined(separator: "\n")
    }
}
