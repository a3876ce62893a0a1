@_spi(Format) import StrataFormat

/// Turns relationship conditions into conditions on the queried entity's own fields, by running a
/// query of the related entity first (a semi-join):
///
/// | condition on `User`                 | related query                         | becomes                      |
/// |-------------------------------------|---------------------------------------|------------------------------|
/// | `company.name BEGINSWITH 'ac'` (to-one) | `Company`: `name BEGINSWITH 'ac'` | `companyID IN {company keys}` |
/// | `ANY notes.text == 'x'` (inverse)   | `Note`: `text == 'x'`, its `userID`s  | `id IN {user keys}`          |
/// | `ANY tags.name == 'x'` (key list)   | `Tag`: `name == 'x'`                  | `ANY tagIDs IN {tag keys}`   |
/// | `NONE …`                            | the same                              | `NOT (… IN {…})`             |
/// | `ALL notes.text == 'x'`             | `Note`: `NOT text == 'x'`             | `NOT id IN {…}` (true for none) |
/// | `notes.@count > 2`                  | index entries of `Note.userID` counted | `id IN {…}` or `NOT id IN {…}` |
///
/// The related query has its own plan (its entity's indexes); the rewritten one then looks keys
/// up by primary key or through the reference field's index. ``QueryPlan/semiJoins`` shows both.
/// Names of stored fields win over relationship names.
package struct RelationshipResolver {
    package let transaction: ReadTransaction
    package let context: EntityContext
    /// How deep relationship conditions may nest (`ANY notes.user.company.name …`).
    package let depth: Int
    private(set) var joins: [QueryPlan.SemiJoin] = []
    /// The type the query's results are: a record type's own fields are known before any record
    /// stores them (see ``checkPath(_:)``).
    package let root: Any.Type

    package init(transaction: ReadTransaction, context: EntityContext, depth: Int = 0, root: Any.Type = StoredRecord.self) {
        self.transaction = transaction
        self.context = context
        self.depth = depth
        self.root = root
    }

    /// Checks a field path that the entity's field table does not settle (embedded, through a
    /// relationship, not stored yet, unknown) with ``KnownFields/check(_:column:for:)``, at
    /// the top level only: a related query's paths were checked as part of the whole path.
    /// This is where key-path predicates and orderings are checked (nowhere else: the compiler
    /// knows a type's properties, not what is stored), and the other front ends' paths again.
    package func checkPath(_ path: [String]) throws(StrataError) {
        guard depth == 0, !path.isEmpty else { return }
        try transaction.knownFields(of: context, adding: (root as? any Record.Type).flatMap { EntityDescription.probed($0) }).check(path)
    }

    /// `predicate` with every relationship condition replaced.
    package mutating func resolve(_ predicate: QueryPredicate) throws -> QueryPredicate {
        switch predicate {
        case .constant: return predicate
        case .and(let operands): return .and(try operands.map { try resolve($0) })
        case .or(let operands): return .or(try operands.map { try resolve($0) })
        case .not(let operand): return .not(try resolve(operand))
        case .comparison(let comparison):
            guard let first = comparison.field.first else { return predicate }
            if context.schema.fields.id(for: first) != nil {
                if comparison.field.count > 1 { try checkPath(comparison.field) }
                return predicate
            }
            try checkPath(comparison.field)
            guard let link = try link(named: first) else { return predicate }
            guard depth < 8 else {
                throw StrataError(.invalidQuery, "\(context.name): relationship conditions nest too deep in '\(comparison.fieldName)'",
                                  entity: context.name, field: comparison.fieldName)
            }
            return try resolve(comparison, through: link)
        }
    }

    /// The relationship called `name` from the queried entity, or nil.
    private func link(named name: String) throws -> Link? {
        if let own = context.schema.relationships.first(where: { $0.name == name }) {
            return own.kind == .toOne ? .toOne(own) : .keyList(own)
        }
        guard let (holder, relationship) = try transaction.incomingRelationships(of: context.name).first(where: { $0.relationship.inverse == name }) else {
            return nil
        }
        return relationship.kind == .toOne ? .children(relationship, holder: holder) : .listedBy(relationship, holder: holder)
    }

    /// The ways an entity reaches related records.
    private enum Link {
        /// Its own reference field holds the related key.
        case toOne(RelationshipDescriptor)
        /// Its own key list holds the related keys.
        case keyList(RelationshipDescriptor)
        /// The related records' reference fields hold its key (the inverse of their to-one).
        case children(RelationshipDescriptor, holder: String)
        /// The related records' key lists hold its key (the inverse of their key list).
        case listedBy(RelationshipDescriptor, holder: String)
    }

    private mutating func resolve(_ comparison: FieldComparison, through link: Link) throws -> QueryPredicate {
        let name = comparison.field[0]
        let rest = Array(comparison.field.dropFirst())
        let ownKey = [context.schema.primaryKey]
        if rest == ["@count"] { return try count(comparison, through: link) }
        if let first = rest.first, CollectionOperator.isOperator(first) {
            throw StrataError(.invalidQuery, "\(context.name): '\(comparison.fieldName)': '\(name)' is a relationship, and of the collection operators only @count applies to one",
                              entity: context.name, field: comparison.fieldName)
        }
        switch link {
        case .toOne(let relationship):
            let keyField = FieldPath.components(of: relationship.keyField)
            guard !rest.isEmpty else {
                // `company == nil`, `company == 7`: the reference itself.
                return .comparison(FieldComparison(field: keyField, op: comparison.op, value: comparison.value, options: comparison.options))
            }
            let keys = try relatedKeys(relationship.target, where: inner(comparison, rest), name: name,
                                       through: "\(relationship.target).\(transaction.primaryKeyName(of: relationship.target))", .primaryKey)
            return .comparison(FieldComparison(field: keyField, op: .in, value: .list(keys)))
        case .keyList(let relationship):
            let keyField = FieldPath.components(of: relationship.keyField)
            return try quantified(comparison, rest: rest, name: name) { condition in
                let keys = try relatedKeys(relationship.target, where: condition, name: name,
                                           through: "\(relationship.target).\(transaction.primaryKeyName(of: relationship.target))", .primaryKey)
                return FieldComparison(field: keyField, op: .in, value: .list(keys), quantifier: .any)
            }
        case .children(let relationship, let holder):
            let keyField = FieldPath.components(of: relationship.keyField)
            return try quantified(comparison, rest: rest, name: name) { condition in
                let keys = try relatedKeys(holder, where: condition, name: name, through: "\(holder).\(relationship.keyField)", .field(keyField))
                return FieldComparison(field: ownKey, op: .in, value: .list(keys))
            }
        case .listedBy(let relationship, let holder):
            let keyField = FieldPath.components(of: relationship.keyField)
            return try quantified(comparison, rest: rest, name: name) { condition in
                let keys = try relatedKeys(holder, where: condition, name: name, through: "\(holder).\(relationship.keyField)", .field(keyField))
                return FieldComparison(field: ownKey, op: .in, value: .list(keys))
            }
        }
    }

    /// ANY (the default), NONE and ALL over related records, given how to turn a condition on
    /// them into a membership test of this entity.
    private func quantified(_ comparison: FieldComparison, rest: [String], name: String,
                            _ membership: (QueryPredicate) throws -> FieldComparison) throws -> QueryPredicate {
        guard !rest.isEmpty else {
            throw StrataError(.invalidQuery, "\(context.name): '\(name)' is a to-many relationship; compare a field of it (ANY \(name).field == …) or its @count",
                              entity: context.name, field: name)
        }
        let condition = inner(comparison, rest)
        switch comparison.quantifier ?? .any {
        case .any: return .comparison(try membership(condition))
        case .none: return .not(.comparison(try membership(condition)))
        case .all: return .not(.comparison(try membership(.not(condition))))
        }
    }

    /// The comparison applied to the related entity's field `rest`.
    private func inner(_ comparison: FieldComparison, _ rest: [String]) -> QueryPredicate {
        .comparison(FieldComparison(field: rest, op: comparison.op, value: comparison.value, options: comparison.options))
    }

    /// One stored match of a related query: its key and its fields.
    /// What a semi-join collects of each related record.
    private enum Extraction {
        /// Its primary key.
        case primaryKey
        /// The value of this field: a key, or each key of a list.
        case field([String])
    }

    /// Runs `condition` on entity `entity` and collects `extract` of each match, distinct; records
    /// the semi-join for explain. An entity the store does not have yields no keys.
    private mutating func relatedKeys(_ entity: String, where condition: QueryPredicate, name: String, through: String,
                                      _ extract: Extraction) throws -> [QueryValue] {
        guard let related = try transaction.context(named: entity) else {
            joins.append(QueryPlan.SemiJoin(relationship: name, through: through, plan: nil, keys: 0))
            return []
        }
        // The condition is type-checked like a top-level one, against the related entity's own
        // field types: its description, else the kinds of its stored values (sampled once per
        // transaction). Its field paths were checked with the whole path's (`checkPath`).
        try transaction.fieldTypes(of: related)?.check(condition)
        var request = QueryRequest<StoredRecord>(transaction: transaction, entity: entity).filtered(by: condition)
        // Only the set of keys matters, not the order the matches come in: no sort.
        request.query.anyOrder = true
        let prepared = try request.prepare(related, depth: depth + 1)
        var keys = RelatedKeys()
        // Only the extracted field is read of each match: one pass over the head of its map.
        var offsets: [Int] = []
        let selection: FieldSelection? = if case .field(let path) = extract { FieldSelection(names: [path[0]], fields: related.schema.fields) } else { nil }
        var plan = try request.execute(prepared.query, context: related) { match in
            let extracted: QueryValue?
            switch extract {
            case .primaryKey:
                var position = 0
                extracted = try OrderedKey.queryValue(from: match.key, at: &position)
            case .field(let path):
                do {
                    extracted = try selection?.values(of: match.bytes, reusing: &offsets).value(at: path)
                } catch {
                    throw StoredFieldValues.corrupt(entity: entity, cause: error)
                }
            }
            let values: [QueryValue] = switch extracted {
            case .list(let listed)?: listed
            case let value?: [value]
            case nil: []
            }
            for value in values where value != .null { keys.insert(value) }
            return true
        }
        plan.semiJoins = prepared.joins
        let found = keys.values
        joins.append(QueryPlan.SemiJoin(relationship: name, through: through, plan: plan, keys: found.count))
        return found
    }

    /// `name.@count op n`: counts the related records per record of this entity from the
    /// reference field's index (keys and their duplicate counts, no records read), then keeps
    /// the records whose count meets the comparison, zero included for those with none.
    private mutating func count(_ comparison: FieldComparison, through link: Link) throws -> QueryPredicate {
        let name = comparison.field[0]
        var counts: [QueryValue: Int] = [:]
        let through: String
        switch link {
        case .children(let relationship, let holder), .listedBy(let relationship, let holder):
            through = "\(holder).\(relationship.keyField)"
            if let holderContext = try transaction.context(named: holder),
               let index = holderContext.schema.indexes.first(where: { $0.fields.first?.path == FieldPath.components(of: relationship.keyField) }),
               let database = holderContext.indexes[index.name] {
                try transaction.lmdb(entity: holder) {
                    try transaction.withCursor(database) { cursor in
                        guard try cursor.first() else { return }
                        try cursor.forEachKey { key, entries in
                            var bytes: [UInt8] = []
                            for index in key.indices { bytes.append(key[index]) }
                            var position = 0
                            if let value = try? OrderedKey.queryValue(from: bytes, at: &position), value != .null {
                                counts[value.membershipKey, default: 0] += entries
                            }
                            return true
                        }
                    }
                }
            }
        case .keyList(let relationship):
            // The list's length, read from each record of this entity.
            through = "\(context.name).\(relationship.keyField)"
            try transaction.lmdb(entity: context.name) {
                try transaction.withCursor(context.records) { cursor in
                    var more = try cursor.first()
                    while more {
                        let fields = try StoredFieldValues(bytes: cursor.value, fields: context.schema.fields, entity: context.name)
                        var position = 0
                        let key = try OrderedKey.queryValue(from: cursor.key, at: &position)
                        if case .list(let listed)? = fields.value(at: FieldPath.components(of: relationship.keyField)) { counts[key.membershipKey] = listed.count }
                        more = try cursor.next()
                    }
                }
            }
        case .toOne:
            throw StrataError(.invalidQuery, "\(context.name): '\(name)' is a to-one relationship; @count applies to to-many ones",
                              entity: context.name, field: name)
        }
        let test = FieldComparison(field: ["count"], op: comparison.op, value: comparison.value)
        let holds = { (count: Int) in test.evaluate(on: CountValue(count: count)) }
        let keys: [QueryValue]
        let predicate: QueryPredicate
        let ownKey = [context.schema.primaryKey]
        if holds(0) {
            // Records without related ones qualify: exclude those whose count fails instead.
            keys = counts.filter { !holds($0.value) }.map(\.key)
            predicate = .not(.comparison(FieldComparison(field: ownKey, op: .in, value: .list(keys))))
        } else {
            keys = counts.filter { holds($0.value) }.map(\.key)
            predicate = .comparison(FieldComparison(field: ownKey, op: .in, value: .list(keys)))
        }
        joins.append(QueryPlan.SemiJoin(relationship: "\(name).@count", through: through, plan: nil, keys: keys.count))
        return predicate
    }
}

