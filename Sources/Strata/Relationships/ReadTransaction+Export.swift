extension ReadTransaction {
    /// The record of `entity` with primary key `key` as a JSON object with its related records
    /// nested one level deep (Kipu's `export()`): a to-one relationship as an object under its
    /// name (null when it refers to nothing), a key list and the inverse to-many relationships
    /// (a user's notes) as arrays of objects. With `jsonKeys`, fields are named by the JSON keys
    /// they were imported from (``EntityDescription/exportedKeys``), so the result imports again.
    /// Nil when there is no such record.
    public func exportJSON(entity: String, key: QueryValue, jsonKeys: Bool = false) throws -> JSONValue? {
        guard let record = try record(entity: entity, key: key) else { return nil }
        return try exportJSON(record, entity: entity, jsonKeys: jsonKeys)
    }

    /// As ``exportJSON(entity:key:jsonKeys:)``, for a typed record (with JSON keys by default).
    public func exportJSON<T: Record>(_ record: T, jsonKeys: Bool = true) throws -> JSONValue? {
        try exportJSON(entity: store.entityName(of: T.self), key: try QueryValue(argument: record.primaryKeyValue), jsonKeys: jsonKeys)
    }

    /// `record` with its related records nested.
    func exportJSON(_ record: StoredRecord, entity: String, jsonKeys: Bool) throws -> JSONValue {
        let context = try existingContext(named: entity)
        var renamer = KeyRenamer(transaction: self, enabled: jsonKeys)
        guard case .object(var members) = record.jsonObject(renaming: try renamer.keys(of: entity)) else { return record.jsonObject() }
        let key = record.key
        for relationship in context.schema.relationships {
            let name = renamer.name(relationship.name)
            switch relationship.kind {
            case .toOne:
                let reference = try storedValue(record, field: relationship.keyField, context)
                let target = try reference.flatMap { $0 == .null ? nil : try self.record(entity: relationship.target, key: $0) }
                members.append(JSONMember(key: name, value: try target.map { $0.jsonObject(renaming: try renamer.keys(of: relationship.target)) } ?? .null))
            case .keyList:
                guard case .list(let keys)? = try storedValue(record, field: relationship.keyField, context) else { continue }
                let targets = try keys.compactMap { try self.record(entity: relationship.target, key: $0) }
                members.append(JSONMember(key: name, value: .array(try targets.map { $0.jsonObject(renaming: try renamer.keys(of: relationship.target)) })))
            }
        }
        for holder in try entityNames() {
            guard let holderContext = try self.context(named: holder) else { continue }
            for relationship in holderContext.schema.relationships where relationship.target == entity {
                guard let inverse = relationship.inverse else { continue }
                let comparison = FieldComparison(field: RelationshipResolver.path(relationship.keyField), op: .equal, value: key,
                                                 quantifier: relationship.kind == .keyList ? .any : nil)
                let related = try QueryRequest<StoredRecord>(transaction: self, entity: holder).filtered(by: .comparison(comparison)).all()
                let keys = try renamer.keys(of: holder)
                members.append(JSONMember(key: renamer.name(inverse), value: .array(related.map { $0.jsonObject(renaming: keys) })))
            }
        }
        return .object(members)
    }

    /// The stored value of one field of `record`, as a query value (keys keep their types).
    private func storedValue(_ record: StoredRecord, field: String, _ context: EntityContext) throws -> QueryValue? {
        guard let bytes = try lmdb(entity: context.name, { try raw.value(forKey: try storedPrimaryKey(record.key, context), in: context.records) }) else {
            return nil
        }
        return try StoredFieldValues(bytes: bytes, fields: context.schema.fields, entity: context.name)
            .value(at: RelationshipResolver.path(field))
    }
}

/// JSON keys of each entity's fields for an export, looked up once per entity.
private struct KeyRenamer {
    let transaction: ReadTransaction
    let enabled: Bool
    var cache: [String: [String: String]] = [:]

    init(transaction: ReadTransaction, enabled: Bool) {
        self.transaction = transaction
        self.enabled = enabled
    }

    mutating func keys(of entity: String) throws -> [String: String] {
        guard enabled else { return [:] }
        if let known = cache[entity] { return known }
        let keys = try transaction.entityDescription(named: entity, sampleLimit: 1_000).exportedKeys
        cache[entity] = keys
        return keys
    }

    func name(_ relationship: String) -> String { enabled ? EntityDescription.snakeCase(relationship) : relationship }
}

extension EntityDescription {
    /// The JSON key of each field for an export that imports again: its `jsonKey`, `id` for the
    /// primary key, else the field name in snake case (`createdDate` → `created_date`), which
    /// the import's conventions map back to the field.
    public var exportedKeys: [String: String] {
        var keys: [String: String] = [:]
        for field in fields {
            keys[field.name] = field.jsonKey ?? (field.name == primaryKey ? "id" : Self.snakeCase(field.name))
        }
        return keys
    }

    /// `createdDate` → `created_date`, `avatarURL` → `avatar_url`.
    public static func snakeCase(_ name: String) -> String {
        var result = ""
        let characters = Array(name)
        for (position, character) in characters.enumerated() {
            if character.isUppercase, position > 0 {
                let previousIsLower = characters[position - 1].isLowercase || characters[position - 1].isNumber
                let nextIsLower = position + 1 < characters.count && characters[position + 1].isLowercase
                if previousIsLower || nextIsLower { result += "_" }
            }
            result += character.lowercased()
        }
        return result
    }
}
