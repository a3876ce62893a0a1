/// The `"fullText"` member of a schema file's entity (``FullTextIndexDescription``).
extension SchemaFile {
    /// The full-text indexes `value` declares for `entity`: an array of field names (one index on
    /// them), an object, or an array of objects, each with `fields` and optionally `weights`,
    /// `stemming`, `stopWords` and `name`.
    package static func fullTextIndexes(_ value: JSONValue, entity: String) throws -> [FullTextIndexDescription] {
        switch value {
        case .array(let elements) where !elements.isEmpty && elements.allSatisfy({ if case .string = $0 { true } else { false } }):
            return [FullTextIndexDescription(fields: try names(value, entity: entity))]
        case .array(let elements):
            return try elements.map { try fullTextIndex($0, entity: entity) }
        case .object:
            return [try fullTextIndex(value, entity: entity)]
        default:
            throw invalid("\"fullText\" is an array of field names, or full-text index objects", entity: entity)
        }
    }

    private static func fullTextIndex(_ value: JSONValue, entity: String) throws -> FullTextIndexDescription {
        guard case .object = value, let fields = value["fields"] else {
            throw invalid("a full-text index is an object with \"fields\", an array of field names", entity: entity)
        }
        var weights: [Double]?
        if let given = value["weights"] {
            guard case .array(let numbers) = given else { throw invalid("full-text \"weights\" is an array of numbers", entity: entity) }
            weights = try numbers.map { number in
                switch number {
                case .int(let integer): Double(integer)
                case .double(let double): double
                default: throw invalid("full-text \"weights\" is an array of numbers", entity: entity)
                }
            }
        }
        func option<Option: RawRepresentable & CaseIterable>(_ key: String, _ type: Option.Type) throws -> Option?
        where Option.RawValue == String {
            guard let given = value[key] else { return nil }
            guard case .string(let text) = given, let option = Option(rawValue: text) else {
                let names = Option.allCases.map(\.rawValue).joined(separator: " or ")
                throw invalid("full-text \"\(key)\" is \(names)", entity: entity)
            }
            return option
        }
        var name: String?
        if let given = value["name"] {
            guard case .string(let text) = given else { throw invalid("a full-text index's \"name\" is a string", entity: entity) }
            name = text
        }
        return FullTextIndexDescription(fields: try names(fields, entity: entity), weights: weights,
                                        stemming: try option("stemming", TextStemming.self) ?? .none,
                                        stopWords: try option("stopWords", TextStopWords.self) ?? .none, name: name)
    }

    private static func names(_ value: JSONValue, entity: String) throws -> [String] {
        guard case .array(let elements) = value, !elements.isEmpty else {
            throw invalid("a full-text index needs \"fields\", an array of field names", entity: entity)
        }
        return try elements.map { element in
            guard case .string(let name) = element else { throw invalid("full-text index fields are field names", entity: entity) }
            return name
        }
    }

    /// The `"fullText"` member for `indexes`: one object each, with what differs from the defaults.
    static func json(_ indexes: [FullTextIndexDescription]) -> JSONValue {
        .array(indexes.map { index in
            var members = [JSONMember(key: "fields", value: .array(index.fields.map(JSONValue.string)))]
            if index.weights.contains(where: { $0 != 1 }) {
                members.append(JSONMember(key: "weights", value: .array(index.weights.map { weight in
                    if let whole = Int64(exactly: weight) { .int(whole) } else { .double(weight) }
                })))
            }
            if index.stemming != .none { members.append(JSONMember(key: "stemming", value: .string(index.stemming.rawValue))) }
            if index.stopWords != .none { members.append(JSONMember(key: "stopWords", value: .string(index.stopWords.rawValue))) }
            if index.name != index.fields.joined(separator: ",") { members.append(JSONMember(key: "name", value: .string(index.name))) }
            return .object(members)
        })
    }
}
