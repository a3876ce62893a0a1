@_spi(Format) import StrataFormat
import Foundation

/// Entity and whole-record operations of migrations (``Migrator``), usable in any write
/// transaction; see WriteTransaction+FieldMigrations.swift for the fields'.
extension WriteTransaction {
    /// Renames the entity `old` to `new`, in the catalog only: its records and index databases
    /// keep their names, which the catalog entry records, so nothing is copied whatever its size.
    /// Relationships of other entities that target it follow; a record type then reads it with
    /// `entityName` `new`, and observers of `new` see its changes from the next commit on.
    public func renameEntity(_ old: String, to new: String) throws {
        let context = try existingContext(named: old)
        try EntityDescription.checkEntityName(new)
        guard try self.context(named: new) == nil else {
            throw StrataError(.invalidValue, "the store has an entity '\(new)' already", entity: new)
        }
        let others = try catalogEntityNames().filter { $0 != old }
        try renameCatalogEntity(context, to: new)
        context.schema.description?.name = new
        for position in context.schema.relationships.indices where context.schema.relationships[position].target == old {
            context.schema.relationships[position].target = new
        }
        for name in others {
            guard let other = try self.context(named: name) else { continue }
            var changed = false
            for position in other.schema.relationships.indices where other.schema.relationships[position].target == old {
                other.schema.relationships[position].target = new
                changed = true
            }
            if var description = other.schema.description {
                for position in description.relationships.indices where description.relationships[position].target == old {
                    description.relationships[position].target = new
                    changed = true
                }
                other.schema.description = description
            }
            if changed { other.needsSaving = true }
        }
        relationshipsByTarget = [:]
        store.configuration.logger.info("renamed entity", metadata: ["from": "\(old)", "to": "\(new)"])
    }

    /// Rewrites every record of `entity` with `transform`, which gets the record as stored
    /// (untyped) and changes its fields: values it leaves alone keep their bytes, changed and new
    /// ones are converted to the described field type when the entity has a description (as the
    /// importer converts) and stored as JSON carries them otherwise, and fields it removes are
    /// dropped. The key must stay the same. An error it throws stops the migration, naming the record.
    public func transformRecords(of entity: String, _ transform: (inout StoredRecord) throws -> Void) throws {
        let context = try existingContext(named: entity)
        let description = context.schema.description
        try rewriteRecords(context) { key, bytes in
            let stored = try StoredRecord(key: key, bytes: bytes, fields: context.schema.fields, entity: entity)
            var record = stored
            try transform(&record)
            guard record != stored else { return nil }
            guard record.key == stored.key else {
                throw StrataError(.invalidValue, "\(entity) \(stored.key.keyDescription): a transform cannot change the primary key",
                                  entity: entity, key: stored.key.keyDescription)
            }
            // The stored value of each field the transform changed or added, by field id. A
            // transform that kept the stored fields in their order (and appended any new ones) is
            // compared field by field; any other is compared by name.
            let inOrder = record.fields.count >= stored.fields.count
                && zip(stored.fields, record.fields).allSatisfy { $0.key == $1.key }
            let old = inOrder ? [:] : Dictionary(stored.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            var given: [Int: [UInt8]] = [:]
            for (position, member) in record.fields.enumerated() {
                guard let id = context.schema.fields.id(for: member.key) else {
                    given[context.schema.fields.assign(member.key)] = try Self.storedValue(member, description, entity: entity)
                    context.needsSaving = true
                    continue
                }
                let previous = inOrder ? (position < stored.fields.count ? stored.fields[position].value : nil) : old[member.key]
                if previous != member.value { given[id] = try Self.storedValue(member, description, entity: entity) }
            }
            let kept: Set<String>? = inOrder ? nil : Set(record.fields.map(\.key))
            return try Self.rewriting(bytes, entity: entity) { entries, append in
                for entry in entries {
                    guard let name = context.schema.fields.name(for: entry.id) else { continue }
                    if let kept { guard kept.contains(name) || FieldTable.isRemoved(name) else { continue } }
                    if let value = given.removeValue(forKey: entry.id) { append(entry.id, value[...]) } else { append(entry.id, bytes[entry.value]) }
                }
                for (id, value) in given.sorted(by: { $0.key < $1.key }) { append(id, value[...]) }
            }
        }
    }

    /// A changed field's stored bytes: converted to its described type, or as JSON carries it.
    private static func storedValue(_ member: JSONMember, _ description: EntityDescription?, entity: String) throws -> [UInt8] {
        if member.value == .null {
            var writer = CBORWriter(capacity: 1)
            writer.writeNull()
            return writer.bytes
        }
        let field = description?.field(member.key) ?? FieldDescription(member.key, .any, optional: true)
        return try EntityDescription.storedValue(member.value, of: field, in: entity)
    }

    /// Rewrites every record of `New`'s entity from its old form: each is decoded as `Old` (any
    /// `Decodable` with the old fields), turned into a `New` by `transform` and stored as `New`
    /// encodes it; `New`'s indexes and defaults are then brought up to date. The key must stay the
    /// same. An error `transform` throws stops the migration, naming the record.
    public func transformRecords<Old: Decodable, New: Record>(from _: Old.Type, to _: New.Type,
                                                              _ transform: (Old) throws -> New) throws {
        let entity = store.entityName(of: New.self)
        let context = try existingContext(named: entity)
        var encoder = RecordEncoder()
        encoder.refusesUnstorableDates = true
        let decoder = RecordDecoder(for: Old.self)
        try rewriteRecords(context) { key, bytes in
            let described = describeStoredKey(key)
            let old = try decoder.decode(Old.self, from: bytes, fields: context.schema.fields, entity: entity, key: described)
            let new = try transform(old)
            guard try recordKey(new.primaryKeyValue, entity: entity) == key else {
                throw StrataError(.invalidValue, "\(entity) \(described): a transform cannot change the primary key", entity: entity, key: described)
            }
            let known = context.schema.fields.count
            let encoded = try encoder.encode(new, fields: &context.schema.fields, entity: entity)
            if context.schema.fields.count != known { context.needsSaving = true }
            return encoded
        }
        typedContexts[ObjectIdentifier(New.self)] = nil
        context.indexesChecked = false
        _ = try writableContext(for: New.self)
    }

    /// Drops the bytes of removed fields (``removeField(_:from:)``) from every record of
    /// `entity` that still holds them; returns how many records changed.
    @discardableResult
    public func compactRecords(of entity: String) throws -> Int {
        let context = try existingContext(named: entity)
        let removed = Set(context.schema.fields.entries.filter { FieldTable.isRemoved($0.name) }.map(\.id))
        guard !removed.isEmpty else { return 0 }
        return try rewriteRecords(context) { _, bytes in
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            guard try cursor.entries(in: reader).contains(where: { removed.contains($0.id) }) else { return nil }
            return try Self.rewriting(bytes, entity: entity) { entries, append in
                for entry in entries where !removed.contains(entry.id) { append(entry.id, bytes[entry.value]) }
            }
        }
    }
}
