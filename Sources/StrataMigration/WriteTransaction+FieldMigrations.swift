@_spi(Format) import StrataFormat
import Foundation
import LMDB

/// Field operations of migrations (``Migrator``), usable in any write transaction. Each names the
/// entity by its stored name (``Record/entityName``) and throws `.notFound` for an entity the store
/// lacks, `.unknownField` for a field it lacks (as a query naming it would), `.invalidValue` for a
/// name taken. Records change only through the
/// record writer, so indexes, observers and the change log see a migration as any write.
extension WriteTransaction {
    /// Renames the field `old` of `entity` to `new`, in the catalog only: records hold field ids,
    /// not names, so none is rewritten, and indexes on the field keep their entries (and their
    /// databases) under names that follow the field's. Queries then name `new`; naming `old` is
    /// an `.unknownField` error saying what it was renamed to. The primary key, relationships, defaults
    /// and the entity's description follow.
    ///
    /// The field keeps its JSON key, so the JSON it was imported from imports again: in the
    /// entity's description (what `strata import` and imports by the stored description map by),
    /// a field without an explicit ``FieldDescription/jsonKey`` gets `old` as its key. (A field
    /// that JSON filled by convention under another spelling, `first_name` for `firstName`, then
    /// takes only `old`: pass its key.) `jsonKey` gives the field another key instead. Typed
    /// imports map by their record type, as always.
    public func renameField(_ old: String, to new: String, in entity: String, jsonKey: String? = nil) throws {
        let context = try existingContext(named: entity)
        let id = try storedFieldID(old, context)
        try checkFreeName(new, context)
        var schema = context.schema
        schema.fields.rename(id, to: new)
        let keyFields = schema.primaryKeyFields
        if keyFields.contains(old) { schema.primaryKey = keyFields.map { $0 == old ? new : $0 }.joined(separator: ",") }
        var databases: [String: Database] = [:]
        schema.indexes = schema.indexes.map { descriptor in
            guard descriptor.fields.contains(where: { $0.path.first == old }) else {
                databases[descriptor.name] = context.indexes[descriptor.name]
                return descriptor
            }
            var renamed = descriptor
            for position in renamed.fields.indices where renamed.fields[position].path.first == old {
                renamed.fields[position].path[0] = new
            }
            if descriptor.name == descriptor.fields.map(\.description).joined(separator: ",") {
                renamed.name = renamed.fields.map(\.description).joined(separator: ",")
            }
            let database = schema.indexDatabase(descriptor.name)
            schema.indexDatabases[descriptor.name] = nil
            schema.indexDatabases[renamed.name] = nil
            if database != schema.indexDatabase(renamed.name) { schema.indexDatabases[renamed.name] = database }
            databases[renamed.name] = context.indexes[descriptor.name]
            return renamed
        }
        for position in schema.relationships.indices where schema.relationships[position].keyField == old {
            schema.relationships[position].keyField = new
        }
        if let value = schema.defaults.removeValue(forKey: old) { schema.defaults[new] = value }
        schema.description = schema.description.map { $0.renamingField(old, to: new, jsonKey: jsonKey) }
        for (earlier, later) in schema.renamedFields where later == old { schema.renamedFields[earlier] = new }
        schema.renamedFields[new] = nil
        schema.renamedFields[old] = new
        try commitSchema(schema, indexes: databases, context)
        store.configuration.logger.info("renamed field", metadata: ["entity": "\(entity)", "from": "\(old)", "to": "\(new)"])
    }

    /// Removes the field `name` from `entity`: its indexes are dropped, its default forgotten, and
    /// its id renamed so it is never given again while `name` is free for a new field (which gets
    /// a new id: old values never come back under it). Records keep the field's bytes, which
    /// typed writes leave out from then on and ``compactRecords(of:)`` drops at once; readers skip
    /// them. The primary key and a relationship's key field cannot be removed.
    public func removeField(_ name: String, from entity: String) throws {
        let context = try existingContext(named: entity)
        let id = try storedFieldID(name, context)
        guard !context.schema.primaryKeyFields.contains(name) else {
            throw StrataError(.invalidValue, "\(entity): '\(name)' is part of the primary key and cannot be removed", entity: entity, field: name)
        }
        if let relationship = context.schema.relationships.first(where: { $0.keyField == name }) {
            throw StrataError(.invalidValue, "\(entity): '\(name)' holds the relationship '\(relationship.name)'; remove the relationship first",
                              entity: entity, field: name)
        }
        try migrate(context, to: context.schema.indexes.filter { !$0.fields.contains { $0.path.first == name } }) { _ in }
        var schema = context.schema
        schema.fields.rename(id, to: FieldTable.removedName(name, id: id))
        schema.defaults[name] = nil
        schema.renamedFields = schema.renamedFields.filter { $0.value != name }
        if var description = schema.description {
            description.fields.removeAll { $0.name == name }
            description.indexes.removeAll { $0.fields.contains { $0 == name || $0.hasPrefix(name + ".") } }
            schema.description = description
        }
        try commitSchema(schema, indexes: context.indexes, context)
        store.configuration.logger.info("removed field", metadata: ["entity": "\(entity)", "field": "\(name)"])
    }