/// The distinct keys a semi-join collects. Integer keys (the usual kind) are kept as a sorted
/// array of distinct values: when they arrive in ascending order, as the references of matches
/// found in key order often do, that costs one comparison each, otherwise one sort at the end;
/// other values go through a set. The result lists the integers ascending, so that a lookup by
/// primary key needs no sort of its own.
package struct RelatedKeys {
    private var integers: [Int64] = []
    private var ascending = true
    private var others: [QueryValue] = []
    private var seen = Set<QueryValue>()

    package mutating func insert(_ value: QueryValue) {
        let key = value.membershipKey
        if case .int(let integer) = key {
            if let last = integers.last {
                if integer == last { return }
                if integer < last { ascending = false }
            }
            integers.append(integer)
        } else if seen.insert(key).inserted {
            others.append(value)
        }
    }

    /// The distinct values: the integers ascending, then the others in the order they came.
    package var values: [QueryValue] {
        var distinct = integers
        if !ascending {
            distinct.sort()
            var kept = 0
            for integer in distinct where kept == 0 || distinct[kept - 1] != integer {
                distinct[kept] = integer
                kept += 1
            }
            distinct.removeLast(distinct.count - kept)
        }
        return distinct.map(QueryValue.int) + others
    }
}

/// A one-field record holding a count, to evaluate `@count` comparisons with the predicate code.
private struct CountValue: FieldValues {
    let count: Int
    func value(at path: [String]) -> QueryValue? { .int(Int64(count)) }
}

