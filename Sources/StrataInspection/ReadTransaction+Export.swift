extension ReadTransaction {
    /// The record of `entity` with primary key `key` as a JSON object with its related records
    /// nested one level deep (Kipu's `export()`): a to-one relationship as an object under its
    /// name (null when it refers to nothing), a key list and the inverse to-many relationships
    /// (a user's notes) as arrays of objects. With `jsonKeys`, fields are named by the JSON keys
    /// they were imported from (``EntityDescription/exportedKeys``), so the result imports again.
    /// Nil when there is no such record.
    public func exportJSON(entity: String, key: QueryValue, jsonKeys: Bool = false) throws -> JSONValue? {
        let context = try existingContext(named: entity)
        let storedKey = try storedPrimaryKey(key, context)
        guard let bytes = try storedBytes(forKey: storedKey, context) else { return nil }
        // One read of the record: its JSON, and its reference fields with their stored types.
        let record = try StoredRecord(key: storedKey, bytes: bytes, fields: context.schema.fields, entity: entity)
        let fields = try StoredFieldValues(bytes: bytes, fields: context.schema.fields, entity: entity)
        return try exportJSON(record, fields: fields, context, jsonKeys: jsonKeys)
    }

    /// As ``exportJSON(entity:key:jsonKeys:)``, for a typed record (with JSON keys by default).
    public func exportJSON<T: Record>(_ record: T, jsonKeys: Bool = true) throws -> JSONValue? {
        try exportJSON(entity: store.entityName(of: T.self), key: try QueryValue(argument: record.primaryKeyValue), jsonKeys: jsonKeys)
    }

    /// `record` (whose field values are `fields`) with its related records nested.
    private func exportJSON(_ record: StoredRecord, fields: StoredFieldValues, _ context: EntityContext, jsonKeys: Bool) throws -> JSONValue {
        let entity = context.name
        var renamer = KeyRenamer(transaction: self, enabled: jsonKeys)
        guard case .object(var members) = record.jsonObject(renaming: try renamer.keys(of: entity)) else { return record.jsonObject() }
        let key = record.key
        for relationship in context.schema.relationships {
            let name = renamer.name(relationship.name)
            switch relationship.kind {
            case .toOne:
                let reference = fields.value(at: FieldPath.components(of: relationship.keyField))
                let target = try reference.flatMap { $0 == .null ? nil : try self.record(entity: relationship.target, key: $0) }
                members.append(JSONMember(key: name, value: try target.map { $0.jsonObject(renaming: try renamer.keys(of: relationship.target)) } ?? .null))
            case .keyList:
                guard case .list(let keys)? = fields.value(at: FieldPath.components(of: relationship.keyField)) else { continue }
                let targets = try keys.compactMap { try self.record(entity: relationship.target, key: $0) }
                members.append(JSONMember(key: name, value: .array(try targets.map { $0.jsonObject(renaming: try renamer.keys(of: relationship.target)) })))
            }
        }
        for (holder, relationship) in try incomingRelationships(of: entity) {
            guard let inverse = relationship.inverse else { continue }
            let comparison = FieldComparison(field: FieldPath.components(of: relationship.keyField), op: .equal, value: key,
                                             quantifier: relationship.kind == .keyList ? .any : nil)
            let related = try QueryRequest<StoredRecord>(transaction: self, entity: holder).filtered(by: .comparison(comparison)).all()
            let keys = try renamer.keys(of: holder)
            members.append(JSONMember(key: renamer.name(inverse), value: .array(related.map { $0.jsonObject(renaming: keys) })))
        }
        return .object(members)
    }
}

/// JSON keys of each entity's fields for an export, looked up once per entity.
private struct KeyRenamer {
    package let transaction: ReadTransaction
    package let enabled: Bool
    var cache: [String: [String: String]] = [:]

    package init(transaction: ReadTransaction, enabled: Bool) {
        self.transaction = transaction
        self.enabled = enabled
    }

    package mutating func keys(of entity: String) throws -> [String: String] {
        guard enabled else { return [:] }
        if let known = cache[entity] { return known }
        let keys = try transaction.entityDescription(named: entity, sampleLimit: StoredFieldSample.lookupRecords).exportedKeys
        cache[entity] = keys
        return keys
    }

    package func name(_ relationship: String) -> String { enabled ? EntityDescription.snakeCase(relationship) : relationship }
}

extension EntityDescription {
    /// The JSON key of each field for an export that imports again: its `jsonKey`, else the field
    /// name in snake case (`createdDate` → `created_date`, `geonameid` stays), which the import's
    /// conventions map back to the field. The primary key is no exception (a key imported from
    /// `geonameid` is exported as `geonameid`, so `--primary-key geonameid` finds it again), except
    /// a key generated from the records' positions, which no file held: it is exported as `id`.
    public var exportedKeys: [String: String] {
        var keys: [String: String] = [:]
        for field in fields {
            keys[field.name] = field.jsonKey ?? (primaryKeyIsGenerated && field.name == primaryKey ? "id" : Self.snakeCase(field.name))
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
