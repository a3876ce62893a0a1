@_spi(Format) import StrataFormat
import Foundation

/// What a replica checks of each change before it applies it: the same things a local write
/// guarantees, through the mechanisms that guarantee them, so that a forged or damaged feed is
/// refused (`.corruptRecord`, `.invalidRecord`, `.invalidValue`) and never stored.
///
/// - A record is read whole as the one reader over stored records reads it (``StoredRecord``,
///   what `verify` runs; ``StoredRecord/check(key:bytes:fields:entity:)`` makes no values): a
///   CBOR map whose field ids are all in the entity's field table, nested no deeper than
///   `CBOR.maximumDepth`, nothing after it.
/// - Its stored key is in the key encoding (``ReadTransaction/storedPrimaryKey(_:_:)`` gives it
///   back byte for byte), no longer than LMDB allows, and agrees with the record's key fields,
///   which hold values of the key's kind; a described entity's required fields are present.
/// - A schema entry names its entity, has a field table of distinct names and ids from 1 to
///   ``FieldTable/largestID``, names its primary key among its fields, indexes only fields it
///   knows (as ``WriteTransaction/addIndex(_:toEntity:)`` checks them) and passes the description
///   checks; an entry that takes another entity's records database (a rename) keeps that entity's
///   primary key and field ids.
extension WriteTransaction {
    /// What checking the replicated records of one entity needs, found once per run of changes:
    /// its key fields with their kinds, the selection that reads them, and the ids of a described
    /// entity's required fields (nil for a required field the field table lacks, which no record
    /// can then hold).
    package struct ReplicatedRecordCheck {
        package let keyFields: [(name: String, kind: ValueKind)]
        package let selection: FieldSelection
        package let required: [(name: String, id: Int?)]
    }

    package func replicatedRecordCheck(for context: EntityContext) throws -> ReplicatedRecordCheck {
        let names = context.schema.primaryKeyFields
        let kinds = try primaryKeyFieldKinds(of: context) ?? [(names[0], try primaryKeyKind(of: context))]
        let required = (context.schema.description?.fields ?? []).filter { !$0.isOptional }.map { field in
            (field.name, context.schema.fields.id(for: field.name))
        }
        return ReplicatedRecordCheck(keyFields: kinds, selection: FieldSelection(names: kinds.map(\.name), fields: context.schema.fields),
                                     required: required)
    }

    /// Checks the record `bytes` stored under `key`, a change to `context`'s entity in commit
    /// `commit`, with what `check` found of the entity.
    package func checkReplicated(record bytes: [UInt8], key: [UInt8], _ context: EntityContext, _ check: ReplicatedRecordCheck, commit: UInt64) throws {
        let keyValue = try checkReplicated(key: key, context, commit: commit)
        let present: [Int]
        do throws(StrataError) {
            present = try StoredRecord.check(key: key, bytes: bytes, fields: context.schema.fields, entity: context.name)
        } catch {
            throw StrataError(.corruptRecord, "commit \(commit): \(error.message)", entity: context.name, key: describeStoredKey(key))
        }
        func invalid(_ reason: String, field: String? = nil) -> StrataError {
            StrataError(.invalidRecord, "commit \(commit): the record of \(context.name) with key \(describeStoredKey(key)) \(reason)",
                        entity: context.name, field: field, key: describeStoredKey(key))
        }
        // The key fields: present, of the key's kind, and the stored key's values.
        let kinds = check.keyFields
        let values = try check.selection.values(of: bytes, entity: context.name)
        var keyParts = [keyValue]
        if kinds.count > 1, case .list(let parts) = keyParts[0] { keyParts = parts }
        guard keyParts.count == kinds.count else { throw invalid("has a stored key of \(keyParts.count) values for a key of \(kinds.count) fields") }
        for ((name, kind), keyPart) in zip(kinds, keyParts) {
            guard let value = values.value(at: [name]), value != .null else { throw invalid("lacks its key field '\(name)'", field: name) }
            guard kind == .other || kind.accepts(value) else {
                throw invalid("holds \(value.plainDescription.prefix(40)) in its key field '\(name)', not a \(kind.rawValue)", field: name)
            }
            guard Self.sameKeyValue(value, keyPart, kind: kind) else {
                throw invalid("holds \(value.plainDescription.prefix(40)) in its key field '\(name)', which disagrees with its stored key", field: name)
            }
        }
        for (name, id) in check.required where !(id.map(present.contains) ?? false) {
            throw invalid("lacks the required field '\(name)'", field: name)
        }
    }

