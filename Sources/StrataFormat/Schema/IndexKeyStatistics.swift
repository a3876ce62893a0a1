/// What the planner knows about the keys of one compound index beyond what LMDB counts cheaply:
/// how many distinct values its leading field and its whole keys have, and the leading values
/// holding the most entries, counted exactly. With them an estimate of `lastName == ?` over an
/// index of `(lastName, luckyNumber)` sees skew (a value holding a third of the records next to
/// values holding a handful) where an interpolation between the index's first and last keys
/// cannot.
///
/// Kept in the entity's catalog entry (``EntitySchema/statistics``) and taken again by the
/// write transaction that leaves the index's entry count more than a quarter away from theirs
/// (``isCurrent(entries:)``), before it commits: the writes keep them, no command is needed.
/// Only compound indexes whose leading field has no single-field index of its own have them
/// (that index counts a value's entries exactly), and only from ``minimumEntries`` entries on.
package struct IndexKeyStatistics: Encodable, Equatable, Sendable {
    /// The index's fields (paths and collations) when taken: an index redefined under the same
    /// name does not inherit them.
    package var fields: [IndexedField]
    /// Entries of the index when taken.
    package var entries: Int
    /// Distinct values of the leading field.
    var distinctLeading: Int
    /// Distinct whole keys.
    var distinctKeys: Int
    /// The leading values holding at least 1/``frequentShare`` of the entries, most first, at most
    /// ``frequentLimit``: their stored keys (the leading field's part) and entries.
    package var frequent: [Frequent]

    package struct Frequent: Encodable, Equatable, Sendable {
        package var key: [UInt8]
        package var entries: Int

        package init(key: [UInt8], entries: Int) {
            self.key = key
            self.entries = entries
        }
    }

    package init(fields: [IndexedField], entries: Int, distinctLeading: Int, distinctKeys: Int, frequent: [Frequent]) {
        self.fields = fields
        self.entries = entries
        self.distinctLeading = distinctLeading
        self.distinctKeys = distinctKeys
        self.frequent = frequent
    }

    /// Indexes with fewer entries have no statistics.
    package static var minimumEntries: Int { 1_000 }
    /// A leading value is frequent from this fraction of the entries on (1/n).
    package static var frequentShare: Int { 100 }
    /// The most frequent values kept.
    package static var frequentLimit: Int { 32 }

    /// True while the index's entry count is within a quarter of the one they were taken at.
    package func isCurrent(entries now: Int) -> Bool {
        let drift = abs(now - entries)
        return drift * 4 <= max(entries, 1)
    }

    /// The counted entries of the leading value whose stored key is `key` when it is among
    /// ``frequent``; nil otherwise.
    package func frequentEntries(_ key: [UInt8]) -> Int? {
        frequent.first(where: { $0.key == key })?.entries
    }

    /// The entries of the leading value whose stored key is `key`: counted when it is frequent,
    /// otherwise the average over the values that are not (never more than the least frequent
    /// value kept, when the list is full).
    package func leadingEntries(_ key: [UInt8]) -> Int {
        if let counted = frequentEntries(key) { return counted }
        let rest = entries - frequent.reduce(0) { $0 + $1.entries }
        let values = distinctLeading - frequent.count
        guard values > 0 else { return 0 }
        var average = max(1, Int((Double(rest) / Double(values)).rounded(.up)))
        if frequent.count == Self.frequentLimit, let least = frequent.last { average = min(average, least.entries) }
        return average
    }

    /// The most entries a leading value not among ``frequent`` had when they were taken: the
    /// least frequent value's when the list is full (a value with more would have displaced it),
    /// else one less than the 1/``frequentShare`` of the entries from which a value is kept.
    package var rareCeiling: Int {
        if frequent.count == Self.frequentLimit, let least = frequent.last { return least.entries }
        return max(2, entries / Self.frequentShare) - 1
    }

    /// The fraction of a leading value's entries with one value of the next field, on average
    /// (for a two-field index: one key of the value's keys).
    package var nextFieldSelectivity: Double {
        guard distinctKeys > 0 else { return 1 }
        return min(1, Double(distinctLeading) / Double(distinctKeys))
    }
}
