/// A secondary index declared with a record type and kept in step with every write.
///
/// ```swift
/// extension User {
///     static let indexes: [IndexDefinition<User>] = [
///         .index(\.lastName, collation: .caseAndDiacriticInsensitive),
///         .index(\.luckyNumber),
///         .index(\.lastName, \.luckyNumber),      // compound
///         .unique(\.email),
///         .index(\.tags, multiValue: true),       // one entry per element
///     ]
/// }
/// ```
///
/// Fields are named by key paths; the stored field name is read from the key path itself
/// (`\User.lastName` → `lastName`, `\User.address.city` → `address.city`), which costs a few
/// microseconds once per definition and needs the type's properties to be stored under their own
/// names (the default `CodingKeys`). The store checks the names against the fields it has seen.
public struct IndexDefinition<Root: Record>: Sendable {
    /// The index's name: its fields joined by commas, each followed by its collation marker
    /// (`lastName[cd]`, `lastName,luckyNumber`), unless one was given.
    public let name: String
    /// The indexed fields, in key order.
    public let fields: [IndexedField]
    /// At most one record per key; a second one throws `.uniqueViolation`.
    public let isUnique: Bool
    /// The (single) field is a collection with one entry per element.
    public let isMultiValue: Bool
    /// The index keys of a record: one for an ordinary index, one per element for a multi-value one.
    let keys: @Sendable (Root) -> [[UInt8]]

    /// What the catalog records, to notice a changed definition.
    var descriptor: IndexDescriptor {
        IndexDescriptor(name: name, fields: fields, isUnique: isUnique, isMultiValue: isMultiValue)
    }

    init(name: String?, fields: [IndexedField], isUnique: Bool, isMultiValue: Bool,
         keys: @escaping @Sendable (Root) -> [[UInt8]]) {
        self.name = name ?? fields.map(\.description).joined(separator: ",")
        self.fields = fields
        self.isUnique = isUnique
        self.isMultiValue = isMultiValue
        self.keys = keys
    }

    /// An index on one field.
    public static func index<Value: IndexableValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, collation: IndexCollation = .binary, name: String? = nil
    ) -> Self {
        let field = IndexedField(keyPath, collation)
        return Self(name: name, fields: [field], isUnique: false, isMultiValue: false) { record in
            var key: [UInt8] = []
            IndexKey.append(record[keyPath: keyPath], collation: collation, to: &key)
            return [key]
        }
    }

    /// A unique index on one field: a second record with the same value throws `.uniqueViolation`.
    public static func unique<Value: IndexableValue>(
        _ keyPath: KeyPath<Root, Value> & Sendable, collation: IndexCollation = .binary, name: String? = nil
    ) -> Self {
        let plain = index(keyPath, collation: collation, name: name)
        return Self(name: plain.name, fields: plain.fields, isUnique: true, isMultiValue: false, keys: plain.keys)
    }

    /// A compound index on two fields: equality on the first, equality, range or order on the second.
    public static func index<First: IndexableValue, Second: IndexableValue>(
        _ first: KeyPath<Root, First> & Sendable, _ second: KeyPath<Root, Second> & Sendable,
        collations: (IndexCollation, IndexCollation) = (.binary, .binary), unique: Bool = false, name: String? = nil
    ) -> Self {
        let fields = [IndexedField(first, collations.0), IndexedField(second, collations.1)]
        return Self(name: name, fields: fields, isUnique: unique, isMultiValue: false) { record in
            var key: [UInt8] = []
            IndexKey.append(record[keyPath: first], collation: collations.0, to: &key)
            IndexKey.append(record[keyPath: second], collation: collations.1, to: &key)
            return [key]
        }
    }

    /// A compound index on three fields.
    public static func index<First: IndexableValue, Second: IndexableValue, Third: IndexableValue>(
        _ first: KeyPath<Root, First> & Sendable, _ second: KeyPath<Root, Second> & Sendable,
        _ third: KeyPath<Root, Third> & Sendable, unique: Bool = false, name: String? = nil
    ) -> Self {
        let fields = [IndexedField(first, .binary), IndexedField(second, .binary), IndexedField(third, .binary)]
        return Self(name: name, fields: fields, isUnique: unique, isMultiValue: false) { record in
            var key: [UInt8] = []
            IndexKey.append(record[keyPath: first], collation: .binary, to: &key)
            IndexKey.append(record[keyPath: second], collation: .binary, to: &key)
            IndexKey.append(record[keyPath: third], collation: .binary, to: &key)
            return [key]
        }
    }

    /// An index with one entry per element of a collection field (`multiValue` must be true, to
    /// say so at the declaration). Duplicate elements give one entry.
    public static func index<Elements: Collection & Sendable>(
        _ keyPath: KeyPath<Root, Elements> & Sendable, multiValue: Bool, collation: IndexCollation = .binary,
        name: String? = nil
    ) -> Self where Elements.Element: IndexableValue {
        precondition(multiValue, "an index on a collection field indexes its elements: pass multiValue: true")
        let field = IndexedField(keyPath, collation, element: Elements.Element.self)
        return Self(name: name, fields: [field], isUnique: false, isMultiValue: true) { record in
            var keys = Set<[UInt8]>()
            for element in record[keyPath: keyPath] {
                var key: [UInt8] = []
                IndexKey.append(element, collation: collation, to: &key)
                keys.insert(key)
            }
            return keys.sorted { $0.lexicographicallyPrecedes($1) }
        }
    }
}

