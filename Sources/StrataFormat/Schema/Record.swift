/// A value type stored by Strata: Codable, Sendable and identified by a primary key.
///
/// ```swift
/// struct User: Record {
///     var id: Int64
///     var firstName: String
///     var lastName: String
///     var luckyNumber: Int?
///     var createdDate: Date
///     static let primaryKey = \User.id
/// }
/// ```
///
/// Records are plain values: they can be passed between threads and tasks freely, unlike Core Data's
/// or SwiftData's managed objects. Fields are whatever the type's `Codable` conformance encodes; the
/// store keeps a stable id for each top-level field name in its catalog (see `FieldTable`).
///
/// The primary key must be a stored `var` whose type has an order-preserving key encoding
/// (``IndexableValue``): the integer types, `String`, `UUID`, `Date`, `Bool`, `Double`.
public protocol Record: Codable, Sendable {
    /// The type of the primary key.
    associatedtype PrimaryKey: IndexableValue & Hashable

    /// The key path of the primary key field, for example `\User.id`.
    static var primaryKey: WritableKeyPath<Self, PrimaryKey> & Sendable { get }

    /// The secondary indexes of this type, kept in step with every write. Defaults to none.
    /// A newly declared index is built from the stored records, a removed one dropped and a
    /// changed one rebuilt, at the type's first write (or at `Store.prepare(_:)`).
    static var indexes: [IndexDefinition<Self>] { get }

    /// The name under which records of this type are stored. Defaults to the type's name;
    /// override it to rename the Swift type without renaming stored data.
    static var entityName: String { get }

    /// JSON keys for fields that the importer's conventions do not find (`first_name` finds
    /// `firstName`, `id` the primary key, `created_at` `createdAt` or `createdDate`):
    /// `static let jsonKeys: JSONKeys<User> = [\.luckyNumber: "lucky"]`. Defaults to none.
    /// Declare it with its type, `JSONKeys<Self>`: a plain dictionary would not be this requirement.
    static var jsonKeys: JSONKeys<Self> { get }

    /// The relationships whose reference fields this type holds (``ToOne``, ``ToMany``),
    /// recorded in the catalog at the type's first write, with an index on each reference field.
    /// Defaults to none.
    static var relationships: [AnyRelationship<Self>] { get }

    /// Values for fields that records stored before the field existed lack (``FieldDefault``):
    /// `static let defaults: [FieldDefault<User>] = [FieldDefault(\.tags, [])]`. A stored record
    /// without the field decodes with the default; the store records the defaults in its catalog
    /// and writes them into the records that lack them at the type's first write (or at
    /// `Store.prepare(_:)`), before it builds new indexes, so queries and indexes see them. From
    /// then on every write that lacks the field stores the default: JSON without the key, records
    /// of a type without the field, writes of other processes. Defaults to none.
    static var defaults: [FieldDefault<Self>] { get }
}

extension Record {
    public static var entityName: String { String(describing: Self.self) }

    public static var indexes: [IndexDefinition<Self>] { [] }

    public static var jsonKeys: JSONKeys<Self> { [:] }

    public static var relationships: [AnyRelationship<Self>] { [] }

    /// No defaults.
    public static var defaults: [FieldDefault<Self>] { [] }

    /// This record's primary key value.
    @inlinable
    public var primaryKeyValue: PrimaryKey { self[keyPath: Self.primaryKey] }

    /// The name of the primary key field as the key path spells it (`id` for `\User.id`).
    public static var primaryKeyName: String {
        FieldPath.components(of: primaryKey).joined(separator: ".")
    }
}

/// JSON keys of a record type's fields, written as a dictionary literal of key paths:
/// `[\User.luckyNumber: "lucky", \User.remoteID: "id"]`. Keeps field names, not key paths, so it is
/// `Sendable` and can be a `static let`.
public struct JSONKeys<Root>: Sendable, ExpressibleByDictionaryLiteral {
    /// JSON keys by stored field name.
    public let names: [String: String]

    public init(dictionaryLiteral elements: (PartialKeyPath<Root>, String)...) {
        var names: [String: String] = [:]
        for (keyPath, key) in elements {
            guard let path = FieldPath.components(ofAny: keyPath) else {
                preconditionFailure("JSONKeys: \(keyPath) is not a stored property path")
            }
            names[path.joined(separator: ".")] = key
        }
        self.names = names
    }
}
