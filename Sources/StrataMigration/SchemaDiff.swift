/// One difference between a store's schema and a schema file (``ReadTransaction/schemaChanges(to:)``),
/// what `strata schema diff` prints.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// What differs.
    public enum Kind: String, Sendable, Hashable {
        /// The file has an entity the store lacks.
        case addedEntity
        /// The store has an entity the file lacks.
        case removedEntity
        /// The primary key's fields differ.
        case changedPrimaryKey
        /// The file has a field the stored entity lacks.
        case addedField
        /// The stored entity has a field the file lacks (or renamed: renames are declared).
        case removedField
        /// A field's type differs.
        case changedType
        /// A field is optional on one side only.
        case changedOptionality
        /// A field's default differs.
        case changedDefault
        /// The file has an index the store lacks.
        case addedIndex
        /// The store has an index the file lacks.
        case droppedIndex
    }

    /// What differs.
    public var kind: Kind
    /// The entity it concerns.
    public var entity: String
    /// The field or index it concerns, when one.
    public var subject: String?
    /// A sentence for a person: `+ field plan: string = "free"`.
    public var detail: String

    /// `User: + field plan: string = "free"`.
    public var description: String { "\(entity): \(detail)" }
}

extension ReadTransaction {
    /// What would change if the store's entities took the shapes `file` describes: entities,
    /// primary keys, fields (added, removed, with another type, optionality or default) and
    /// indexes. A field missing from the file and a new one in it are a removal and an addition:
    /// renames are declared in a migration (`renameField`), never guessed. Entities the store
    /// has and the file lacks are listed as removed; their records stay until deleted.
    public func schemaChanges(to file: SchemaFile) throws -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let stored = try entityNames()
        for name in stored where file.entity(name) == nil {
            changes.append(SchemaChange(kind: .removedEntity, entity: name, detail: "- entity (not in the file; its records stay)"))
        }
        for new in file.entities {
            guard stored.contains(new.name) else {
                changes.append(SchemaChange(kind: .addedEntity, entity: new.name, detail: "+ entity (\(new.fields.count) fields)"))
                continue
            }
            let old = try entityDescription(named: new.name)
            let hasRecords = try count(entity: new.name) > 0
            changes += Self.changes(from: old, to: new, hasRecords: hasRecords)
        }
        return changes
    }

    private static func changes(from old: EntityDescription, to new: EntityDescription, hasRecords: Bool) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        func note(_ kind: SchemaChange.Kind, _ subject: String?, _ detail: String) {
            changes.append(SchemaChange(kind: kind, entity: new.name, subject: subject, detail: detail))
        }
        if old.primaryKeyFields != new.primaryKeyFields {
            note(.changedPrimaryKey, nil, "~ primary key \(old.primaryKey) → \(new.primaryKey) (records cannot be re-keyed in place)")
        }
        for field in old.fields where new.field(field.name) == nil {
            note(.removedField, field.name, "- field \(field.name) (if it was renamed, declare it: renameField; renames are never guessed)")
        }
        for field in new.fields {
            let shown = field.defaultValue.map { " = \($0)" } ?? ""
            guard let before = old.field(field.name) else {
                var detail = "+ field \(field.name): \(field.type)\(field.isOptional ? "?" : "")\(shown)"
                if hasRecords, !field.isOptional, field.defaultValue == nil {
                    detail += " (required without a default: stored records lack it; give it a \"default\" or make it optional)"
                }
                note(.addedField, field.name, detail)
                continue
            }
            if before.type != field.type, before.type != .any {
                note(.changedType, field.name, "~ field \(field.name): \(before.type) → \(field.type) (changeType converts stored values)")
            }
            if before.isOptional != field.isOptional {
                note(.changedOptionality, field.name,
                     "~ field \(field.name): \(before.isOptional ? "optional → required" : "required → optional")")
            }
            if before.defaultValue != field.defaultValue {
                note(.changedDefault, field.name,
                     "~ field \(field.name) default: \(before.defaultValue?.description ?? "none") → \(field.defaultValue?.description ?? "none")")
            }
        }
        let oldIndexes = Set(old.indexDescriptors.map(\.name)), newIndexes = new.indexDescriptors.map(\.name)
        for name in old.indexDescriptors.map(\.name) where !newIndexes.contains(name) { note(.droppedIndex, name, "- index \(name)") }
        for name in newIndexes where !oldIndexes.contains(name) { note(.addedIndex, name, "+ index \(name)") }
        return changes
    }
}
