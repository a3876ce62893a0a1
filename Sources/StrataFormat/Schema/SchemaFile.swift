import Foundation

/// The schema file of the command-line tool: entity descriptions as people write them.
///
/// ```json
/// { "entities": { "User": {
///     "primaryKey": "remoteID",
///     "fields": {
///       "remoteID":    {"type": "int", "json": "id"},
///       "luckyNumber": {"type": "int", "optional": true},
///       "createdDate": {"type": "date", "json": "created_at", "dateFormat": "secondsSince1970"},
///       "tags":        {"type": "[string]", "default": []},
///       "address":     {"type": "object", "fields": {"city": {"type": "string"}}}
///     },
///     "indexes": [ {"fields": ["lastName"], "collation": "caseDiacriticInsensitive"},
///                  {"fields": ["email"], "unique": true},
///                  {"fields": ["tags"], "multiValue": true} ],
///     "fullText": [ {"fields": ["bio", "notes"], "weights": [2, 1], "stemming": "english"} ],
///     "relationships": {
///       "company": {"toOne": "Company", "field": "companyID", "inverse": "employees", "deleteRule": "nullify"},
///       "groups":  {"toMany": "Group", "field": "groupIDs", "inverse": "members"} } } } }
/// ```
/// A relationship is declared on the entity whose field holds the key (`toOne`, an optional
/// key) or keys (`toMany`, an array of keys); `inverse` names it from the other side
/// (`ANY employees.name == 'x'` on Company); `deleteRule` is nullify (default), cascade or deny.
/// Types: `string int double float bool date data uuid url decimal any`, arrays `[T]`, `object`
/// (with `fields`, an embedded value; without, any JSON object). Fields keep the order they are
/// written in. Collations: `binary`, `caseInsensitive`, `caseDiacriticInsensitive`.
/// `fullText` declares full-text indexes: an array of field names (one index on those fields), or
/// objects with `fields` and optionally `weights`, `stemming` (`none`, `english`), `stopWords`
/// (`none`, `english`) and `name` (see ``FullTextIndexDescription``).
/// A compound primary key lists its fields in key order: `"primaryKey": ["country", "year"]`.
/// `"generatedKey": true` marks a primary key the importer numbers (``EntityDescription/primaryKeyIsGenerated``).
/// A partial file (``init(json:allowingPartial:)``) may leave out `primaryKey`, `fields` or any field.
public struct SchemaFile: Sendable, Hashable {
    /// The entities the file describes.
    public var entities: [EntityDescription]

    /// A schema file of these entities.
    public init(entities: [EntityDescription]) { self.entities = entities }

    /// The entity named `name`.
    public func entity(_ name: String) -> EntityDescription? { entities.first { $0.name == name } }

    /// Reads a schema file. Throws `.malformedJSON` with the position for bad JSON and
    /// `.invalidValue` naming the entity, field and problem for a schema that is not valid.
    ///
    /// - Parameter data: the schema file's bytes (UTF-8 JSON).
    /// - Parameter allowingPartial: an entity may name only some fields, and no `primaryKey` (its
    ///   description's is then empty); such descriptions are not validated here, but once completed
    ///   from the data by ``EntityDescription/inferred(name:fromJSONFile:rootKey:inputFormat:keyField:primaryKey:generatingKey:completing:related:limits:progress:)``,
    ///   which is what `strata import --schema` does.
    public init(json data: Data, allowingPartial: Bool = false) throws {
        var parser = JSONParser(source: InMemoryByteSource(Array(data)))
        guard let root = try parser.nextRecord(rootKey: nil), try parser.nextRecord(rootKey: nil) == nil,
              case .object = root, case .object(let entities)? = root["entities"] else {
            throw Self.invalid("a schema file is an object with an \"entities\" object of entity descriptions")
        }
        self.entities = try entities.map { member in
            let description = try Self.entity(member.key, member.value, partial: allowingPartial)
            if !allowingPartial { try description.validate() }
            return description
        }
    }

    /// The schema file as pretty-printed JSON text.
    public var jsonText: String { jsonValue.prettyText }

    /// The schema file as a JSON value.
    public var jsonValue: JSONValue {
        .object([JSONMember(key: "entities", value: .object(entities.map { JSONMember(key: $0.name, value: Self.json($0)) }))])
    }

    // MARK: Reading