    /// Adds the field `name` to `entity` with `value` as its default: every record that lacks it
    /// gets it, and so does every later write without it (imports without the key, records a type
    /// without the field writes, writes of other processes), since the record writer adds the
    /// catalog's defaults. A type without the field that updates a record keeps its value.
    public func addField<Value: Encodable>(_ name: String, to entity: String, default value: Value) throws {
        let context = try existingContext(named: entity)
        try checkFreeName(name, context)
        try applyDefaults([name: SingleFieldCoding.bytes(of: value, entity: entity, field: name)], context)
    }

    /// Adds the described field to `entity`, with its ``FieldDescription/defaultValue`` (converted
    /// as the importer converts values) written into every record, and to the entity's description.
    ///
    /// A required field (not optional) without a default is refused on an entity that has
    /// records, which would lack it: give it a default, make it optional, or fill it with
    /// ``addField(_:to:backfill:)``.
    public func addField(_ field: FieldDescription, to entity: String) throws {
        let context = try existingContext(named: entity)
        try checkFreeName(field.name, context)
        let records = try !field.isOptional && field.defaultValue == nil ? count(entity: entity) : 0
        guard records == 0 else {
            throw StrataError(.invalidValue,
                "\(entity): the required field '\(field.name)' has no default, and the \(records) stored record\(records == 1 ? "" : "s") would lack it; give it a default, make it optional, or fill it with a backfill",
                entity: entity, field: field.name)
        }
        if var description = context.schema.description {
            description.fields.append(field)
            try description.validate()
            context.schema.description = description
            context.needsSaving = true
        }
        guard let value = field.defaultValue else {
            context.schema.fields.assign(field.name)
            context.needsSaving = true
            return
        }
        try applyDefaults([field.name: EntityDescription.storedValue(value, of: field, in: entity)], context)
    }

    /// Adds (or overwrites) the field `name` of every record of `entity` with what `backfill`
    /// returns for the record as it is stored. An error it throws stops the migration, naming
    /// the record.
    public func addField<Value: Encodable>(_ name: String, to entity: String, backfill: (StoredRecord) throws -> Value) throws {
        let context = try existingContext(named: entity)
        try EntityDescription.checkFieldName(name, entity: entity)
        if FieldTable.isRemoved(name) || context.schema.renamedFields[name] != nil { try checkFreeName(name, context) }
        let id = context.schema.fields.assign(name)
        context.needsSaving = true
        let fields = context.schema.fields
        try rewriteRecords(context) { key, bytes in
            let record = try StoredRecord(key: key, bytes: bytes, fields: fields, entity: entity)
            let value = try SingleFieldCoding.bytes(of: try backfill(record), entity: entity, field: name)
            return try Self.setting(id, to: value, in: bytes, entity: entity)
        }
    }

    /// Changes the type of the field `name` of `entity` to `type`: every stored value is converted
    /// with the importer's coercions (numbers from numeric text and back, dates from ISO 8601 or
    /// timestamps, ...), nulls stay null, and indexes on the field are rebuilt. A value that does
    /// not convert stops the migration, naming the record.
    public func changeFieldType(_ name: String, in entity: String, to type: FieldType) throws {
        let field = FieldDescription(name, type)
        try convertField(name, in: entity, kind: ValueKind(type.elementType)) { bytes in
            try EntityDescription.storedValue(SingleFieldCoding.jsonValue(from: Array(bytes)), of: field, in: entity)
        }
        if var description = try context(named: entity)?.schema.description,
           let position = description.fields.firstIndex(where: { $0.name == name }) {
            let context = try existingContext(named: entity)
            description.fields[position].type = type
            description.fields[position].defaultValue = context.schema.defaults[name].flatMap { try? SingleFieldCoding.jsonValue(from: $0) }
            context.schema.description = description
        }
    }

    /// Changes the type of the field `name` of `entity` from `Old` to `New` with `convert`, for
    /// every record that holds it; indexes on the field are rebuilt. An error `convert` throws
    /// stops the migration, naming the record.
    public func convertField<Old: Decodable, New: Encodable>(_ name: String, in entity: String, from _: Old.Type,
                                                              _ convert: (Old) throws -> New) throws {
        try convertField(name, in: entity, kind: ValueKind(New.self)) { bytes in
            let old = try SingleFieldCoding.value(Old.self, from: bytes, entity: entity, field: name, key: "")
            return try SingleFieldCoding.bytes(of: try convert(old), entity: entity, field: name)
        }
    }

