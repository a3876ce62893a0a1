/// The field paths of one entity that conditions, orderings and indexes may name, and
/// ``check(_:column:for:)``: the one check of a field path against them, with a "did you
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
/// Collection operators (`tags.@count`, `notes.@count`) are checked for their name and place
/// (``CollectionOperator``), the path before them as any other. Not checked: the inside of a field whose shape
/// no source knows (an `any` field, a dictionary, an entity known only by its stored records);
/// a relationship to an entity the store does not have; an entity the store does not have (no
/// ``KnownFields`` is made for it), so a query of an empty store is never an error.
package struct KnownFields {
    /// What the messages call this level: the entity's name, or `Entity.field` for an object.
    package let owner: String
    /// The fields records have stored (the entity's field table, looked up by its own index).
    private var stored = FieldTable()
    /// Names known by name only (a caller's plain list).
    private var listed: Set<String> = []
    /// The field lists of the descriptions that know this level (the catalog's, a record type's).
    private var described: [[FieldDescription]] = []
    /// The entity's own relationships, by name, and the relationships of other entities whose
    /// inverse names reach this one (``ReadTransaction/incomingRelationships(of:)``).
    private var own: [RelationshipDescriptor] = []
    private var incoming: [(holder: String, relationship: RelationshipDescriptor)] = []
    /// Fields renamed by migrations: the new name by the old one, for the error's hint.
    private var renamed: [String: String] = [:]
    /// Where related entities' fields are looked up; nil: paths through relationships are
    /// checked up to the relationship's name only. Weak: nothing here keeps a transaction alive.
    private weak var transaction: ReadTransaction?

    /// Fields known by name only (no shapes, no relationships): what a caller with a plain list
    /// of names (a sync scope, a test) knows.
    package init(owner: String, names: some Sequence<String>) {
        self.owner = owner
        listed = Set(names)
    }

    /// An entity's or embedded object's fields. Nothing is copied or hashed here: names are
    /// looked up where they are kept, when a path is checked.
    private init(owner: String, stored: FieldTable = FieldTable(), described: [[FieldDescription]]) {
        self.owner = owner
        self.stored = stored
        self.described = described
    }

    /// The fields of `context`'s entity in `transaction`, and `type`'s (a record type's own,
    /// from the schema probe) when given.
    package init(_ context: EntityContext, type: EntityDescription?, in transaction: ReadTransaction) {
        self.init(owner: context.name, stored: context.schema.fields,
                  described: [context.schema.description, type].compactMap { $0?.fields })
        own = context.schema.relationships
        renamed = context.schema.renamedFields
        // An unreadable catalog entry of another entity: its inverses are not known here, and
        // the query itself reports the entry when it resolves the relationship.
        incoming = (try? transaction.incomingRelationships(of: context.name)) ?? []
        self.transaction = transaction
    }

    /// True when nothing is known, so nothing can be checked.
    private var isEmpty: Bool {
        stored.ids.isEmpty && listed.isEmpty && described.allSatisfy(\.isEmpty) && own.isEmpty && incoming.isEmpty
    }

    private func isField(_ name: String) -> Bool {
        (stored.id(for: name) != nil && !FieldTable.isRemoved(name)) || listed.contains(name) || described.contains { $0.contains { $0.name == name } }
    }

    /// The fields of the embedded object `name`, when every description that lists it says
    /// what they are; nil when no source knows its shape (then paths inside it are not checked).
    private func object(_ name: String) -> KnownFields? {
        var shapes: [[FieldDescription]] = []
        for fields in described {
            guard let field = fields.first(where: { $0.name == name }) else { continue }
            guard case .object(let nested) = field.type.elementType else { return nil }
            shapes.append(nested)
        }
        return shapes.isEmpty ? nil : KnownFields(owner: "\(owner).\(name)", described: shapes)
    }

    /// The entity the relationship `name` reaches: an own relationship's target, an inverse's holder.
    private func relatedEntity(_ name: String) -> String? {
        own.first { $0.name == name }?.target ?? incoming.first { $0.relationship.inverse == name }?.holder
    }

    /// Every name a path may start with here, for suggestions.
    private var allNames: Set<String> {
        var names = listed.union(stored.ids.keys.filter { !FieldTable.isRemoved($0) }).union(own.map(\.name)).union(incoming.compactMap(\.relationship.inverse))
        for fields in described { names.formUnion(fields.map(\.name)) }
        return names
    }

    /// Throws `.unknownField` when `path` names no field this entity (or, through an embedded
    /// object or a relationship, the object or related entity) knows, wherever the name comes
    /// from (a condition, an ordering, an aggregate, an index, a migration step, the tool's
    /// `--fields`): "unknown field 'person.nmae' in Note: Person has no field 'nmae' (did you mean
    /// 'name'?) at column 7". `column` is the format string's, when there is one; `usage`, when
    /// given, starts the message (`the index on 'lastName' of User`). Stored field names win
    /// over relationship names, as in the resolver.
    package func check(_ path: [String], column: Int? = nil, for usage: String? = nil) throws(StrataError) {
        guard !path.isEmpty else { return }
        try Self.checkOperators(path, entity: owner, column: column, usage: usage)
        try check(path, from: 0, root: self, column: column, usage: usage)
    }

    /// Throws `.invalidQuery` when `path` uses a collection operator Strata does not support, or
    /// one in the wrong place (``CollectionOperator/problem(in:)``): "User: 'tags.@first': the
    /// collection operator '@first' is not supported (…) at column 1". Called by
    /// ``check(_:column:for:)``, and by a format string parsed without known fields.
    package static func checkOperators(_ path: [String], entity: String, column: Int? = nil, usage: String? = nil) throws(StrataError) {
        guard let problem = CollectionOperator.problem(in: path) else { return }
        throw StrataError(.invalidQuery, (usage.map { "\($0): " } ?? "") + "\(entity): \(problem)" + (column.map { " at column \($0)" } ?? ""),
                          entity: entity, field: path.joined(separator: "."))
    }

    /// Checks the components of `path` from `position` on, at this level (`root`'s, or an
    /// object's or related entity's below it); `hops` counts the relationships passed.
    private func check(_ path: [String], from position: Int, hops: Int = 0, root: KnownFields,
                       column: Int?, usage: String?) throws(StrataError) {
        let name = path[position]
        if name.hasPrefix("@") { return }
        let more = position + 1 < path.count
        if isField(name) {
            guard more, let object = object(name) else { return }
            try object.check(path, from: position + 1, hops: hops, root: root, column: column, usage: usage)
        } else if let target = relatedEntity(name) {
            // Relationship conditions nest at most 8 deep (the resolver says so when run).
            guard more, hops < 8, let transaction, let related = (try? transaction.context(named: target)) ?? nil else { return }
            try KnownFields(related, type: nil, in: transaction)
                .check(path, from: position + 1, hops: hops + 1, root: root, column: column, usage: usage)
        } else if let new = renamed[name] {
            let whole = path.joined(separator: ".")
            throw StrataError(.unknownField, (usage.map { "\($0): " } ?? "")
                + "unknown field '\(whole)' in \(root.owner): '\(name)' was renamed to '\(new)'" + (column.map { " at column \($0)" } ?? ""),
                entity: root.owner, field: whole)
        } else if !isEmpty {
            throw root.unknown(name, at: position, of: path, in: self, column: column, usage: usage)
        }
    }

    /// The error for `name`, the component at `position` of `path`, which `level` does not know.
    private func unknown(_ name: String, at position: Int, of path: [String], in level: KnownFields,
                         column: Int?, usage: String?) -> StrataError {
        let whole = path.joined(separator: ".")
        var message = (usage.map { "\($0): " } ?? "") + "unknown field '\(whole)' in \(owner)"
        if position > 0 { message += ": \(level.owner) has no field '\(name)'" }
        if let suggestion = FieldNameSuggestion.suggestion(for: name, among: level.allNames) {
            message += " (did you mean '\(suggestion)'?)"
        }
        if let column { message += " at column \(column)" }
        return StrataError(.unknownField, message, entity: owner, field: whole)
    }
}

