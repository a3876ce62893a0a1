import Foundation

extension EntityDescription {
    /// A description inferred from JSON records, for importing JSON without writing a schema (what
    /// `strata import` does without `--schema`, and says so), or completing a partial one.
    ///
    /// Reads every record once: each JSON key becomes a field named by the convention mapping
    /// (`first_name` → `firstName`, the key recorded as the field's ``FieldDescription/jsonKey``
    /// so that an export gives it back), typed from all its values (integers, numbers when any
    /// value has a fraction, booleans, dates when every string is an ISO 8601 date and time, UUIDs
    /// when every string is one, strings; arrays by their elements; objects and mixed values as
    /// `any`), optional when any record has null or lacks the key. No indexes.
    ///
    /// The records are read as ``ImportOptions/InputFormat`` says: `inputFormat` (by default
    /// told from the input, as the importer tells it), JSON Lines, keyed objects with their
    /// member names in `keyField` (`id` unless given), or one JSON document with `rootKey`.
    ///
    /// The primary key, in this order: the partial description's, `primaryKey` (a JSON key or the
    /// field name it becomes: `alpha_2` or `alpha2`; several separated by commas for a compound
    /// key, `"country,year"`), the key field of keyed objects, a field `id` (or `_id`), which
    /// every record must have; else, with
    /// `generatingKey`, an integer `id` numbered by each record's position in the input
    /// (``primaryKeyIsGenerated``). A key named by the partial description or `primaryKey` stays
    /// the key when some records lack it or have null (the importer names each such record, or
    /// skips it with ``ImportOptions/ErrorPolicy/skip``); `id` found by convention must be in every record.
    ///
    /// - Parameter name: the entity's name.
    /// - Parameter path: the JSON file to read.
    /// - Parameter rootKey: the member of a top-level object that holds the records, if any.
    /// - Parameter inputFormat: how the records lie in the input (``ImportOptions/inputFormat``).
    /// - Parameter keyField: the JSON key keyed objects' member names fill (``ImportOptions/keyField``).
    /// - Parameter primaryKey: the primary key's JSON key or field name, when not found by the rules above.
    /// - Parameter generatingKey: number the records when no key is found.
    /// - Parameter limits: the limits the JSON parser applies, and the most fields a record may
    ///   have (``JSONLimits/maximumRecordFields``).
    /// - Parameter partial: a description naming only some fields (a schema file read with
    ///   ``SchemaFile/init(json:allowingPartial:)``): its fields, key, indexes and relationships are
    ///   kept as written; JSON keys that fill none of its fields or relationships are inferred.
    /// - Parameter related: the other entities of the schema: keys named after their inverse
    ///   relationships to this entity are nested records, not fields.
    /// - Parameter progress: called as the records are read (every few thousand records, and
    ///   once at the end), as an import's ``ImportOptions/progress`` is.
    ///
    /// Throws `.malformedJSON` with the position for bad JSON, `.invalidRecord` for a record that
    /// is not an object, lacks the key or has more fields than the limits allow (numbered from 1,
    /// as the importer numbers them), `.invalidValue` when no primary key can be chosen (saying
    /// so when the document is one object holding arrays of records, which a root key would
    /// pick) or for a `keyField` without keyed objects.
    public static func inferred(name: String, fromJSONFile path: String, rootKey: String? = nil,
                                inputFormat: ImportOptions.InputFormat = .detected, keyField: String? = nil, primaryKey: String? = nil,
                                generatingKey: Bool = false, completing partial: EntityDescription? = nil,
                                related: [EntityDescription] = [], limits: JSONLimits = JSONLimits(),
                                progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> EntityDescription {
        try infer(name: name, source: .file(path), options: ImportOptions(rootKey: rootKey, inputFormat: inputFormat, keyField: keyField, limits: limits),
                  key: KeyRequest(requested: primaryKey, generating: generatingKey), partial: partial, related: related, progress: progress)
    }

    /// As ``inferred(name:fromJSONFile:rootKey:inputFormat:keyField:primaryKey:generatingKey:completing:related:limits:progress:)``, from bytes in memory.
    public static func inferred(name: String, fromJSON data: Data, rootKey: String? = nil,
                                inputFormat: ImportOptions.InputFormat = .detected, keyField: String? = nil, primaryKey: String? = nil,
                                generatingKey: Bool = false, completing partial: EntityDescription? = nil,
                                related: [EntityDescription] = [], limits: JSONLimits = JSONLimits()) throws -> EntityDescription {
        try infer(name: name, source: .bytes(Array(data)), options: ImportOptions(rootKey: rootKey, inputFormat: inputFormat, keyField: keyField, limits: limits),
                  key: KeyRequest(requested: primaryKey, generating: generatingKey), partial: partial, related: related)
    }

    /// How the primary key is to be chosen.
    private struct KeyRequest {
        var requested: String?
        var generating: Bool
    }

    /// Where the primary key comes from.
    private enum KeyChoice: Equatable {
        /// A field the partial description names.
        case described(String)
        /// A JSON key of the records.
        case json(String)
        /// Numbered by position.
        case generated
    }

    private static func infer(name: String, source: ImportSource, options: ImportOptions, key request: KeyRequest,
                              partial: EntityDescription?, related: [EntityDescription],
                              progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> EntityDescription {
        let options = try options.resolvingInputFormat(of: source)
        var parser = try options.parser(of: source)
        let rootKey = options.rootKey
        var request = request
        // Keyed objects' names are their key, unless the caller or the partial description names another.
        if options.inputFormat == .keyedObjects, request.requested == nil, partial?.primaryKey.isEmpty ?? true {
            request.requested = options.keyedObjectsField
        }
        let described = partial?.fields ?? []
        let partialKey = partial.flatMap { $0.primaryKey.isEmpty ? nil : $0.primaryKey }
        // The JSON keys the partial description's fields and relationships take.
        // (`company_id` fills the key field of the relationship `company`, as the importer maps it.)
        var aliases: [String: String] = [:]
        for relationship in partial?.relationships ?? [] where !relationship.keyField.contains(".") {
            aliases[KeyMapping.normalize(relationship.name) + (relationship.kind == .toOne ? "id" : "ids")] = relationship.keyField
        }
        let mapping = KeyMapping(fields: described, primaryKey: partialKey.flatMap { key in described.contains { $0.name == key } ? key : nil },
                                 aliases: aliases)
        let inverses = related.flatMap { $0.relationships.filter { $0.target == name }.compactMap(\.inverse) }
        let relationshipKeys = Set(((partial?.relationships ?? []).map(\.name) + inverses).map(KeyMapping.normalize))
        var fields: [String: InferredField] = [:]
        var order: [String] = []
        var describedKeys: [String: Int] = [:]
        var relationshipKeyCache: [String: Bool] = [:]
        var records = 0
        /// The arrays of objects of a document that is one object: what a root key would import.
        var arraysOfRecords: [(key: String, count: Int)] = []
        while let record = try parser.nextRecord(rootKey: rootKey) {
            guard case .object(let members) = record else {
                var error = StrataError(.invalidRecord, "\(name) record \(records + 1): expected an object, found \(record.kind)", entity: name)
                error.record = records + 1
                throw error
            }
            if members.count > options.limits.maximumRecordFields {
                // Mostly objects: keyed objects but for a few members, which are named.
                let others = members.filter { if case .object = $0.value { false } else { true } }
                let mostlyObjects = others.count < members.count / 2 && !others.isEmpty
                let named = others.prefix(3).map { "\(JSONValue.quoted($0.key)) (\($0.value.kind))" }.joined(separator: ", ")
                var error = StrataError(.invalidRecord, "\(name) record \(records + 1): " + options.limits.tooManyFields(members.count)
                    + (mostlyObjects ? "; all its members are objects but \(others.count): \(named)\(others.count > 3 ? ", …" : "")" : ""), entity: name)
                error.record = records + 1
                throw error
            }
            if records == 0, rootKey == nil, parser.documentIsOneObject {
                arraysOfRecords = members.compactMap { member in
                    guard case .array(let elements) = member.value, case .object? = elements.first else { return nil }
                    return (member.key, elements.count)
                }
            }
            for member in members {
                if let field = mapping.field(for: member.key) {
                    if describedKeys[member.key] == nil {
                        describedKeys[member.key] = field
                        order.append(member.key)
                    }
                    continue
                }
                // Keys repeat across records: whether one names a relationship is decided once.
                let isRelationship: Bool
                if let known = relationshipKeyCache[member.key] {
                    isRelationship = known
                } else {
                    isRelationship = relationshipKeys.contains(KeyMapping.normalize(member.key))
                    if relationshipKeyCache.count < 4096 { relationshipKeyCache[member.key] = isRelationship }
                }
                if isRelationship { continue }
                if fields[member.key] == nil {
                    fields[member.key] = InferredField(firstSeenIn: records)
                    order.append(member.key)
                }
                fields[member.key]!.add(member.value, record: records)
            }
            records += 1
            if let progress, records % 4096 == 0 { progress(ImportProgress(recordsRead: records, bytesRead: parser.offset, totalBytes: source.size)) }
        }
        progress?(ImportProgress(recordsRead: records, bytesRead: parser.offset, totalBytes: source.size))
        // A field missing from some record is optional: found once, after the records are read,
        // rather than by looking for every known field in every record.
        for key in order where fields[key] != nil { fields[key]!.finish(records: records) }
        let choices = try chooseKey(name: name, request: request, partialKey: partialKey, described: described,
                                    inferredKeys: order.filter { fields[$0] != nil }, records: records, arraysOfRecords: arraysOfRecords)

        var result: [FieldDescription] = []
        var usedNames = Set(described.map(\.name))
        // The field name of each part of the key, in key order.
        var keyFieldNames = [String](repeating: "", count: choices.count)
        for (part, choice) in choices.enumerated() {
            switch choice {
            case .generated:
                let taken = usedNames.union(order.map(conventionalName)).union(order)
                keyFieldNames[part] = ["id", "rowID", "recordNumber"].first { !taken.contains($0) } ?? "strataRowID"
                usedNames.insert(keyFieldNames[part])
                result.append(FieldDescription(keyFieldNames[part], .scalar(.integer)))
            case .described(let field): keyFieldNames[part] = field
            case .json: break
            }
        }
        // The described fields in the order they are written, then the inferred ones in the data's.
        result += described
        for key in order where describedKeys[key] == nil {
            let field = fields[key]!
            let part = choices.firstIndex { if case .json(let keyJSON) = $0 { keyJSON == key } else { false } }
            var fieldName = Self.conventionalName(key)
            // `id` and `_id` chosen by convention name the field `id`, as they always have.
            if part != nil, request.requested == nil, partialKey == nil { fieldName = "id" }
            if fieldName.isEmpty || usedNames.contains(fieldName) { fieldName = key }
            usedNames.insert(fieldName)
            if let part { keyFieldNames[part] = fieldName }
            result.append(FieldDescription(fieldName, field.type ?? .any, optional: part == nil && (field.isOptional || field.firstSeenIn > 0),
                                           jsonKey: fieldName == key ? nil : key))
        }
        var description = EntityDescription(name: name, primaryKey: keyFieldNames.joined(separator: ","), fields: result,
                                            indexes: partial?.indexes ?? [], relationships: partial?.relationships ?? [])
        // A schema file's full-text indexes are kept, as its indexes are.
        description.fullTextIndexes = partial?.fullTextIndexes ?? []
        if case .generated = choices.first { description.primaryKeyIsGenerated = true }
        for (part, choice) in choices.enumerated() {
            if case .json(let keyName) = choice {
                try checkKey(fields[keyName]!, named: keyName, entity: name, type: description.field(keyFieldNames[part])?.type,
                             compound: choices.count > 1 ? description.primaryKeyFields : nil,
                             requested: partialKey != nil || request.requested != nil)
            }
        }
        try description.validate()
        return description
    }

    /// The source of each field of the primary key (one, or several for a compound key), or an
    /// error saying why none can be chosen.
    private static func chooseKey(name: String, request: KeyRequest, partialKey: String?, described: [FieldDescription],
                                  inferredKeys: [String], records: Int, arraysOfRecords: [(key: String, count: Int)]) throws -> [KeyChoice] {
        func matches(_ jsonKey: String, _ asked: String) -> Bool {
            jsonKey == asked || conventionalName(jsonKey) == asked
        }
        if let partialKey, let requested = request.requested {
            let schemaParts = EntityDescription.keyFields(partialKey), requestedParts = EntityDescription.keyFields(requested)
            let agree = schemaParts.count == requestedParts.count && zip(schemaParts, requestedParts).allSatisfy { schemaPart, requestedPart in
                schemaPart == requestedPart
                    || inferredKeys.contains { matches($0, requestedPart) && matches($0, schemaPart) }
                    || described.contains { $0.name == schemaPart && $0.jsonKey == requestedPart }
            }
            guard agree else {
                throw StrataError(.invalidValue, "\(name): the schema names '\(partialKey)' as the primary key, not '\(requested)'", entity: name)
            }
        }
        let hint = rootKeyHint(arraysOfRecords)
        if let asked = partialKey ?? request.requested {
            let parts = EntityDescription.keyFields(asked)
            let choices: [KeyChoice] = try parts.map { asked in
                if let field = described.first(where: { $0.name == asked || $0.jsonKey == asked }) { return .described(field.name) }
                if inferredKeys.contains(asked) { return .json(asked) }
                if let key = inferredKeys.first(where: { matches($0, asked) }) { return .json(key) }
                let listed = inferredKeys.prefix(20).joined(separator: ", ") + (inferredKeys.count > 20 ? ", …" : "")
                throw StrataError(.invalidValue, "\(name): no record has a field '\(asked)' to be the primary key; "
                    + (hint ?? (records == 0 ? "the JSON holds no records" : "the records' fields are \(listed)")), entity: name, field: asked)
            }
            // `year,year`, or `alpha_2,alpha2`: one field named twice.
            if let twice = choices.indices.first(where: { choices[..<$0].contains(choices[$0]) }) {
                throw StrataError(.invalidValue, "\(name): the primary key '\(asked)' names '\(parts[twice])' twice", entity: name, field: parts[twice])
            }
            return choices
        }
        if let field = described.first(where: { $0.name == "id" || $0.name == "_id" }) { return [.described(field.name)] }
        if let key = ["id", "_id"].first(where: inferredKeys.contains) { return [.json(key)] }
        if let hint { throw StrataError(.invalidValue, "\(name): no record field is named 'id' or '_id' to be the primary key; \(hint)", entity: name) }
        guard records > 0 else {
            throw StrataError(.invalidValue, "\(name): the JSON holds no records to infer a schema from; give a schema", entity: name)
        }
        guard request.generating else {
            throw StrataError(.invalidValue, "\(name): no record field is named 'id' or '_id' to be the primary key; give a schema that names one", entity: name)
        }
        return [.generated]
    }

    /// What to say when the document is one object holding arrays of records.
    private static func rootKeyHint(_ arrays: [(key: String, count: Int)]) -> String? {
        func records(_ count: Int) -> String { "\(count) record\(count == 1 ? "" : "s")" }
        switch arrays.count {
        case 0: return nil
        case 1:
            let (key, count) = arrays[0]
            return "the JSON is one object holding an array of \(records(count)) under \(JSONValue.quoted(key)); "
                + "import that array with the root key \(JSONValue.quoted(key)) (strata import --root-key \(key))"
        default:
            return "the JSON is one object holding arrays of records under "
                + arrays.map { "\(JSONValue.quoted($0.key)) (\(records($0.count)))" }.joined(separator: ", ")
                + "; import one of them with its root key (strata import --root-key NAME)"
        }
    }

    /// Checks that the JSON key `keyName` can be the primary key: its values have a type with an
    /// ordered key encoding and, for a key chosen by convention (`id`), every record has it, not
    /// null. A key the caller `requested` (`--primary-key`, a schema's `primaryKey`) stays the key when
    /// some records lack it: the importer names each such record as an error, or skips it with
    /// ``ImportOptions/ErrorPolicy/skip``. `compound` lists the fields of the key it is part of, if any.
    private static func checkKey(_ keyField: InferredField, named keyName: String, entity name: String, type: FieldType?,
                                 compound: [String]?, requested: Bool) throws {
        let present = !keyField.isOptional && keyField.firstSeenIn == 0
        if present || requested, type?.isKeyType == true { return }
        // `record`: the index of the record to blame; messages count from 1, as the importer's do.
        let reason: String, record: Int
        if requested {
            record = keyField.firstNonKeyTypeIn ?? 0
            reason = "its values are \(keyField.type.map { "\($0)" } ?? "mixed"), not integers, strings or UUIDs (from record \(record + 1) on)"
        } else if keyField.firstSeenIn > 0 {
            (reason, record) = ("some records lack it or have null: record 1 lacks it", 0)
        } else if let missing = keyField.firstMissingIn, missing < (keyField.firstNullIn ?? .max) {
            (reason, record) = ("some records lack it or have null: record \(missing + 1) lacks it", missing)
        } else if let null = keyField.firstNullIn {
            (reason, record) = ("some records lack it or have null: record \(null + 1) has null", null)
        } else {
            record = keyField.firstNonKeyTypeIn ?? 0
            let keyTypes = ScalarType.allCases.filter { $0.keyKind != .other }.map(\.rawValue).joined(separator: ", ")
            reason = "its values are \(keyField.type.map { "\($0)" } ?? "mixed"), not of a type a key can have (\(keyTypes)) (from record \(record + 1) on)"
        }
        let role = compound.map { "a field of the primary key (\($0.joined(separator: ", ")))" } ?? "the primary key"
        var error = StrataError(.invalidValue, "\(name): '\(keyName)' cannot be \(role): \(reason)", entity: name, field: keyName)
        error.record = record + 1
        throw error
    }

    /// `first_name` → `firstName`, `Avatar-URL` → `avatarURL`: lower camel case from `_`, `-`
    /// and space separated words, keeping the case of later words' other letters.
    static func conventionalName(_ key: String) -> String {
        let words = key.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == " " })
        guard let first = words.first else { return "" }
        let head = first.allSatisfy(\.isUppercase) ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        return head + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

/// What the values of one JSON key, or of one stored field rendered as JSON, say about its type.
struct InferredField {
    /// The first record with the key: a key missing from earlier records is optional.
    var firstSeenIn: Int
    var isOptional = false
    /// The type all non-null values agree on so far; nil before the first one.
    var type: FieldType?

    /// The last record with the key, the number of records with it, and the first record after
    /// `firstSeenIn` without it: what ``finish(records:)`` makes optional.
    private var lastSeenIn = -1
    private(set) var firstMissingIn: Int?
    /// The first record where the value is null.
    private(set) var firstNullIn: Int?
    /// The first record whose value made the type one without an ordered key encoding.
    private(set) var firstNonKeyTypeIn: Int?

    init(firstSeenIn: Int) { self.firstSeenIn = firstSeenIn }

    mutating func add(_ value: JSONValue) {
        // Text cannot narrow `string` and nothing narrows `any`: no need to look at the value.
        switch (type, value) {
        case (.scalar(.string)?, .string), (.any?, .string), (.any?, .int), (.any?, .double), (.any?, .bool), (.any?, .object): return
        default: break
        }
        guard let found = Self.type(of: value) else { isOptional = true; return }
        type = type.map { FieldType.merge($0, found) } ?? found
    }

    /// Adds the value of record `record` (records come in order; a key twice in one record counts once).
    mutating func add(_ value: JSONValue, record: Int) {
        if record != lastSeenIn {
            if firstMissingIn == nil, lastSeenIn >= 0, record > lastSeenIn + 1 { firstMissingIn = lastSeenIn + 1 }
            lastSeenIn = record
        }
        if case .null = value, firstNullIn == nil { firstNullIn = record }
        let wasKeyType = type?.isKeyType ?? true
        add(value)
        if wasKeyType, let type, !type.isKeyType, firstNonKeyTypeIn == nil { firstNonKeyTypeIn = record }
    }

    /// Marks the field optional when a record after its first lacks it, `records` being all of them.
    mutating func finish(records: Int) {
        if firstMissingIn == nil, lastSeenIn >= 0, lastSeenIn < records - 1 { firstMissingIn = lastSeenIn + 1 }
        if firstMissingIn != nil { isOptional = true }
    }

    /// The type of one value; nil for null; nil element type for an empty array.
    private static func type(of value: JSONValue) -> FieldType? {
        switch value {
        case .null: return nil
        case .bool: return .scalar(.bool)
        case .int, .wideInt: return .scalar(.integer)
        case .double: return .scalar(.double)
        case .string(let text):
            let length = text.utf8.count   // a UUID's text is 36 ASCII bytes, a date and time's at least 16
            if length == 36, UUID(uuidString: text) != nil { return .scalar(.uuid) }
            if length >= 16, text.count >= 16, DateParsing.iso8601(text) != nil { return .scalar(.date) }   // a date and a time, not just a day or a number
            return .scalar(.string)
        case .array(let elements):
            let types = elements.compactMap(type(of:))
            return .array(types.dropFirst().reduce(types.first ?? .any) { FieldType.merge($0, $1) })
        case .object:
            return .any
        }
    }
}