    static func invalid(_ message: String, entity: String? = nil, field: String? = nil) -> StrataError {
        let place = [entity.map { "entity '\($0)'" }, field.map { "field '\($0)'" }].compactMap { $0 }.joined(separator: ", ")
        return StrataError(.invalidValue, "schema file\(place.isEmpty ? "" : ", " + place): \(message)", entity: entity, field: field)
    }

    private static func entity(_ name: String, _ value: JSONValue, partial: Bool) throws -> EntityDescription {
        guard case .object = value else { throw invalid("an entity description is an object", entity: name) }
        let primaryKey: String
        switch value["primaryKey"] {
        case .string(let key)?: primaryKey = key
        case .array(let names)? where !names.isEmpty:
            // A compound key: its fields in key order.
            primaryKey = try names.map { element in
                guard case .string(let field) = element, !field.isEmpty, !field.contains(",") else {
                    throw invalid("\"primaryKey\" must name a field, or list the fields of a compound key", entity: name)
                }
                return field
            }.joined(separator: ",")
        case nil where partial: primaryKey = ""
        default: throw invalid("\"primaryKey\" must name a field, or list the fields of a compound key", entity: name)
        }
        let fieldMembers: [JSONMember]
        switch value["fields"] {
        case .object(let members)?: fieldMembers = members
        case nil where partial: fieldMembers = []
        default: throw invalid("\"fields\" must be an object of field descriptions", entity: name)
        }
        let fields = try fieldMembers.map { try field($0.key, $0.value, entity: name) }
        var generated = false
        if let flag = value["generatedKey"] {
            guard case .bool(let set) = flag else { throw invalid("\"generatedKey\" must be true or false", entity: name) }
            generated = set
        }
        var indexes: [IndexDescription] = []
        if let list = value["indexes"] {
            guard case .array(let elements) = list else { throw invalid("\"indexes\" must be an array", entity: name) }
            indexes = try elements.map { try index($0, entity: name) }
        }
        var relationships: [RelationshipDescription] = []
        if let declared = value["relationships"] {
            guard case .object(let members) = declared else { throw invalid("\"relationships\" must be an object", entity: name) }
            relationships = try members.map { try relationship($0.key, $0.value, entity: name) }
        }
        var description = EntityDescription(name: name, primaryKey: primaryKey, fields: fields, indexes: indexes, relationships: relationships)
        description.primaryKeyIsGenerated = generated
        if let declared = value["fullText"] { description.fullTextIndexes = try fullTextIndexes(declared, entity: name) }
        return description
    }

    private static func relationship(_ name: String, _ value: JSONValue, entity: String) throws -> RelationshipDescription {
        let kind: RelationshipDescription.Kind
        let target: String
        switch (value["toOne"], value["toMany"]) {
        case (.string(let one)?, nil): (kind, target) = (.toOne, one)
        case (nil, .string(let many)?): (kind, target) = (.toMany, many)
        default: throw invalid("relationship '\(name)' needs \"toOne\" or \"toMany\" naming the related entity", entity: entity)
        }
        guard case .string(let field)? = value["field"] else {
            throw invalid("relationship '\(name)' needs \"field\", the field holding the key(s)", entity: entity)
        }
        var inverse: String?
        if let given = value["inverse"] {
            guard case .string(let text) = given else { throw invalid("relationship '\(name)': \"inverse\" must be a name", entity: entity) }
            inverse = text
        }
        var rule = DeleteRule.nullify
        if let given = value["deleteRule"] {
            guard case .string(let text) = given, let parsed = DeleteRule(rawValue: text) else {
                throw invalid("relationship '\(name)': \"deleteRule\" is nullify, cascade or deny", entity: entity)
            }
            rule = parsed
        }
        return RelationshipDescription(name, kind, target: target, keyField: field, inverse: inverse, deleteRule: rule)
    }

