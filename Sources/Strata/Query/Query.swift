/// What to fetch from one entity: a predicate, an order, a window, an optional index hint.
///
/// An immutable value, independent of any transaction (the "what"); the planner turns it into a
/// ``QueryPlan`` (the "how"). Every query form — key paths, format strings, dictionaries, sort
/// strings — produces one of these.
///
/// `Root` names the record type for type checking only; the command-line tool's untyped queries
/// (`EntityQuery`) use ``StoredRecord``.
public struct Query<Root>: Sendable, Hashable {
    /// The condition records must meet; `.constant(true)` for all records.
    public var predicate: QueryPredicate = .constant(true)
    /// Sort keys, most significant first; primary key order when empty.
    public var orderings: [QueryOrdering] = []
    /// At most this many records, after `offset`.
    public var limit: Int?
    /// Records skipped before the first one returned.
    public var offset: Int = 0
    /// The name of an index the planner must use when it can (for diagnosis and benchmarks).
    public var indexHint: String?
    /// True when the results may come in any order (no orderings given): the planner then
    /// neither sorts nor merges by primary key. What a relationship's semi-join asks for, since
    /// it only collects keys.
    var anyOrder = false

    /// A query with no predicate, orderings, limit or offset: every record in primary key order.
    public init() {}

    /// This query with `predicate` added to its condition (AND).
    public func filtered(by predicate: QueryPredicate) -> Self {
        var copy = self
        switch (copy.predicate, predicate) {
        case (.constant(true), _): copy.predicate = predicate
        case (_, .constant(true)): break
        case (.and(let left), .and(let right)): copy.predicate = .and(left + right)
        case (.and(let left), _): copy.predicate = .and(left + [predicate])
        default: copy.predicate = .and([copy.predicate, predicate])
        }
        return copy
    }
}