extension ReadTransaction {
    /// What paths of `context`'s entity may name, as this transaction sees it: stored fields,
    /// the catalog's description, relationships (own and inverse), and `type`'s own fields when
    /// given (a record type's query or index declaration).
    package func knownFields(of context: EntityContext, adding type: EntityDescription? = nil) -> KnownFields {
        KnownFields(context, type: type, in: self)
    }
}

extension ReadTransaction {
    /// Checks top-level field names of `entity` with ``KnownFields/check(_:column:for:)``
    /// (`.unknownField`, "--fields: unknown field 'nmae' in User (did you mean 'name'?)"), for
    /// the tool's options that name fields; nothing is checked for an entity the store lacks.
    package func checkFieldNames(_ names: [String], of entity: String, for usage: String) throws {
        guard let context = try context(named: entity) else { return }
        let known = knownFields(of: context)
        for name in names { try known.check([name], for: usage) }
    }
}

extension KnownFields {
    /// Checks the fields of a declared or added index (`.unknownField`, "the index on
    /// 'lastNmae' of User: unknown field …"); a collection operator (`tags.@count`) is refused
    /// (`.invalidValue`).
    package func check(index paths: [[String]]) throws(StrataError) {
        let usage = "the index on '\(paths.map { $0.joined(separator: ".") }.joined(separator: ","))' of \(owner)"
        for path in paths {
            // An index holds stored values, one entry per element of an array: never a count or a sum.
            if path.contains(where: CollectionOperator.isOperator) {
                let whole = path.joined(separator: ".")
                throw StrataError(.invalidValue, "\(usage): '\(whole)' has a collection operator; an index holds stored field values",
                                  entity: owner, field: whole)
            }
            try check(path, for: usage)
        }
    }
}
