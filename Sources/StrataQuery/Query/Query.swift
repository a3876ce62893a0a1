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
    /// At most this many records, after `offset`. A limit above ``maximumWindow`` is kept as
    /// that (more records than any store holds), so that `offset + limit` cannot overflow.
    public var limit: Int? {
        didSet { if let limit, limit > Self.maximumWindow { self.limit = Self.maximumWindow } }
    }
    /// Records skipped before the first one returned; above ``maximumWindow``, kept as that.
    public var offset: Int = 0 {
        didSet { if offset > Self.maximumWindow { offset = Self.maximumWindow } }
    }
    /// The largest limit and offset a query keeps: a quarter of `Int.max` (more records than any
    /// store holds), so that the planner's and the executor's `offset + limit`, and the top-k's
    /// buffer of twice that, never overflow, whatever a caller or a tool's option gives.
    public static var maximumWindow: Int { Int.max / 4 }
    /// The name of an index the planner must use when it can (for diagnosis and benchmarks).
    public var indexHint: String?
    /// True when the results may come in any order (no orderings given): the planner then
    /// neither sorts nor merges by primary key. What a relationship's semi-join asks for, since
    /// it only collects keys.
    var anyOrder = false
    /// True when the caller reads only the results' primary keys (`count()`, `exists()`,
    /// `ids()`): an access path that answers the whole predicate by itself then costs its index
    /// entries, not its records (``QueryExecutor/answersFromKeys``).
    var keysOnly = false

    /// A query with no predicate, orderings, limit or offset: every record in primary key order.
    public init() {}

    /// The same query with another root type. The planner takes queries as `Query<Void>`: it
    /// needs no record type, and so runs as concrete code whatever the caller's type.
    package func retyped<Other>(as other: Other.Type = Other.self) -> Query<Other> {
        var copy = Query<Other>()
        copy.predicate = predicate
        copy.orderings = orderings
        copy.limit = limit
        copy.offset = offset
        copy.indexHint = indexHint
        copy.anyOrder = anyOrder
        copy.keysOnly = keysOnly
        return copy
    }

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
