import Foundation

extension EntityDescription {
    /// A description inferred from JSON records, for importing JSON without writing a schema (what
    /// `strata import` does without `--schema`, and says so).
    ///
    /// Reads every record once: each JSON key becomes a field named by the convention mapping
    /// (`first_name` → `firstName`), typed from all its values (integers, numbers when any value
    /// has a fraction, booleans, dates when every string is an ISO 8601 date and time, UUIDs when
    /// every string is one, strings; arrays by their elements; objects and mixed values as `any`),
    /// optional when any record has null or lacks the key. The primary key is `id` (or `_id`),
    /// which every record must have. No indexes.
    ///
    /// Throws `.malformedJSON` with the position for bad JSON, `.invalidRecord` for a record that
    /// is not an object or lacks the key, `.invalidValue` when no primary key can be chosen.
    public static func inferred(name: String, fromJSONFile path: String, rootKey: String? = nil,
                                limits: JSONLimits = JSONLimits()) throws -> EntityDescription {
        try infer(name: name, parser: JSONParser(source: try FileByteSource(path: path), limits: limits), rootKey: rootKey)
    }

    /// As ``inferred(name:fromJSONFile:rootKey:limits:)``, from bytes in memory.
    public static func inferred(name: String, fromJSON data: Data, rootKey: String? = nil,
                                limits: JSONLimits = JSONLimits()) throws -> EntityDescription {
        try infer(name: name, parser: JSONParser(source: InMemoryByteSource(Array(data)), limits: limits), rootKey: rootKey)
    }

    private static func infer(name: String, parser: JSONParser, rootKey: String?) throws -> EntityDescription {
        var parser = parser
        var fields: [String: InferredField] = [:]
        var order: [String] = []
        var records = 0
        while let record = try parser.nextRecord(rootKey: rootKey) {
            guard case .object(let members) = record else {
                var error = StrataError(.invalidRecord, "\(name) record \(records): expected an object, found \(record.kind)", entity: name)
                error.record = records
                throw error
            }
            for member in members {
                if fields[member.key] == nil {
                    fields[member.key] = InferredField(firstSeenIn: records)
                    order.append(member.key)
                }
                fields[member.key]!.add(member.value, record: records)
            }
            records += 1
        }
        // A field missing from some record is optional: found once, after the records are read,
        // rather than by looking for every known field in every record.
        for key in order { fields[key]!.finish(records: records) }
        guard let keyName = ["id", "_id"].first(where: { fields[$0] != nil }) else {
            throw StrataError(.invalidValue, records == 0
                ? "\(name): the JSON holds no records to infer a schema from; give a schema"
                : "\(name): no record field is named 'id' or '_id' to be the primary key; give a schema that names one", entity: name)
        }
        var described: [FieldDescription] = []
        var usedNames = Set<String>()
        for key in order {
            let field = fields[key]!
            var fieldName = key == keyName ? "id" : Self.conventionalName(key)
            if fieldName.isEmpty || usedNames.contains(fieldName) { fieldName = key }
            usedNames.insert(fieldName)
            let isKey = key == keyName
            described.append(FieldDescription(fieldName, field.type ?? .any, optional: !isKey && (field.isOptional || field.firstSeenIn > 0),
                                              jsonKey: fieldName == key || Self.conventionalName(key) == fieldName || isKey ? nil : key))
        }
        let description = EntityDescription(name: name, primaryKey: "id", fields: described)
        let keyField = fields[keyName]!
        guard !keyField.isOptional, keyField.firstSeenIn == 0, description.field("id")?.type.isKeyType == true else {
            let reason: String, record: Int
            if keyField.firstSeenIn > 0 {
                (reason, record) = ("some records lack it or have null: record 0 lacks it", 0)
            } else if let missing = keyField.firstMissingIn, missing < (keyField.firstNullIn ?? .max) {
                (reason, record) = ("some records lack it or have null: record \(missing) lacks it", missing)
            } else if let null = keyField.firstNullIn {
                (reason, record) = ("some records lack it or have null: record \(null) has null", null)
            } else {
                record = keyField.firstNonKeyTypeIn ?? 0
                reason = "its values are \(keyField.type.map { "\($0)" } ?? "mixed"), not integers, strings or UUIDs (from record \(record) on)"
            }
            var error = StrataError(.invalidValue, "\(name): '\(keyName)' cannot be the primary key: \(reason)", entity: name, field: keyName)
            error.record = record
            throw error
        }
        try description.validate()
        return description
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
        guard let found = Self.type(of: value) else { isOptional = true; return }
        type = type.map { Self.merge($0, found) } ?? found
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
        case .bool: return .bool
        case .int: return .integer
        case .double: return .double
        case .string(let text):
            if UUID(uuidString: text) != nil { return .uuid }
            if text.count >= 16, DateParsing.iso8601(text) != nil { return .date }   // a date and a time, not just a day or a number
            return .string
        case .array(let elements):
            let types = elements.compactMap(type(of:))
            return .array(types.dropFirst().reduce(types.first ?? .any) { merge($0, $1) })
        case .object:
            return .any
        }
    }

    /// The narrowest type holding values of both (also what the type check samples from stored
    /// values, ``FieldTypes/sampled(_:in:limit:)``).
    static func merge(_ a: FieldType, _ b: FieldType) -> FieldType {
        switch (a, b) {
        case _ where a == b: return a
        case (.integer, .double), (.double, .integer): return .double
        case (.date, .string), (.string, .date), (.uuid, .string), (.string, .uuid), (.date, .uuid), (.uuid, .date): return .string
        case (.array(let x), .array(let y)):
            if x == .any, y != .any { return b }   // an empty array says nothing about the elements
            if y == .any { return a }
            return .array(merge(x, y))
        default: return .any
        }
    }
}
