/// The field paths of one entity that conditions, orderings and indexes may name, and
/// ``check(_:column:for:code:)``: the one check of a field path against them, with a "did you
/// mean …?" suggestion. Every front end calls it: format strings and sort strings (with the
/// column), dictionaries, `#Predicate`s and `SortDescriptor`s, key-path predicates and orderings
/// (when the query runs: `QueryRequest.prepare`), sync scopes, declared indexes (at migration)
/// and indexes added by name.
///
/// What is known comes from every source the store has, so that nothing valid is refused:
/// - the catalog's field table: every field a record of the entity ever stored;
/// - the entity's description (an imported schema): its fields, stored or not yet;
/// - for a record type, its own stored properties (optionals never set included), read by the
///   schema probe;
/// - relationships (own and inverse), whose paths go on in the RELATED entity's fields:
///   `person.name`, `ANY notes.text`, `author.company.name`;
/// - embedded objects whose fields a description or record type lists (`address.city`).
///
/// Not checked: components starting with `@` (`notes.@count`); the inside of a field whose shape
/// no source knows (an `any` field, a dictionary, an entity known only by its stored records);
/// a relationship to an entity the store does not have; an entity the store does not have (no
/// ``KnownFields`` is made for it), so a query of an empty store is never an error.
struct KnownFields {
    /// What the messages call this level: the entity's name, or `Entity.field` for an object.
    let owner: String
    /// The names a path may start with here (fields; relationships are in ``relationships``).
    var names: Set<String>
    /// Embedded objects whose fields are known, by field name.
    var objects: [String: KnownFields] = [:]
    /// Relationship name → the entity whose records it reaches (an own relationship's target,
    /// an inverse's holder). Stored field names win over relationship names, as in the resolver.
    var relationships: [String: String] = [:]
    /// Where related entities' fields are looked up; nil: paths through relationships are
    /// checked up to the relationship's name only. Weak: contexts keep no transaction alive.
    weak var transaction: ReadTransaction?

    /// Fields known by name only (no shapes, no relationships): what a caller with a plain list
    /// of names (a sync scope, a test) knows.
    init(owner: String, names: some Sequence<String>) {
        self.owner = owner
        self.names = Set(names)
    }

    /// Fields from the stored names and the descriptions that list them: an embedded object's
    /// fields are known when every description that lists the object says what they are.
    init(owner: String, stored: some Sequence<String>, described: [[FieldDescription]]) {
        self.init(owner: owner, names: stored)
        var shapes: [String: [[FieldDescription]]] = [:]
        var shapeless = Set<String>()
        for fields in described {
            for field in fields {
                names.insert(field.name)
                if case .object(let nested) = field.type.elementType { shapes[field.name, default: []].append(nested) } else { shapeless.insert(field.name) }
            }
        }
        for (name, nested) in shapes where !shapeless.contains(name) {
            objects[name] = KnownFields(owner: "\(owner).\(name)", stored: [], described: nested)
        }
    }

    /// True when nothing is known, so nothing can be checked.
    var isEmpty: Bool { names.isEmpty && relationships.isEmpty }

    /// Throws `code` (`.invalidQuery` unless said otherwise) when `path` names no field this
    /// entity (or, through an embedded object or a relationship, the object or related entity)
    /// knows: "unknown field 'person.nmae' in Note: Person has no field 'nmae' (did you mean
    /// 'name'?) at column 7". `column` is the format string's, when there is one; `usage`, when
    /// given, starts the message (`the index 'lastName' of User`).
    func check(_ path: [String], column: Int? = nil, for usage: String? = nil,
               code: StrataError.Code = .invalidQuery) throws(StrataError) {
        var level = self
        var hops = 0
        for (position, name) in path.enumerated() {
            if name.hasPrefix("@") { return }
            let more = position + 1 < path.count
            if level.names.contains(name) {
                guard more, let object = level.objects[name] else { return }
                level = object
            } else if let target = level.relationships[name] {
                // Relationship conditions nest at most 8 deep (the resolver says so when run).
                guard more, hops < 8, let related = (try? level.transaction?.knownFields(ofEntity: target)) ?? nil else { return }
                level = related
                hops += 1
            } else {
                guard !level.isEmpty else { return }
                throw unknown(name, at: position, of: path, in: level, column: column, usage: usage, code: code)
            }
        }
    }

    /// The error for `name`, the component at `position` of `path`, which `level` does not know.
    private func unknown(_ name: String, at position: Int, of path: [String], in level: KnownFields,
                         column: Int?, usage: String?, code: StrataError.Code) -> StrataError {
        let whole = path.joined(separator: ".")
        var message = (usage.map { "\($0): " } ?? "") + "unknown field '\(whole)' in \(owner)"
        if position > 0 { message += ": \(level.owner) has no field '\(name)'" }
        if let suggestion = FieldNameSuggestion.suggestion(for: name, among: level.names.union(level.relationships.keys)) {
            message += " (did you mean '\(suggestion)'?)"
        }
        if let column { message += " at column \(column)" }
        return StrataError(code, message, entity: owner, field: whole)
    }
}

extension ReadTransaction {
    /// What paths of `context`'s entity may name, as this transaction sees it: stored fields,
    /// the catalog's description, relationships (own and inverse), and `type`'s own fields when
    /// given (a record type's query or index declaration).
    func knownFields(of context: EntityContext, adding type: EntityDescription? = nil) -> KnownFields {
        let described = [context.schema.description, type].compactMap { $0?.fields }
        var known = KnownFields(owner: context.name, stored: context.schema.fields.names.values, described: described)
        for relationship in context.schema.relationships { known.relationships[relationship.name] = relationship.target }
        // An unreadable catalog entry of another entity: its inverses are not known, and the
        // query itself will report the entry when it resolves the relationship.
        for (holder, relationship) in (try? incomingRelationships(of: context.name)) ?? [] {
            if let inverse = relationship.inverse { known.relationships[inverse] = holder }
        }
        known.transaction = self
        return known
    }

    /// What paths of the entity named `name` may name; nil when the store has no such entity.
    func knownFields(ofEntity name: String) throws -> KnownFields? {
        try context(named: name).map { knownFields(of: $0) }
    }
}

extension KnownFields {
    /// Checks the fields of a declared or added index (`.invalidValue`, "the index on
    /// 'lastNmae' of User: unknown field …").
    func check(index paths: [[String]]) throws(StrataError) {
        let usage = "the index on '\(paths.map { $0.joined(separator: ".") }.joined(separator: ","))' of \(owner)"
        for path in paths { try check(path, for: usage, code: .invalidValue) }
    }
}

extension QueryPredicate {
    /// Calls `body` with every field path the predicate compares, in order.
    func forEachFieldPath(_ body: ([String]) throws(StrataError) -> Void) throws(StrataError) {
        switch self {
        case .constant: return
        case .comparison(let comparison): try body(comparison.field)
        case .and(let operands), .or(let operands): for operand in operands { try operand.forEachFieldPath(body) }
        case .not(let operand): try operand.forEachFieldPath(body)
        }
    }
}