    /// The field `name` of `entity` as a schema file (or a migration plan's `addField`) describes
    /// it: `type`, `fields` of an object, `optional`, `json`, `dateFormat`, `default`.
    package static func field(_ name: String, _ value: JSONValue, entity: String) throws -> FieldDescription {
        guard case .string(let typeName)? = value["type"] else { throw invalid("\"type\" must be a type name", entity: entity, field: name) }
        var type = try self.type(typeName, entity: entity, field: name)
        if case .object(let nestedMembers)? = value["fields"] {
            guard type == .any else { throw invalid("only an \"object\" field has \"fields\"", entity: entity, field: name) }
            type = .object(try nestedMembers.map { try field($0.key, $0.value, entity: entity) })
        }
        var optional = false
        if let flag = value["optional"] {
            guard case .bool(let set) = flag else { throw invalid("\"optional\" must be true or false", entity: entity, field: name) }
            optional = set
        }
        var jsonKey: String?
        if let key = value["json"] {
            guard case .string(let text) = key else { throw invalid("\"json\" must be a JSON key", entity: entity, field: name) }
            jsonKey = text
        }
        var dateFormat: DateFormat?
        if let format = value["dateFormat"] {
            guard case .string(let text) = format, let parsed = DateFormat(rawValue: text) else {
                throw invalid("\"dateFormat\" must be one of automatic, iso8601, secondsSince1970, millisecondsSince1970", entity: entity, field: name)
            }
            dateFormat = parsed
        }
        let defaultValue = value["default"].flatMap { $0 == .null ? nil : $0 }
        return FieldDescription(name, type, optional: optional, jsonKey: jsonKey, dateFormat: dateFormat, default: defaultValue)
    }

    /// The type names a schema file may use: the table's (``FieldType``'s names, from ``ScalarType``)
    /// and `any`, with the aliases `int` and `object`.
    private static let typeNames: [String: FieldType] = FieldType.names.merging(["int": .scalar(.integer), "object": .any]) { name, _ in name }

    /// The type `name` spells: `[T]` is an array of T. The brackets are counted in one pass and
    /// capped at ``EntityDescription/maximumTypeDepth``, so a name nested thousands of levels
    /// costs no more than its length.
    package static func type(_ name: String, entity: String, field: String) throws -> FieldType {
        var rest = Substring(name).trimmingCharacters(in: .whitespaces)[...]
        var depth = 0
        while rest.hasPrefix("["), rest.hasSuffix("]"), rest.count >= 2 {
            depth += 1
            guard depth <= EntityDescription.maximumTypeDepth else {
                throw invalid("the type is nested more than \(EntityDescription.maximumTypeDepth) levels deep", entity: entity, field: field)
            }
            rest = rest.dropFirst().dropLast()
            while rest.first?.isWhitespace == true, rest.first != "\n" { rest = rest.dropFirst() }
            while rest.last?.isWhitespace == true, rest.last != "\n" { rest = rest.dropLast() }
        }
        guard var type = typeNames[String(rest)] else {
            throw invalid("unknown type '\(EntityDescription.visible(name))'; one of string int double float bool date data uuid url decimal any object, or [T]",
                          entity: entity, field: field)
        }
        for _ in 0..<depth { type = .array(type) }
        return type
    }

    private static let collations: [String: IndexCollation] = [
        "binary": .binary, "caseInsensitive": .caseInsensitive,
        "caseDiacriticInsensitive": .caseAndDiacriticInsensitive, "caseAndDiacriticInsensitive": .caseAndDiacriticInsensitive,
    ]

    /// An index of `entity` as a schema file (or a migration plan's `addIndex`) describes it:
    /// `fields`, `collation`, `unique`, `multiValue`.
    package static func index(_ value: JSONValue, entity: String) throws -> IndexDescription {
        guard case .array(let names)? = value["fields"], !names.isEmpty else {
            throw invalid("an index needs \"fields\", an array of field names", entity: entity)
        }
        let fields = try names.map { name -> String in
            guard case .string(let text) = name else { throw invalid("index fields are field names", entity: entity) }
            return text
        }
        var collation = IndexCollation.binary
        if let given = value["collation"] {
            guard case .string(let text) = given, let known = collations[text] else {
                throw invalid("an index collation is binary, caseInsensitive or caseDiacriticInsensitive", entity: entity)
            }
            collation = known
        }
        func flag(_ key: String) throws -> Bool {
            guard let value = value[key] else { return false }
            guard case .bool(let set) = value else { throw invalid("\"\(key)\" must be true or false", entity: entity) }
            return set
        }
        return IndexDescription(fields: fields, collation: collation, unique: try flag("unique"), multiValue: try flag("multiValue"))
    }

    // MARK: Writing

