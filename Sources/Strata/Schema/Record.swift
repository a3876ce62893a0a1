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
}

extension Record {
    public static var entityName: String { String(describing: Self.self) }

    public static var indexes: [IndexDefinition<Self>] { [] }

    /// This record's primary key value.
    @inlinable
    public var primaryKeyValue: PrimaryKey { self[keyPath: Self.primaryKey] }

    /// The name of the primary key field as the key path spells it (`id` for `\User.id`).
    public static var primaryKeyName: String {
        FieldPath.components(of: primaryKey).joined(separator: ".")
    }
}
