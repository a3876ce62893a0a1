/// One aggregate of a field over a group of records: `count`, or `min`, `max`, `sum`, `average`
/// of a field, named by key path or by stored field name.
///
/// ```swift
/// let groups = try tx.query(User.self)
///     .group(by: \.lastName, aggregating: .average(\.luckyNumber), .max(\.luckyNumber))
///     .having { $0.count > 1 }
/// groups.first?.average(\.luckyNumber)   // 11.67 for the Bluths (3 of 5 have a lucky number)
/// ```
///
/// Nil (and absent) values are skipped by `min`, `max`, `sum` and `average`, as in SQL; `count`
/// counts records.
public struct Aggregate<Root>: Sendable, Hashable, CustomStringConvertible {
    /// What an aggregate computes.
    public typealias Function = AggregateFunction

    /// What the aggregate computes.
    public let function: Function
    /// The stored field path; empty for `count`.
    public let field: [String]

    package init(_ function: Function, _ field: [String]) {
        self.function = function
        self.field = field
    }

    /// The number of records in the group.
    public static var count: Self { Self(.count, []) }

    /// The smallest non-nil value of the field, in the order queries sort values.
    public static func min<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> Self { Self(.min, KeyPathNames.components(of: keyPath)) }
    /// The largest non-nil value of the field.
    public static func max<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> Self { Self(.max, KeyPathNames.components(of: keyPath)) }
    /// The sum of the non-nil values of a numeric field (`.int` while it fits in Int64, else `.double`).
    public static func sum<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> Self { Self(.sum, KeyPathNames.components(of: keyPath)) }
    /// The mean of the non-nil values of a numeric field, as a double.
    public static func average<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> Self { Self(.average, KeyPathNames.components(of: keyPath)) }

    /// As ``min(_:)-swift.type.method``, with the field by stored name (`"address.zip"`).
    public static func min(_ field: String) -> Self { Self(.min, Self.path(field)) }
    /// As ``max(_:)-swift.type.method``, with the field by stored name (`"address.zip"`).
    public static func max(_ field: String) -> Self { Self(.max, Self.path(field)) }
    /// As ``sum(_:)-swift.type.method``, with the field by stored name.
    public static func sum(_ field: String) -> Self { Self(.sum, Self.path(field)) }
    /// As ``average(_:)-swift.type.method``, with the field by stored name.
    public static func average(_ field: String) -> Self { Self(.average, Self.path(field)) }

    package static func path(_ field: String) -> [String] { field.split(separator: ".").map(String.init) }

    /// `count`, `min(luckyNumber)`, …
    public var description: String {
        function == .count ? "count" : "\(function.rawValue)(\(field.joined(separator: ".")))"
    }
}

/// What an ``Aggregate`` computes.
public enum AggregateFunction: String, Sendable, Hashable {
    /// The record count; the smallest, largest, sum and mean of a field's non-nil values.
    case count, min, max, sum, average
}

/// One group of ``QueryRequest/group(by:aggregating:)->AggregateGroups<Root,Key>``: the records
/// sharing a value of the grouping field, with their count and the aggregates asked for.
public struct AggregateGroup<Root, Key: Sendable>: Sendable {
    /// The grouping field's value (nil for the records without one, when the field is optional).
    public let key: Key
    /// The number of records in the group.
    public let count: Int
    package let aggregates: [Aggregate<Root>]
    package let values: [QueryValue?]

    /// The value of `aggregate` in this group: nil when it was not asked for or no record of the
    /// group has a non-nil value of its field. `count` is always available, as `.int`.
    public subscript(_ aggregate: Aggregate<Root>) -> QueryValue? {
        if aggregate.function == .count { return .int(Int64(count)) }
        guard let position = aggregates.firstIndex(of: aggregate) else { return nil }
        return values[position]
    }

    /// The group's `min` of the field (asked for with `.min(keyPath)`).
    public func min<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> QueryValue? { self[.min(keyPath)] }
    /// The group's `max` of the field (asked for with `.max(keyPath)`).
    public func max<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> QueryValue? { self[.max(keyPath)] }
    /// The group's `sum` of the field (asked for with `.sum(keyPath)`).
    public func sum<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> QueryValue? { self[.sum(keyPath)] }
    /// The group's `average` of the field (asked for with `.average(keyPath)`).
    public func average<V>(_ keyPath: KeyPath<Root, V> & Sendable) -> Double? {
        if case .double(let mean)? = self[.average(keyPath)] { return mean }
        return nil
    }

    package func withKey<Other>(_ key: Other) -> AggregateGroup<Root, Other> {
        AggregateGroup<Root, Other>(key: key, count: count, aggregates: aggregates, values: values)
    }
}

/// The groups of a grouping query, ordered by key (nil first, then in the order queries sort values).
///
/// ```swift
/// let crowded = try tx.query(User.self).group(by: \.lastName).having { $0.count > 1 }
/// crowded.map(\.key)               // ["Bluth"]
/// crowded.group(for: "Bluth")?.count
/// ```
public struct AggregateGroups<Root, Key: Sendable>: RandomAccessCollection, Sendable {
    /// The groups, ordered by key.
    public let groups: [AggregateGroup<Root, Key>]
    /// How the groups were computed (index keys or records); for tests and diagnosis.
    package let source: AggregateSource

    public var startIndex: Int { groups.startIndex }
    public var endIndex: Int { groups.endIndex }
    public subscript(position: Int) -> AggregateGroup<Root, Key> { groups[position] }

    /// The groups whose aggregates meet `condition` (SQL's `HAVING`).
    public func having(_ condition: (AggregateGroup<Root, Key>) throws -> Bool) rethrows -> Self {
        Self(groups: try groups.filter(condition), source: source)
    }
}

extension AggregateGroups where Key: Equatable {
    /// The group with this key, or nil.
    public func group(for key: Key) -> AggregateGroup<Root, Key>? { groups.first { $0.key == key } }
}

/// Where an aggregate's answer came from, so that tests can tell the index-only paths from the
/// record path: its ``description`` is one line such as `IndexCount(User.luckyNumber)`,
/// `IndexEnds(User.luckyNumber)`, `IndexGroups(User.luckyNumber)`, `RecordCount(User)` or
/// `Records(<the query plan>)`.
package struct AggregateSource: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable { case recordCount = "RecordCount", indexCount = "IndexCount", indexEnds = "IndexEnds",
                                      indexGroups = "IndexGroups", records = "Records" }
    package let kind: Kind
    package let detail: String

    package var usesIndexOnly: Bool { kind != .records }
    package var description: String { "\(kind.rawValue)(\(detail))" }
}
