/// Which field of an object each JSON key fills: convention over configuration, as Kipu did it.
///
/// For every field, in this order of precedence:
/// 1. an explicit JSON key (``FieldDescription/jsonKey``, ``Record/jsonKeys`` or
///    ``ImportOptions/jsonKeys``): only that key fills the field;
/// 2. the field's own name (`firstName`);
/// 3. the name with case, `_` and `-` ignored: `first_name`, `FIRST-NAME` and `firstname` fill
///    `firstName`, `avatar_url` fills `avatarURL`;
/// 4. `<stem>_at` fills `<stem>Date` (`created_at` → `createdDate`), as `created_at` fills a field
///    named `createdAt` by rule 3;
/// 5. `id` and `_id` fill the primary key field (`remoteID`, `syncID`) when no field is named `id`
///    itself; in embedded objects, a field named `remoteID`, `syncID` or `identifier`.
/// Keys that fill no field are counted in the report and otherwise ignored.
package final class KeyMapping {
    let fields: [FieldDescription]
    /// The dotted path of this object's fields, "" at the top level.
    let path: String
    private var exact: [String: Int] = [:]
    private var normalized: [String: Int] = [:]
    /// Lookups already made, by JSON key: the field index, or -1 for none.
    // Exclusivity: touched only inside `field(for:)` and `nestedMapping`, which call nothing that
    // could reach them again.
    @exclusivity(unchecked) private var resolved: [String: Int] = [:]
    /// Mappings of nested object fields, by field index, made on first use.
    @exclusivity(unchecked) private var nested: [Int: KeyMapping] = [:]
    private let overrides: [String: String]

    /// - Parameters:
    ///   - primaryKey: the primary key field's name, at the top level.
    ///   - overrides: JSON keys by dotted field path, taking precedence over the descriptions'.
    ///   - aliases: more normalized JSON keys by the top-level field they fill, below every
    ///     rule above (`companyid` for the reference field of the relationship `company`).
    package init(fields: [FieldDescription], path: String = "", primaryKey: String? = nil, overrides: [String: String] = [:],
         aliases: [String: String] = [:]) {
        self.fields = fields
        self.path = path
        self.overrides = overrides
        var conventional: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            if let key = overrides[Self.join(path, field.name)] ?? field.jsonKey {
                exact[key] = index
                continue
            }
            exact[field.name] = exact[field.name] ?? index
            conventional[Self.normalize(field.name)] = conventional[Self.normalize(field.name)] ?? index
            if field.name.hasSuffix("Date"), field.name.count > 4 {
                let stem = Self.normalize(String(field.name.dropLast(4))) + "at"
                if conventional[stem] == nil { conventional[stem] = index }
            }
        }
        // The field `id` fills: the primary key at the top level; in an embedded object, the
        // field the ancestors named for remote ids (Kipu's and Kern's remoteID, Lidenbrock's syncID).
        let idField = primaryKey ?? fields.first { Self.remoteIDNames.contains($0.name) }?.name
        if let idField, let index = fields.firstIndex(where: { $0.name == idField }), fields[index].jsonKey == nil,
           overrides[Self.join(path, idField)] == nil {
            if conventional["id"] == nil { conventional["id"] = index }
            if exact["_id"] == nil { exact["_id"] = index }
        }
        for (alias, name) in aliases where conventional[alias] == nil {
            if let index = fields.firstIndex(where: { $0.name == name }) { conventional[alias] = index }
        }
        normalized = conventional
    }

    /// The index of the field `key` fills, or nil.
    package func field(for key: String) -> Int? {
        if let known = resolved[key] { return known >= 0 ? known : nil }
        let index = exact[key] ?? normalized[Self.normalize(key)]
        // Keys repeat across records; the cache stays small unless keys are made up per record.
        if resolved.count < 4096 { resolved[key] = index ?? -1 }
        return index
    }

    /// The mapping of the nested object field at `index`.
    func nestedMapping(_ index: Int, fields: [FieldDescription]) -> KeyMapping {
        if let mapping = nested[index] { return mapping }
        let mapping = KeyMapping(fields: fields, path: Self.join(path, self.fields[index].name), overrides: overrides)
        nested[index] = mapping
        return mapping
    }

    /// Field names that `id` fills in embedded objects.
    static let remoteIDNames: Set<String> = ["remoteID", "syncID", "identifier"]

    static func join(_ path: String, _ name: String) -> String { path.isEmpty ? name : path + "." + name }

    /// Lowercased, without `_`, `-` and spaces.
    package static func normalize(_ name: String) -> String {
        var result = ""
        result.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars where scalar != "_" && scalar != "-" && scalar != " " {
            result.unicodeScalars.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
        }
        return result
    }
}
