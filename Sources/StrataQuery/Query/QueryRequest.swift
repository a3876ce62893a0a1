/// A query bound to a transaction: narrow it with `where`, order it with `sorted`, window it with
/// `limit` and `offset`, then read the results. Every form of condition and order compiles to the
/// same ``Query`` and runs through the same planner.
///
/// ```swift
/// try store.read { tx in
///     try tx.query(User.self).where(\.lastName == "Bluth" && \.luckyNumber > 5)
///         .sorted(by: \.luckyNumber, .descending).limit(2).all()
///     try tx.query(User.self).where("lastName ==[cd] %@ AND luckyNumber == %@", "bluth", 13).all()
///     try tx.query(User.self, "ANY tags IN %@ ORDER BY lastName DESC LIMIT 10", ["vip"]).all()
///     try tx.query(User.self).where(["lastName": "Bluth", "luckyNumber": 13]).count()
///     try tx.query(User.self).sorted(by: "lastName desc,luckyNumber").explain()
/// }
/// ```
///
/// `Root` is a `Record` type, whose values the results are; or ``StoredRecord``, for the untyped
/// queries of ``ReadTransaction/query(entity:)`` that the command-line tool runs.
public struct QueryRequest<Root> {
    package let transaction: ReadTransaction
    /// The name of the entity queried.
    public let entity: String
    /// The query as built so far.
    public internal(set) var query = Query<Root>()
    /// The time limit of running this query: ``timeout(_:)``, else the store's
    /// ``Store/Configuration/queryTimeout``.
    public internal(set) var timeLimit: Duration?

    package init(transaction: ReadTransaction, entity: String, query: Query<Root> = Query()) {
        self.transaction = transaction
        self.entity = entity
        self.query = query
        timeLimit = transaction.store.configuration.queryTimeout
    }

    /// Sort directions.
    public enum Direction: Sendable {
        /// Smallest first.
        case ascending
        /// Largest first.
        case descending
    }

    // MARK: Conditions

    /// Adds a condition in the predicate format language; a trailing `ORDER BY`, `LIMIT`, `OFFSET`
    /// set the order and window. Throws `.invalidQuery` naming the problem and its column.
    public func `where`(_ format: String, _ arguments: any Sendable...) throws -> Self {
        try self.where(format, arguments: arguments)
    }

    /// As `where(_:_:)`, with the arguments as an array.
    public func `where`(_ format: String, arguments: [any Sendable]) throws -> Self {
        let parsed = try PredicateFormat.parse(format, arguments: arguments, entity: entity, known: knownFields, types: fieldTypes)
        var copy = self
        copy.query = query.filtered(by: parsed.predicate)
        if !parsed.orderings.isEmpty { copy.query.orderings = parsed.orderings }
        if let limit = parsed.limit { copy.query.limit = limit }
        if let offset = parsed.offset { copy.query.offset = offset }
        return copy
    }

    /// Adds an AND of equalities, one per entry: `["lastName": "Bluth", "luckyNumber": 13]`.
    public func `where`(_ equalities: [String: any Sendable]) throws -> Self {
        var comparisons: [QueryPredicate] = []
        let known = knownFields
        for name in equalities.keys.sorted() {
            let path = name.split(separator: ".").map(String.init)
            try known?.check(path)
            let value = try QueryValue(argument: equalities[name]!)
            let comparison = FieldComparison(field: path, op: value.isList ? .in : .equal, value: value)
            try fieldTypes?.check(comparison)
            comparisons.append(.comparison(comparison))
        }
        var copy = self
        if !comparisons.isEmpty { copy.query = query.filtered(by: comparisons.count == 1 ? comparisons[0] : .and(comparisons)) }
        return copy
    }

    // MARK: Order and window

    /// Orders by a field (after any earlier orderings). A key path that names no stored field
    /// makes the query throw `.invalidQuery` when it runs.
    public func sorted<Value>(by keyPath: KeyPath<Root, Value> & Sendable, _ direction: Direction = .ascending,
                              collation: IndexCollation = .binary) -> Self {
        var copy = self
        copy.query.orderings.append(QueryOrdering(field: KeyPathNames.components(of: keyPath), ascending: direction == .ascending,
                                                  options: collation.options))
        return copy
    }