extension ReadTransaction {
    /// The primary key field name of entity `name`, or `id` when the store has no such entity.
    package func primaryKeyName(of name: String) -> String {
        ((try? context(named: name)) ?? nil)?.schema.primaryKey ?? "id"
    }
}

extension QueryRequest {
    /// The query with its relationship conditions resolved, and the semi-joins that did it.
    /// Every way of running a query comes here first, so the field paths of the query as it was
    /// built (at `depth` 0) are checked here too (``RelationshipResolver/checkPath(_:)``).
    package func prepare(_ context: EntityContext, _ query: Query<Root>? = nil, depth: Int = 0) throws -> (query: Query<Root>, joins: [QueryPlan.SemiJoin]) {
        let query = query ?? self.query
        var resolver = RelationshipResolver(transaction: transaction, context: context, depth: depth, root: Root.self)
        var resolved = query
        resolved.predicate = try resolver.resolve(query.predicate)
        for ordering in query.orderings where !ordering.isRelevance && (ordering.field.count != 1 || context.schema.fields.id(for: ordering.field[0]) == nil) {
            try resolver.checkPath(ordering.field)
        }
        if query.orderings.contains(where: \.isRelevance), query.predicate.textSearches.isEmpty {
            throw StrataError(.invalidQuery, "\(context.name): an order by relevance needs a SEARCH condition to score by", entity: context.name)
        }
        return (resolved, resolver.joins)
    }
}
