extension Store {
    /// The records of `type` that `query` selects, now and after every commit that changes them.
    ///
    /// A commit is looked at only when it wrote `type`'s entity (or, for a query through
    /// relationships, any entity), and re-read only when a record it changed was in the last
    /// result or matches the query now (when the changed keys are known; an import or a change
    /// from another process re-reads). A re-read whose result equals the last is not delivered.
    ///
    /// ```swift
    /// for try await page in store.observe(User.self, { $0.where("lastName == %@", "Bluth").sorted(by: "luckyNumber desc").limit(10) }) { … }
    /// ```
    public func observe<T: Record & Equatable>(
        _ type: T.Type, _ query: @escaping @Sendable (QueryRequest<T>) throws -> QueryRequest<T> = { $0 }
    ) -> Observation<[T]> {
        let entity = entityName(of: type)
        let lastKeys = LastKeys()
        return observe(relevant: { _ in true }) { tx, changes in
            let request = try query(tx.query(type))
            if let changes, try !tx.mayChange(request, entity: entity, changes: changes, lastKeys: lastKeys.keys) { return nil }
            let records = try request.all()
            lastKeys.keys = Set(records.map(\.primaryKeyValue.orderedKey))
            return records
        }
    }

    /// The record of `type` with primary key `key` (nil while there is none), now and after every
    /// commit that writes or deletes it.
    public func observe<T: Record & Equatable>(_ type: T.Type, key: T.PrimaryKey) -> Observation<T?> {
        let entity = entityName(of: type)
        let storedKey = key.orderedKey
        return observe(relevant: { changes in
            guard !changes.isExternal else { return true }
            switch changes.entities[entity] {
            case .all?: return true
            case .some(let keys)?: return keys.contains(storedKey)
            case nil: return false
            }
        }) { tx, _ in .some(try tx.get(type, key: key)) }
    }

    /// The number of records of `type` that `query` selects, now and whenever it changes.
    public func observeCount<T: Record>(
        _ type: T.Type, _ query: @escaping @Sendable (QueryRequest<T>) throws -> QueryRequest<T> = { $0 }
    ) -> Observation<Int> {
        let entity = entityName(of: type)
        return observe(relevant: { _ in true }) { tx, changes in
            let request = try query(tx.query(type))
            // Untouched entity and no relationship in the condition: the count cannot have changed.
            if let changes, !changes.touches(entity), let context = try tx.context(for: type),
               request.query.predicate.fieldNames.isSubset(of: Set(context.schema.fields.names.values)) {
                return nil
            }
            return try request.count()
        }
    }

    /// Anything read from the store (an aggregate, a join by hand), now and whenever it changes:
    /// `read` runs after every commit that touches one of `entities` (every commit when empty),
    /// and a value equal to the last is not delivered.
    public func observe<Value: Sendable & Equatable>(
        entities: [String] = [], _ read: @escaping @Sendable (ReadTransaction) throws -> Value
    ) -> Observation<Value> {
        observe(relevant: { changes in entities.isEmpty || entities.contains(where: changes.touches) }) { tx, _ in try read(tx) }
    }

    /// An observation driven by `fetch`, registered with the store's observers until the
    /// consumer stops.
    func observe<Value: Sendable & Equatable>(
        relevant: @escaping @Sendable (ChangeSet) -> Bool, fetch: @escaping ObservationDriver<Value>.Fetch
    ) -> Observation<Value> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let driver = ObservationDriver(store: self, relevant: relevant, fetch: fetch, continuation: continuation)
        let id = observers.add { changes in driver.notice(changes) }
        continuation.onTermination = { [observers] _ in
            driver.finish()
            observers.remove(id)
        }
        driver.start()
        return Observation(stream: stream, reads: { driver.reads.load(ordering: .relaxed) })
    }
}

/// The stored keys of an observed query's last result, kept between reads (one read at a time).
private final class LastKeys: @unchecked Sendable {
    // @unchecked: read and written only by the driver's reads, which never overlap.
    var keys: Set<[UInt8]> = []
}

extension ReadTransaction {
    /// Whether a commit with `changes` may have changed `request`'s result: false only when the
    /// changed keys of its entity are known, none was in the last result, none matches the query
    /// now, the query names no relationship, and no other entity was touched that it could read.
    func mayChange<T>(_ request: QueryRequest<T>, entity: String, changes: ChangeSet, lastKeys: Set<[UInt8]>) throws -> Bool {
        guard !changes.isExternal else { return true }
        guard let context = try context(named: entity) else { return changes.touches(entity) }
        let names = Set(context.schema.fields.names.values)
        let usesRelationships = !request.query.predicate.fieldNames.isSubset(of: names)
        if usesRelationships { return true }
        guard let keys = changes.entities[entity] else { return false }
        guard case .some(let changed) = keys else { return true }
        let predicate = request.query.predicate
        for key in changed {
            if lastKeys.contains(key) { return true }
            guard let bytes = try lmdb(entity: entity, { try raw.value(forKey: key, in: context.records) }) else { continue }
            if predicate.evaluate(on: try StoredFieldValues(bytes: bytes, fields: context.schema.fields, entity: entity)) { return true }
        }
        return false
    }
}

extension QueryPredicate {
    /// The first components of the field paths it compares.
    var fieldNames: Set<String> {
        switch self {
        case .constant: []
        case .comparison(let comparison): comparison.field.first.map { [$0] } ?? []
        case .and(let operands), .or(let operands): operands.reduce(into: Set<String>()) { $0.formUnion($1.fieldNames) }
        case .not(let operand): operand.fieldNames
        }
    }
}