    /// Rewrites the value of field `name` in every record that holds a non-null one with
    /// `convert` (stored bytes in, stored bytes out), with the indexes on the field dropped first
    /// and rebuilt after, their keys of `kind`; the field's default is converted too.
    private func convertField(_ name: String, in entity: String, kind: ValueKind,
                              _ convert: (ArraySlice<UInt8>) throws -> [UInt8]) throws {
        let context = try existingContext(named: entity)
        let id = try storedFieldID(name, context)
        let affected = context.schema.indexes.filter { $0.fields.contains { $0.path == [name] } }
        let kept = context.schema.indexes.filter { !affected.contains($0) }
        try migrate(context, to: kept) { _ in }
        try rewriteRecords(context) { _, bytes in
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            guard let value = try cursor.find(id: id, in: reader) else { return nil }
            var end = value
            try reader.skipItem(at: &end)
            if bytes[value] == 0xF6 { return nil }   // null stays null
            return try Self.setting(id, to: convert(bytes[value..<end]), in: bytes, entity: entity)
        }
        if let old = context.schema.defaults[name] { context.schema.defaults[name] = try convert(old[...]) }
        let rebuilt = affected.map { descriptor in
            var descriptor = descriptor
            for position in descriptor.fields.indices where descriptor.fields[position].path == [name] {
                descriptor.fields[position].kind = kind
                if kind != .string { descriptor.fields[position].collation = .binary }
            }
            return IndexDescriptor(name: descriptor.name, fields: descriptor.fields, isUnique: descriptor.isUnique,
                                   isMultiValue: descriptor.isMultiValue)
        }
        try migrate(context, to: kept + rebuilt) { toBuild in try buildIndexes(toBuild, context) }
        context.needsSaving = true
    }

    // MARK: Helpers

    /// The id of the stored field `name`; `.unknownField` when the entity has none, from the one
    /// check of field names (``KnownFields``: a suggestion, or the new name when it was renamed),
    /// or, for a field known but never stored (declared, or a relationship), naming it so.
    func storedFieldID(_ name: String, _ context: EntityContext) throws -> Int {
        guard !FieldTable.isRemoved(name), let id = context.schema.fields.id(for: name) else {
            try knownFields(of: context).check([name])
            throw StrataError(.unknownField, "\(context.name) has no stored field '\(name)'", entity: context.name, field: name)
        }
        return id
    }

    /// Throws `.invalidValue` when `name` cannot be a new field's name in `context`'s entity.
    func checkFreeName(_ name: String, _ context: EntityContext) throws {
        try EntityDescription.checkFieldName(name, entity: context.name)
        guard !FieldTable.isRemoved(name) else {
            throw StrataError(.invalidValue, "\(context.name): '\(name)' cannot be a field name", entity: context.name, field: name)
        }
        if context.schema.fields.id(for: name) != nil || context.schema.description?.field(name) != nil {
            throw StrataError(.invalidValue, "\(context.name) already has a field '\(name)'", entity: context.name, field: name)
        }
    }

    /// Makes `schema` the entity's, with `indexes` its index databases by name, saved at the commit.
    func commitSchema(_ schema: EntitySchema, indexes: [String: Database], _ context: EntityContext) throws {
        context.schema = schema
        context.indexes = indexes
        context.indexMaintainer = nil
        context.sampledDescription = nil
        context.needsSaving = true
    }

    /// `bytes` (a record's map) with field `id` set to the stored value `value`: replaced in
    /// place when present, appended otherwise.
    static func setting(_ id: Int, to value: [UInt8], in bytes: [UInt8], entity: String) throws -> [UInt8] {
        try rewriting(bytes, entity: entity) { entries, append in
            var found = false
            for entry in entries {
                if entry.id == id { found = true; append(id, value[...]) } else { append(entry.id, bytes[entry.value]) }
            }
            if !found { append(id, value[...]) }
        }
    }

    /// A record map built from `bytes`' entries by `body`, which appends (id, value) pairs
    /// (``RecordCursor/rebuild(_:_:)``); `.corruptRecord` naming `entity` when `bytes` is not a map.
    static func rewriting(_ bytes: [UInt8], entity: String,
                          _ body: ([(id: Int, value: Range<Int>)], (Int, ArraySlice<UInt8>) -> Void) throws -> Void) throws -> [UInt8] {
        do {
            return try RecordCursor.rebuild(bytes, body)
        } catch let failure as CBORReadFailure {
            throw StrataError(.corruptRecord, "\(entity): a stored record is not a valid CBOR map", entity: entity, cause: failure)
        }
    }
}

extension EntityDescription {
    /// This description with the top-level field `old` named `new` (in its fields, primary key,
    /// index paths and relationship key fields), its JSON key `jsonKey`, else the one it had,
    /// else `old`.
    func renamingField(_ old: String, to new: String, jsonKey: String? = nil) -> EntityDescription {
        var copy = self
        for position in copy.fields.indices where copy.fields[position].name == old {
            copy.fields[position].name = new
            copy.fields[position].jsonKey = jsonKey ?? copy.fields[position].jsonKey ?? old
        }
        copy.primaryKey = primaryKeyFields.map { $0 == old ? new : $0 }.joined(separator: ",")
        func renamed(_ path: String) -> String {
            path == old ? new : path.hasPrefix(old + ".") ? new + path.dropFirst(old.count) : path
        }
        for position in copy.indexes.indices { copy.indexes[position].fields = copy.indexes[position].fields.map(renamed) }
        for position in copy.relationships.indices { copy.relationships[position].keyField = renamed(copy.relationships[position].keyField) }
        return copy
    }
}
