@_spi(Format) import StrataFormat
import LMDB

extension Store {
    /// The records of `type` that `query` selects, now and after every commit that changes them.
    ///
    /// A commit is looked at only when it wrote `type`'s entity (or, for a query through
    /// relationships, any entity), and re-read only when a record it changed was in the last
    /// result or matches the query now (when the changed keys are known; an import or a change
    /// from another process re-reads): a change outside the condition's range (say a record
    /// updated from `luckyNumber` 3 to 4 under `luckyNumber > 10`) costs no read. A query with
    /// an offset re-reads after every change of its entity (a record before the page may have
    /// left it). A re-read whose result equals the last is not delivered.
    ///
    /// ```swift
    /// for try await page in store.observe(User.self, { $0.where("lastName == %@", "Bluth").sorted(by: "luckyNumber desc").limit(10) }) { … }
    /// ```
    public func observe<T: Record & Equatable>(
        _ type: T.Type, _ query: @escaping @Sendable (QueryRequest<T>) throws -> QueryRequest<T> = { $0 }
    ) -> Observation<[T]> {
        let entity = entityName(of: type)
        let last = ObservedResult(entity: entity, center: observers)
        let observers = self.observers
        // The commit pass judges commits against `last` (see ``ObservedResult``); a commit it
        // hands over is re-judged by `mayChange` in the read transaction.
        return observe(relevance: .byCommit { _ in true }, interest: .query(last), result: last) { tx, changes in
            let request = try query(tx.query(type))
            if let changes, try !tx.mayChange(request, entity: entity, changes: changes, lastKeys: last.lastKeys) { return nil }
            let records = try request.all()
            var condition: ObservedCondition?
            if request.query.offset == 0, let context = try tx.context(named: entity), context.storesEveryField(of: request.query.predicate) {
                condition = observers.condition(entity: entity, predicate: request.query.predicate, fields: context.schema.fields)
            }
            last.update(keys: Set(records.map { PrimaryKeyEncoder.encode($0.primaryKeyValue) }), condition: condition)
            return records
        }
    }

    /// The record of `type` with primary key `key` (nil while there is none), now and after every
    /// commit that writes or deletes it.
    public func observe<T: Record & Equatable>(_ type: T.Type, key: T.PrimaryKey) -> Observation<T?> {
        let entity = entityName(of: type)
        let storedKey = PrimaryKeyEncoder.encode(key)
        return observe(relevance: .byCommit { _ in true }, interest: .record(entity: entity, key: storedKey)) { tx, _ in
            .some(try tx.get(type, key: key))
        }
    }

    /// The number of records of `type` that `query` selects, now and whenever it changes.
    public func observeCount<T: Record>(
        _ type: T.Type, _ query: @escaping @Sendable (QueryRequest<T>) throws -> QueryRequest<T> = { $0 }
    ) -> Observation<Int> {
        let entity = entityName(of: type)
        // The commit pass skips commits to other entities once a read has shown that the
        // condition names no relationship; until then (and for a commit during the first read)
        // the read judges: untouched entity and no relationship, the count cannot have changed.
        let scope = ObservedScope()
        return observe(relevance: .byCommit { _ in true }, interest: .scoped(entity: entity, scope)) { tx, changes in
            let request = try query(tx.query(type))
            let ownFieldsOnly = try tx.context(for: type)?.storesEveryField(of: request.query.predicate) ?? false
            scope.reachesOtherEntities = !ownFieldsOnly
            if let changes, !changes.touches(entity), ownFieldsOnly { return nil }
            return try request.count()
        }
    }

    /// Anything read from the store (an aggregate, a join by hand), now and whenever it changes:
    /// `read` runs after every commit that touches one of `entities` (every commit when empty),
    /// and a value equal to the last is not delivered.
    public func observe<Value: Sendable & Equatable>(
        entities: [String] = [], _ read: @escaping @Sendable (ReadTransaction) throws -> Value
    ) -> Observation<Value> {
        observe(relevance: .byCommit { _ in true }, interest: .entities(entities)) { tx, _ in try read(tx) }
    }

    /// An observation driven by `fetch`, registered with the store's observers for the commits
    /// `interest` may be concerned by until the consumer stops; `result`, when given, is told
    /// while a read is queued or under way.
    func observe<Value: Sendable & Equatable>(
        relevance: ObservationDriver<Value>.Relevance, interest: ObserverInterest = .everyCommit, result: ObservedResult? = nil,
        fetch: @escaping ObservationDriver<Value>.Fetch
    ) -> Observation<Value> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let driver = ObservationDriver(store: self, relevance: relevance, result: result, fetch: fetch, continuation: continuation)
        let id = observers.add(interest) { changes in driver.notice(changes) }
        continuation.onTermination = { [observers] _ in
            driver.finish()
            observers.remove(id)
        }
        driver.start()
        return Observation(
            stream: stream, reads: { driver.reads.load(ordering: .relaxed) },
            fetches: { driver.fetches.load(ordering: .relaxed) },
            settled: { [observers] in
                await observers.delivered()
                await driver.settled()
            })
    }
}

extension ReadTransaction {
    /// Whether a commit with `changes` may have changed `request`'s result: false only when the
    /// changed keys of its entity are known, none was in the last result, none matches the query
    /// now, the query names no relationship, and no other entity was touched that it could read.
    /// With an offset, any change of the entity may shift the page (a record before it left);
    /// with a `SEARCH`, any changed record may match (its texts are not searched here).
    func mayChange<T>(_ request: QueryRequest<T>, entity: String, changes: ChangeSet, lastKeys: Set<[UInt8]>) throws -> Bool {
        guard !changes.isExternal else { return true }
        guard let context = try context(named: entity) else { return changes.touches(entity) }
        if !context.storesEveryField(of: request.query.predicate) { return true }   // it reads related entities
        guard let changes = changes.changed[entity] else { return false }
        if request.query.offset > 0 || changes.all || !request.query.predicate.textSearches.isEmpty { return true }
        let predicate = request.query.predicate
        for key in changes.keys {
            if lastKeys.contains(key) { return true }
            guard let bytes = try storedBytes(forKey: key, context) else { continue }
            if predicate.evaluate(on: try StoredFieldValues(bytes: bytes, fields: context.schema.fields, entity: entity)) { return true }
        }
        return false
    }
}

extension EntityContext {
    /// True when every field `predicate` compares is a stored field of this entity (it names no
    /// relationship, so other entities' changes cannot affect it).
    func storesEveryField(of predicate: QueryPredicate) -> Bool {
        predicate.fieldNames.allSatisfy { schema.fields.id(for: $0) != nil }
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
