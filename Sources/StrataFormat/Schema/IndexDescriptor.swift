import Foundation

/// One field of an index.
public struct IndexedField: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The stored field path, e.g. `["address", "city"]`.
    public var path: [String]
    /// How the field's strings compare in the index.
    public var collation: IndexCollation
    /// The kind of value the keys hold, so the planner uses the index only for values of that kind.
    public var kind: ValueKind

    package init(path: [String], collation: IndexCollation, kind: ValueKind) {
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

/// What the catalog keeps of an index definition (read by CatalogJSON+Entries.swift).
package struct IndexDescriptor: Sendable, Encodable, Hashable {
    package var name: String
    package var fields: [IndexedField]
    package var isUnique: Bool
    package var isMultiValue: Bool
    /// The ``Collation/rulesVersion`` the keys of a folded index were made with, nil for an index
    /// without folded fields. Descriptors compare unequal across versions, so a declared index
    /// is rebuilt by the ordinary migration when the folding rules change (see
    /// IndexDescriptor+Folding.swift for stored ones).
    package var foldingVersion: Int?

    package init(name: String, fields: [IndexedField], isUnique: Bool, isMultiValue: Bool) {
        self.name = name
        self.fields = fields
        self.isUnique = isUnique
        self.isMultiValue = isMultiValue
        foldingVersion = fields.contains { $0.collation != .binary } ? Collation.rulesVersion : nil
    }

    private enum CodingKeys: String, CodingKey { case name, fields, isUnique, isMultiValue, foldingVersion }
}

/// Stored field names of key paths and of dotted field names.
package enum FieldPath {
    /// The components of a dotted field name: `"address.city"` → `["address", "city"]`.
    package static func components(of field: String) -> [String] {
        field.split(separator: ".").map(String.init)
    }


    /// The stored field path of `keyPath`: `\User.address.city` → `["address", "city"]`.
    package static func components<Root, Value>(of keyPath: KeyPath<Root, Value>) -> [String] {
        let text = String(describing: keyPath)                    // "\User.address.city"
        let root = "\\" + String(describing: Root.self) + "."
        let rest = text.hasPrefix(root) ? String(text.dropFirst(root.count)) : String(text.split(separator: ".", maxSplits: 1).last ?? "")
        // Optional chaining shows as "?" in descriptions ("address?.city"); the stored path has no "?".
        return rest.replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
            .split(separator: ".").map(String.init)
    }
}