/// How an index compares strings.
public enum IndexCollation: String, Sendable, Codable, Hashable {
    /// Bytewise UTF-8: Unicode code point order.
    case binary
    /// Case folded (`[c]`), by Unicode full case mapping, not ASCII only.
    case caseInsensitive
    /// Case and diacritics folded (`[cd]`) as Foundation folds them: "Fünke" matches "funke",
    /// "ÉLAN" matches "elan", "Ørsted" does not match "orsted" (see ``Collation``).
    case caseAndDiacriticInsensitive

    /// The string comparison options this collation answers.
    public var options: StringComparisonOptions {
        switch self {
        case .binary: []
        case .caseInsensitive: [.caseInsensitive]
        case .caseAndDiacriticInsensitive: [.caseInsensitive, .diacriticInsensitive]
        }
    }

    /// The marker in index names and explain output: "", "[c]", "[cd]".
    public var marker: String {
        switch self {
        case .binary: ""
        case .caseInsensitive: "[c]"
        case .caseAndDiacriticInsensitive: "[cd]"
        }
    }
}

/// One field of an index.
public struct IndexedField: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The stored field path, e.g. `["address", "city"]`.
    public var path: [String]
    public var collation: IndexCollation
    /// The kind of value the keys hold, so the planner uses the index only for values of that kind.
    public var kind: ValueKind

    init(path: [String], collation: IndexCollation, kind: ValueKind) {
        self.path = path
        self.collation = collation
        self.kind = kind
    }

    init<Root, Value>(_ keyPath: KeyPath<Root, Value>, _ collation: IndexCollation, element: Any.Type? = nil) {
        self.path = FieldPath.components(of: keyPath)
        self.collation = collation
        self.kind = ValueKind(element ?? Value.self)
    }

    public var description: String { path.joined(separator: ".") + collation.marker }
}

/// The kinds of values an index key can hold.
public enum ValueKind: String, Sendable, Codable, Hashable {
    case integer, double, string, date, uuid, bool, other

    /// The kind of a Swift type, looking through `Optional`.
    init(_ type: Any.Type) {
        var name = String(describing: type)
        while name.hasPrefix("Optional<"), name.hasSuffix(">") { name = String(name.dropFirst(9).dropLast()) }
        switch name {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": self = .integer
        case "Double", "Float": self = .double
        case "String": self = .string
        case "Date": self = .date
        case "UUID": self = .uuid
        case "Bool": self = .bool
        default: self = .other
        }
    }

    /// True when `value` can be looked up in keys of this kind (nil can, in every kind).
    func accepts(_ value: QueryValue) -> Bool {
        switch (self, value) {
        case (_, .null), (.integer, .int), (.integer, .uint), (.double, .double), (.string, .string),
             (.date, .date), (.uuid, .uuid), (.bool, .bool):
            return true
        case (.double, .int(let integer)):
            return Double(exactly: integer) != nil
        default:
            return false
        }
    }
}

/// What the catalog keeps of an index definition.
struct IndexDescriptor: Sendable, Codable, Hashable {
    var name: String
    var fields: [IndexedField]
    var isUnique: Bool
    var isMultiValue: Bool
    /// The ``Collation/rulesVersion`` the keys of a folded index were made with, nil for an index
    /// without folded fields. Descriptors compare unequal across versions, so a declared index
    /// is rebuilt by the ordinary migration when the folding rules change (see
    /// IndexDescriptor+Folding.swift for stored ones).
    var foldingVersion: Int?

    init(name: String, fields: [IndexedField], isUnique: Bool, isMultiValue: Bool) {
        self.name = name
        self.fields = fields
        self.isUnique = isUnique
        self.isMultiValue = isMultiValue
        foldingVersion = fields.contains { $0.collation != .binary } ? Collation.rulesVersion : nil
    }

    private enum CodingKeys: String, CodingKey { case name, fields, isUnique, isMultiValue, foldingVersion }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        fields = try container.decode([IndexedField].self, forKey: .fields)
        isUnique = try container.decode(Bool.self, forKey: .isUnique)
        isMultiValue = try container.decode(Bool.self, forKey: .isMultiValue)
        // Catalogs written before versions were recorded folded by the first rules.
        let folded = fields.contains { $0.collation != .binary }
        foldingVersion = try container.decodeIfPresent(Int.self, forKey: .foldingVersion) ?? (folded ? 1 : nil)
    }
}

/// Stored field names of key paths.
enum FieldPath {
    /// The stored field path of `keyPath`: `\User.address.city` → `["address", "city"]`.
    static func components<Root, Value>(of keyPath: KeyPath<Root, Value>) -> [String] {
        let text = String(describing: keyPath)                    // "\User.address.city"
        let root = "\\" + String(describing: Root.self) + "."
        let rest = text.hasPrefix(root) ? String(text.dropFirst(root.count)) : String(text.split(separator: ".", maxSplits: 1).last ?? "")
        // Optional chaining shows as "?" in descriptions ("address?.city"); the stored path has no "?".
        return rest.replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
            .split(separator: ".").map(String.init)
    }
}
