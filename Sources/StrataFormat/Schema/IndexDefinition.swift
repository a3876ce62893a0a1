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
/// (`\User.lastName` → `lastName`, `\User.address.city` → `address.city`), once per definition, which needs the type's properties to be stored under their own
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
    package let keys: @Sendable (Root) -> [[UInt8]]
    /// A full-text index's declaration (``fullText(_:weights:stemming:stopWords:name:)``), nil for an
    /// index of keys. A full-text index has no keys: the store keeps its words apart.
    package let fullText: FullTextIndexDescription?

    /// What the catalog records, to notice a changed definition.
    package var descriptor: IndexDescriptor {
        IndexDescriptor(name: name, fields: fields, isUnique: isUnique, isMultiValue: isMultiValue)
    }

    init(name: String?, fields: [IndexedField], isUnique: Bool, isMultiValue: Bool,
         fullText: FullTextIndexDescription? = nil, keys: @escaping @Sendable (Root) -> [[UInt8]]) {
        self.name = name ?? fields.map(\.description).joined(separator: ",")
        self.fields = fields
        self.isUnique = isUnique
        self.isMultiValue = isMultiValue
        self.fullText = fullText
        self.keys = keys
    }

    /// A full-text index on text fields (`String` or `String?` properties), for `SEARCH`
    /// conditions and relevance order; `weights` gives each field's weight in relevance (one per
    /// field, positive; all 1 when nil).
    ///
    /// ```swift
    /// static let indexes: [IndexDefinition<Article>] = [
    ///     .fullText(\.title, \.body, weights: [2, 1], stemming: .english),
    /// ]
    /// ```
    ///
    /// Its name is its fields joined by commas (`title,body`) unless one is given; full-text
    /// indexes have names of their own, apart from the other indexes'.
    public static func fullText(
        _ fields: PartialKeyPath<Root>..., weights: [Double]? = nil, stemming: TextStemming = .none,
        stopWords: TextStopWords = .none, name: String? = nil
    ) -> Self {
        let paths = fields.map { keyPath -> [String] in
            let valueType = type(of: keyPath).valueType
            precondition(valueType == String.self || valueType == String?.self,
                         "a full-text index holds text: \(keyPath) is a \(valueType), not a String or String?")
            guard let path = FieldPath.components(ofAny: keyPath) else {
                preconditionFailure("a full-text index names stored properties: \(keyPath) is not one")
            }
            return path
        }
        let declaration = FullTextIndexDescription(fields: paths.map { $0.joined(separator: ".") }, weights: weights,
                                                   stemming: stemming, stopWords: stopWords, name: name)
        do { try declaration.validate(entity: Root.entityName) } catch { preconditionFailure(error.message) }
        let indexed = paths.map { IndexedField(path: $0, collation: .caseAndDiacriticInsensitive, kind: .string) }
        return Self(name: declaration.name, fields: indexed, isUnique: false, isMultiValue: false, fullText: declaration) { _ in [] }
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
