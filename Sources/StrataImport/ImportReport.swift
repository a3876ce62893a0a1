/// What an import did.
///
/// `print(report)` gives one line:
/// `inserted 9,812 · updated 120 · unchanged 68 · deleted 3 · skipped 2 (record 17: 'lucky_number' is "seven", expected an integer) · 0.41 s`
public struct ImportReport: Sendable, CustomStringConvertible {
    /// The entity imported into.
    public var entity: String
    /// Records read from the payload (including skipped ones and duplicates).
    public var records = 0
    /// Records the payload added (their key was not stored).
    public var inserted = 0
    /// Stored records whose bytes changed.
    public var updated = 0
    /// Stored records the payload held exactly as stored: not rewritten, indexes not touched.
    public var unchanged = 0
    /// Records deleted by a sync.
    public var deleted = 0
    /// Records that could not be mapped, left out under ``ImportOptions/ErrorPolicy/skip``.
    public var skipped = 0
    /// New records not inserted, existing ones not updated, missing ones not deleted, because
    /// ``ImportOptions`` turned the operation off.
    public var notInserted = 0, notUpdated = 0, notDeleted = 0
    /// Records whose primary key occurred earlier in the payload: the last occurrence wins.
    public var duplicates = 0
    /// The first few duplicated primary keys, as the JSON wrote them.
    public var duplicateKeys: [String] = []
    /// JSON keys that map to no field, with how often they occurred.
    public var ignoredKeys: [String: Int] = [:]
    /// What the import did to the records of related entities, by entity name, when the JSON
    /// nested them (`"notes": [{…}]`) or linked them by key (`"notes_ids": [1, 2]`).
    public var related: [String: RelatedImportCounts] = [:]
    /// The errors of the skipped records (the first 100; ``skipped`` counts them all).
    public var failures: [StrataError] = []
    /// Nothing was committed (``ImportOptions/dryRun``).
    public var dryRun = false
    /// Write transactions committed (1 unless ``ImportOptions/batchSize`` is set; 0 for a dry run).
    public var transactions = 0
    /// Wall-clock time of the import, in seconds.
    public var seconds = 0.0

    /// An empty report for an import into `entity`.
    public init(entity: String) { self.entity = entity }

    public var description: String {
        var parts = ["inserted \(Self.grouped(inserted))", "updated \(Self.grouped(updated))",
                     "unchanged \(Self.grouped(unchanged))", "deleted \(Self.grouped(deleted))"]
        var skippedText = "skipped \(Self.grouped(skipped))"
        if !failures.isEmpty {
            skippedText += " (" + failures.prefix(3).map(\.message).joined(separator: "; ")
                + (skipped > 3 ? "; …" : "") + ")"
        }
        parts.append(skippedText)
        if duplicates > 0 {
            parts.append("\(Self.grouped(duplicates)) duplicate keys, last occurrence won (\(duplicateKeys.prefix(5).joined(separator: ", "))\(duplicates > 5 ? ", …" : ""))")
        }
        if notInserted + notUpdated + notDeleted > 0 {
            parts.append("left alone: \(notInserted) new, \(notUpdated) changed, \(notDeleted) missing")
        }
        for (entity, counts) in related.sorted(by: { $0.key < $1.key }) { parts.append("\(entity): \(counts)") }
        if !ignoredKeys.isEmpty {
            parts.append("ignored keys " + ignoredKeys.sorted { $0.key < $1.key }.prefix(5).map { "\($0.key) ×\(Self.grouped($0.value))" }.joined(separator: ", "))
        }
        if dryRun { parts.append("dry run, nothing written") }
        parts.append(String(format: "%.2f s", seconds))
        return parts.joined(separator: " · ")
    }

    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }
}

import Foundation