    /// Orders by a sort string as Kern writes it: `"lastName desc,luckyNumber"`.
    public func sorted(by spec: String) throws -> Self {
        var copy = self
        copy.query.orderings += try PredicateFormat.parseSort(spec, entity: entity, known: knownFields)
        return copy
    }

    /// Orders by fields and directions, in the order given: `["lastName": .descending, "luckyNumber": .ascending]`.
    public func sorted(by fields: KeyValuePairs<String, Direction>) throws -> Self {
        var copy = self
        for (name, direction) in fields {
            copy = try copy.sorted(by: name + (direction == .descending ? " desc" : ""))
        }
        return copy
    }

    /// At most `count` records.
    public func limit(_ count: Int) -> Self {
        precondition(count >= 0, "a limit is not negative")
        var copy = self
        copy.query.limit = count
        return copy
    }

    /// Skips the first `count` records.
    public func offset(_ count: Int) -> Self {
        precondition(count >= 0, "an offset is not negative")
        var copy = self
        copy.query.offset = count
        return copy
    }

    /// Stops the query with a `.timeout` error naming the entity and how long it ran when it is
    /// still reading records `duration` after it started (nil: no limit, overriding the store's
    /// ``Store/Configuration/queryTimeout``). The limit covers the whole run, from the first
    /// record read to the last result handed on (a `forEach` body's time included); the
    /// semi-joins of relationship conditions run within it too. Checked between records and during long
    /// `CONTAINS`, `LIKE` and `MATCHES` comparisons, so a query stops soon after the limit.
    ///
    /// ```swift
    /// try tx.query(User.self).where("bio MATCHES %@", pattern).timeout(.seconds(2)).all()
    /// ```
    public func timeout(_ duration: Duration?) -> Self {
        if let duration { precondition(duration > .zero, "a query's time limit is positive") }
        var copy = self
        copy.timeLimit = duration
        return copy
    }

    /// Makes the planner use the index named `name` where it can (a hint, for diagnosis); a
    /// full-text index goes by its name too (`title,body`).
    public func using(index name: String) -> Self {
        var copy = self
        copy.query.indexHint = name
        return copy
    }

    /// The queried entity as this transaction sees it, or nil when the store has none.
    package func resolvedContext() throws -> EntityContext? {
        if let type = Root.self as? any Record.Type { return try transaction.context(for: type) }
        return try transaction.context(named: entity)
    }

    /// The field paths conditions and orderings may name (``KnownFields``): stored fields, the
    /// entity's description, a record type's own fields, relationships; nil when the store has
    /// no such entity yet, so that nothing is checked.
    package var knownFields: KnownFields? {
        guard let context = (try? resolvedContext()) ?? nil else { return nil }
        return transaction.knownFields(of: context, adding: (Root.self as? any Record.Type).flatMap { EntityDescription.probed($0) })
    }

    /// The field types conditions are checked against: a record type's own, else the entity's
    /// (``ReadTransaction/fieldTypes(of:)``); nil when the store has no such entity: nothing is
    /// checked.
    package var fieldTypes: FieldTypes? {
        if let type = Root.self as? any Record.Type { return FieldTypes.of(type) }
        guard let context = (try? resolvedContext()) ?? nil else { return nil }
        return transaction.fieldTypes(of: context)
    }
}

extension QueryRequest where Root: Record {
    package init(transaction: ReadTransaction, query: Query<Root> = Query()) {
        self.init(transaction: transaction, entity: transaction.store.entityName(of: Root.self), query: query)
    }

    /// Adds a condition written with key paths. A key path that names no stored field (a
    /// computed property, a property renamed by `CodingKeys`) makes the query throw
    /// `.unknownField` when it runs, with the field it most likely meant.
    public func `where`(_ predicate: TypedPredicate<Root>) -> Self {
        var copy = self
        copy.query = query.filtered(by: predicate.tree)
        return copy
    }
}

extension QueryValue {
    package var isList: Bool { if case .list = self { true } else { false } }
}

extension ReadTransaction {
    /// A query over every record of `type`, to narrow, order and read.
    public func query<T: Record>(_ type: T.Type) -> QueryRequest<T> {
        checkOpen()
        return QueryRequest(transaction: self)
    }

    /// A query from a format string with a predicate and optional `ORDER BY`, `LIMIT`, `OFFSET`.
    public func query<T: Record>(_ type: T.Type, _ format: String, _ arguments: any Sendable...) throws -> QueryRequest<T> {
        try query(type).where(format, arguments: arguments)
    }
}