    private static func json(_ entity: EntityDescription) -> JSONValue {
        var members = [
            JSONMember(key: "primaryKey", value: entity.hasCompoundKey ? .array(entity.primaryKeyFields.map(JSONValue.string)) : .string(entity.primaryKey)),
            JSONMember(key: "fields", value: .object(entity.fields.map { JSONMember(key: $0.name, value: json($0)) })),
        ]
        if entity.primaryKeyIsGenerated { members.append(JSONMember(key: "generatedKey", value: .bool(true))) }
        if !entity.indexes.isEmpty {
            members.append(JSONMember(key: "indexes", value: .array(entity.indexes.map { index in
                var parts = [JSONMember(key: "fields", value: .array(index.fields.map(JSONValue.string)))]
                if index.collation != .binary {
                    parts.append(JSONMember(key: "collation", value: .string(collationName(index.collation))))
                }
                if index.isUnique { parts.append(JSONMember(key: "unique", value: .bool(true))) }
                if index.isMultiValue { parts.append(JSONMember(key: "multiValue", value: .bool(true))) }
                return .object(parts)
            })))
        }
        if !entity.fullTextIndexes.isEmpty { members.append(JSONMember(key: "fullText", value: json(entity.fullTextIndexes))) }
        if !entity.relationships.isEmpty {
            members.append(JSONMember(key: "relationships", value: .object(entity.relationships.map { relationship in
                var parts = [JSONMember(key: relationship.kind == .toOne ? "toOne" : "toMany", value: .string(relationship.target)),
                             JSONMember(key: "field", value: .string(relationship.keyField))]
                if let inverse = relationship.inverse { parts.append(JSONMember(key: "inverse", value: .string(inverse))) }
                parts.append(JSONMember(key: "deleteRule", value: .string(relationship.deleteRule.rawValue)))
                return JSONMember(key: relationship.name, value: .object(parts))
            })))
        }
        return .object(members)
    }

    /// The collation's name in schema files (the issue's spelling of `[cd]`).
    public static func collationName(_ collation: IndexCollation) -> String {
        switch collation {
        case .binary: "binary"
        case .caseInsensitive: "caseInsensitive"
        case .caseAndDiacriticInsensitive: "caseDiacriticInsensitive"
        }
    }

    /// The collation a schema file or command line names, in either spelling of `[cd]`.
    public static func collation(named name: String) -> IndexCollation? { collations[name] }

    private static func json(_ field: FieldDescription) -> JSONValue {
        var members = [JSONMember(key: "type", value: .string(typeName(field.type)))]
        if case .object(let nested) = field.type {
            members.append(JSONMember(key: "fields", value: .object(nested.map { JSONMember(key: $0.name, value: json($0)) })))
        }
        if field.isOptional { members.append(JSONMember(key: "optional", value: .bool(true))) }
        if let key = field.jsonKey { members.append(JSONMember(key: "json", value: .string(key))) }
        if let format = field.dateFormat { members.append(JSONMember(key: "dateFormat", value: .string(format.rawValue))) }
        if let value = field.defaultValue { members.append(JSONMember(key: "default", value: value)) }
        return .object(members)
    }

    private static func typeName(_ type: FieldType) -> String {
        switch type {
        case .array(let element): "[\(typeName(element))]"
        case .object: "object"
        case .scalar(.integer): "int"
        default: "\(type)"
        }
    }
}

extension JSONValue {
    /// The value as JSON text indented by two spaces, one member or element a line, except that
    /// containers whose compact text fits in 72 characters stay on one line.
    public var prettyText: String {
        var text = ""
        writePretty(into: &text, indent: "")
        return text
    }

    private func writePretty(into text: inout String, indent: String) {
        let inner = indent + "  "
        let inline = inlineText
        if inline.count <= 72 {
            text += inline
            return
        }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            text += "[\n"
            for (position, element) in elements.enumerated() {
                text += inner
                element.writePretty(into: &text, indent: inner)
                text += position == elements.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let members) where !members.isEmpty:
            text += "{\n"
            for (position, member) in members.enumerated() {
                text += inner + JSONValue.quoted(member.key) + ": "
                member.value.writePretty(into: &text, indent: inner)
                text += position == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        default:
            text += jsonText
        }
    }

    /// One line, with a space after each comma and colon. Appended piece by piece: joining the
    /// pieces (`joined(separator:)`) cost the first value a program prints a conformance look-up
    /// through every record of the program.
    private var inlineText: String {
        switch self {
        case .array(let elements):
            var text = "["
            for (position, element) in elements.enumerated() {
                text += position == 0 ? element.inlineText : ", " + element.inlineText
            }
            return text + "]"
        case .object(let members):
            var text = "{"
            for (position, member) in members.enumerated() {
                text += (position == 0 ? "" : ", ") + JSONValue.quoted(member.key) + ": " + member.value.inlineText
            }
            return text + "}"
        default: return jsonText
        }
    }
}