    /// Checks a stored key of `context`'s entity: in the key encoding, and short enough for LMDB.
    @discardableResult
    package func checkReplicated(key: [UInt8], _ context: EntityContext, commit: UInt64) throws -> QueryValue {
        guard key.count <= store.environment.maxKeySize else {
            throw StrataError(.invalidRecord, "commit \(commit): a stored key of \(context.name) has \(key.count) bytes; LMDB keys are limited to \(store.environment.maxKeySize)",
                              entity: context.name)
        }
        let value: QueryValue
        do throws(StrataError) { value = try OrderedKey.primaryKeyValue(from: key) } catch {
            throw StrataError(.corruptRecord, "commit \(commit): a stored key of \(context.name) does not decode (\(key.hex)): \(error.message)", entity: context.name)
        }
        let canonical = try? storedPrimaryKey(value, context)
        guard canonical == key else {
            throw StrataError(.invalidRecord,
                "commit \(commit): the stored key \(key.hex) of \(context.name) is not in the encoding of its primary key '\(context.schema.primaryKey)' (\(try primaryKeyKind(of: context).rawValue))",
                entity: context.name, key: value.keyDescription)
        }
        return value
    }

    /// Whether a record's key field value and the stored key's value are one value: the same key
    /// bytes, or for dates (stored in records from 1970, in keys from 2001) the same instant.
    private static func sameKeyValue(_ value: QueryValue, _ keyPart: QueryValue, kind: ValueKind) -> Bool {
        if case .date(let a) = value, case .date(let b) = keyPart { return abs(a.timeIntervalSince(b)) < 0.001 }
        guard let own = PrimaryKeyEncoder.encode(value.converted(toKind: kind) ?? value, kind: kind),
              let stored = PrimaryKeyEncoder.encode(keyPart, kind: kind) else { return kind == .other }
        return own == stored
    }

    /// Checks the schema entry `schema` of a replicated commit before the replica adopts it.
    package func checkReplicated(schema: EntitySchema, commit: UInt64) throws {
        func invalid(_ reason: String) -> StrataError {
            StrataError(.invalidValue, "commit \(commit): the schema entry of \(EntityDescription.visible(schema.name)) \(reason)", entity: schema.name)
        }
        if let scalar = EntityDescription.controlCharacter(in: schema.name) {
            throw invalid("names it with the control character U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
        let names = schema.fields.names
        if let id = names.keys.first(where: { $0 < 1 || $0 > FieldTable.largestID }) {
            throw invalid("has the field id \(id); ids run from 1 to \(FieldTable.largestID)")
        }
        guard Set(names.values).count == names.count else {
            let counts = Dictionary(names.values.map { ($0, 1) }, uniquingKeysWith: +)
            throw invalid("gives the field name '\(counts.first { $0.value > 1 }?.key ?? "")' more than one id")
        }
        if let name = names.values.first(where: { EntityDescription.controlCharacter(in: $0) != nil }) {
            throw invalid("has the field name \(EntityDescription.visible(name)) with a control character")
        }
        if !names.isEmpty, let key = schema.primaryKeyFields.first(where: { schema.fields.id(for: $0) == nil }) {
            throw invalid("has the primary key field '\(key)', which is not in its field table")
        }
        if let description = schema.description { try description.validateNamesAndDepth() }
    }

    /// Checks that `schema`, an entry that takes the records database of `other` (a rename),
    /// keeps `other`'s primary key and every field id it has.
    package func checkReplicatedRename(of other: EntitySchema, to schema: EntitySchema, commit: UInt64) throws {
        let kept = other.fields.names.keys.allSatisfy { schema.fields.name(for: $0) != nil }
        guard kept, other.primaryKeyFields.count == schema.primaryKeyFields.count, other.primaryKeyKind == schema.primaryKeyKind else {
            throw StrataError(.invalidValue,
                "commit \(commit): the schema entry of \(EntityDescription.visible(schema.name)) claims the records database \(schema.recordsDatabase) of \(other.name), but is no rename of it (a rename keeps the primary key and every field id)",
                entity: schema.name)
        }
    }
}
