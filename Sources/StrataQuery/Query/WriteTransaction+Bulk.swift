/// Bulk writes: delete or change every record a query matches, in this transaction.
///
/// ```swift
/// try store.write { tx in
///     let gone = try tx.deleteAll(User.self, where: \.luckyNumber == nil)          // 2
///     try tx.deleteAll(User.self, where: "lastName ==[cd] %@", "bluth")
///     let lucky = try tx.updateAll(User.self, where: \.lastName == "Bluth") { $0.luckyNumber = 7 }
///     try tx.deleteAll(tx.query(User.self).sorted(by: \.luckyNumber).limit(10))    // the ten least lucky
/// }
/// ```
///
/// Each first collects the primary keys of the matches (the query runs to completion and its
/// cursors close), then writes record by record through `delete` or `upsert`, so indexes stay in
/// step by the ordinary write path and no cursor walks a database while it changes. Like every
/// write, a throw rolls the whole transaction back (or only a ``savepoint(_:)`` around the call).
extension WriteTransaction {
    /// Deletes every record of `type` meeting `predicate`; returns how many were deleted.
    @discardableResult
    public func deleteAll<T: Record>(_ type: T.Type, where predicate: TypedPredicate<T>) throws -> Int {
        try deleteAll(query(type).where(predicate))
    }

    /// Deletes every record of `type` meeting a condition in the predicate format language (which
    /// may end in `ORDER BY`, `LIMIT`, `OFFSET`); returns how many were deleted.
    @discardableResult
    public func deleteAll<T: Record>(_ type: T.Type, where format: String, _ arguments: any Sendable...) throws -> Int {
        try deleteAll(query(type).where(format, arguments: arguments))
    }

    /// Deletes exactly the records `request` returns (with its order, offset and limit); returns
    /// how many were deleted. The request must come from this transaction.
    @discardableResult
    public func deleteAll<T: Record>(_ request: QueryRequest<T>) throws -> Int {
        precondition(request.transaction === self, "deleteAll(_:) needs a query of the same write transaction")
        try prepareBulkWrite(T.self)
        let keys = try request.ids()
        var deleted = 0
        for key in keys where try delete(T.self, key: key) { deleted += 1 }
        return deleted
    }

    /// Applies `change` to every record of `type` meeting `predicate` and stores the result;
    /// returns how many records matched (a change that leaves a record equal writes nothing).
    /// `change` must not alter the primary key: that throws `.invalidValue`.
    @discardableResult
    public func updateAll<T: Record>(_ type: T.Type, where predicate: TypedPredicate<T>,
                                     _ change: (inout T) throws -> Void) throws -> Int {
        try updateAll(query(type).where(predicate), change)
    }

    /// As ``updateAll(_:where:_:)-(_,TypedPredicate<T>,_)`` with a condition in the predicate format language.
    @discardableResult
    public func updateAll<T: Record>(_ type: T.Type, where format: String, _ arguments: any Sendable...,
                                     change: (inout T) throws -> Void) throws -> Int {
        try updateAll(query(type).where(format, arguments: arguments), change)
    }

    /// Applies `change` to exactly the records `request` returns and stores the results; returns
    /// how many there were. The request must come from this transaction.
    @discardableResult
    public func updateAll<T: Record>(_ request: QueryRequest<T>, _ change: (inout T) throws -> Void) throws -> Int {
        precondition(request.transaction === self, "updateAll(_:_:) needs a query of the same write transaction")
        try prepareBulkWrite(T.self)
        let keys = try request.ids()
        guard let context = try context(for: T.self) else { return 0 }
        var updated = 0
        for key in keys {
            let storedKey = try recordKey(key, entity: context.name)
            guard var record = try record(T.self, storedKey: storedKey, context) else { continue }
            try change(&record)
            guard record.primaryKeyValue == key else {
                throw StrataError(.invalidValue,
                    "\(context.name): updateAll changed the primary key of the record with key \(key) to \(record.primaryKeyValue); insert a new record and delete the old one instead",
                    entity: context.name, field: T.primaryKeyName, key: String(describing: key))
            }
            try upsert(record)
            updated += 1
        }
        return updated
    }

    /// Brings the entity's indexes in line with the declared ones before the query runs, so that
    /// the writes that follow do not rebuild them under the collected keys.
    private func prepareBulkWrite<T: Record>(_ type: T.Type) throws {
        guard let context = try context(for: type) else { return }
        try migrateIndexes(type, context)
    }
}
