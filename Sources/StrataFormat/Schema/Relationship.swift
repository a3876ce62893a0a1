/// What happens to the records that refer to a record when it is deleted.
public enum DeleteRule: String, Sendable, Codable, Hashable {
    /// Their reference is cleared: a to-one key becomes nil, the key leaves a key list.
    case nullify
    /// They are deleted too (and their own delete rules apply in turn).
    case cascade
    /// The delete throws `.deleteDenied` while any record refers to it.
    case deny
}

/// A to-one relationship: `Source` records refer to one `Target` record by its primary key, kept
/// in an optional field of `Source`. Its inverse is the to-many relationship from `Target` to the
/// `Source` records that refer to it (a user's notes, given each note's `userID`).
///
/// ```swift
/// struct Note: Record {
///     var id: Int64
///     var text: String
///     var userID: Int64?
///     static let primaryKey = \Note.id
///     static let user = ToOne<Note, User>("user", \.userID, inverse: "notes", deleteRule: .cascade)
///     static let relationships: [AnyRelationship<Note>] = [.init(user)]
/// }
/// try tx.parent(Note.user, of: note)        // the user
/// try tx.related(Note.user, of: user)       // the user's notes, through the index on userID
/// try tx.query(User.self, "ANY notes.text CONTAINS 'diary'").all()
/// ```
/// The reference field is indexed automatically, so finding the records that refer to a target
/// is an index scan. `deleteRule` says what happens to `Source` records when their target is
/// deleted.
public struct ToOne<Source: Record, Target: Record>: Sendable {
    /// The relationship's name on `Source` (`user`): queries on `Source` say `user.name`.
    public let name: String
    /// The name of the inverse to-many relationship on `Target` (`notes`), for queries on
    /// `Target` (`ANY notes.text == 'x'`, `notes.@count > 2`), when it has one.
    public let inverse: String?
    /// What happens to `Source` records when their target is deleted.
    public let deleteRule: DeleteRule
    package let key: KeyPath<Source, Target.PrimaryKey?> & Sendable

    /// A to-one relationship named `name`, whose target's primary key is held in the optional field at `key`,
    /// with the to-many inverse `inverse` on `Target` and a delete rule (default ``DeleteRule/nullify``).
    public init(_ name: String, _ key: KeyPath<Source, Target.PrimaryKey?> & Sendable, inverse: String? = nil,
                deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.key = key
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    package var keyField: String { FieldPath.components(of: key).joined(separator: ".") }
}

/// A to-many relationship kept as a list of the `Target` records' primary keys in a `Source`
/// field: many-to-many (a recipe's ingredients, each used by many recipes), with no link entity.
///
/// ```swift
/// struct Recipe: Record {
///     var id: String
///     var name: String
///     var ingredientIDs: [String]
///     static let primaryKey = \Recipe.id
///     static let ingredients = ToMany<Recipe, Ingredient>("ingredients", \.ingredientIDs, inverse: "recipes")
///     static let relationships: [AnyRelationship<Recipe>] = [.init(ingredients)]
/// }
/// try tx.related(Recipe.ingredients, of: pancake)                    // its ingredients
/// try tx.query(Recipe.self, "ANY ingredients.name == %@ ORDER BY name DESC", "egg").all()
/// ```
/// The key list has a multi-value index, so the `Source` records that list a target are found by
/// an index scan. `deleteRule` says what happens to `Source` records when a listed target is
/// deleted: `.nullify` takes its key out of their lists.
public struct ToMany<Source: Record, Target: Record>: Sendable {
    /// The relationship's name on `Source` (`ingredients`): queries on `Source` say `ANY ingredients.name`.
    public let name: String
    /// The name of the inverse relationship on `Target` (`recipes`), when it has one.
    public let inverse: String?
    /// What happens to `Source` records when a target they list is deleted.
    public let deleteRule: DeleteRule
    package let keys: KeyPath<Source, [Target.PrimaryKey]> & Sendable

    /// A to-many relationship named `name`, whose targets' primary keys are listed in the array field at
    /// `keys`, with the inverse `inverse` on `Target` and a delete rule (default ``DeleteRule/nullify``).
    public init(_ name: String, _ keys: KeyPath<Source, [Target.PrimaryKey]> & Sendable, inverse: String? = nil,
                deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.keys = keys
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    package var keyField: String { FieldPath.components(of: keys).joined(separator: ".") }
}

/// A relationship of `Source` of either kind, for ``Record/relationships``.
public struct AnyRelationship<Source: Record>: Sendable {
    package let descriptor: RelationshipDescriptor
    /// The index the reference field needs.
    let index: IndexDefinition<Source>

    /// A to-one relationship.
    public init<Target: Record>(_ relationship: ToOne<Source, Target>) {
        descriptor = RelationshipDescriptor(name: relationship.name, kind: .toOne, target: Target.entityName,
                                            keyField: relationship.keyField, inverse: relationship.inverse,
                                            deleteRule: relationship.deleteRule)
        index = .index(relationship.key)
    }

    /// A to-many relationship.
    public init<Target: Record>(_ relationship: ToMany<Source, Target>) {
        descriptor = RelationshipDescriptor(name: relationship.name, kind: .keyList, target: Target.entityName,
                                            keyField: relationship.keyField, inverse: relationship.inverse,
                                            deleteRule: relationship.deleteRule)
        index = .index(relationship.keys, multiValue: true)
    }
}

/// What the catalog keeps of a relationship, on the entity that holds the reference field; the
/// form queries, delete rules and the command-line tool read, with or without Swift types.
package struct RelationshipDescriptor: Sendable, Encodable, Hashable {
    package enum Kind: String, Sendable, Encodable { case toOne, keyList }
    /// The name on the holding entity.
    package var name: String
    package var kind: Kind
    /// The entity referred to.
    package var target: String
    /// The holding entity's field with the target's key (`toOne`) or keys (`keyList`).
    package var keyField: String
    /// The name of the inverse (to-many) relationship on the target, if any.
    package var inverse: String?
    package var deleteRule: DeleteRule
}

extension Record {
    /// The indexes kept in step for this type: the declared ones, and one on each relationship's
    /// reference field that no declared index leads with.
    package static var maintainedIndexes: [IndexDefinition<Self>] {
        let declared = indexes.filter { $0.fullText == nil }
        let relationships = self.relationships
        guard !relationships.isEmpty else { return declared }
        var all = declared
        for relationship in relationships
        where !all.contains(where: { $0.fields.first?.path == relationship.index.fields.first?.path }) {
            all.append(relationship.index)
        }
        return all
    }

    /// The full-text indexes declared for this type (``IndexDefinition/fullText(_:weights:stemming:stopWords:name:)``).
    package static var fullTextDeclarations: [FullTextIndexDescription] { indexes.compactMap(\.fullText) }
}
