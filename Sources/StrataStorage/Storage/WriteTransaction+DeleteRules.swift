@_spi(Format) import StrataFormat
import LMDB

extension WriteTransaction {
    /// Applies the delete rules of every relationship that refers to the record of `context`
    /// stored under `key`, which is about to be deleted: refuses (`deny`), deletes the referring
    /// records (`cascade`, their own rules first) or clears their references (`nullify`).
    /// `deleting` holds the records being deleted up the cascade, so that cycles end.
    package func applyDeleteRules(_ deleted: EntityContext, key: [UInt8], deleting: inout Set<[UInt8]>) throws {
        let incoming = try incomingRelationships(of: deleted.name)
        guard !incoming.isEmpty else { return }
        var position = 0
        let value = try OrderedKey.queryValue(from: key, at: &position)
        for (holder, relationship) in incoming {
            guard let holderContext = try context(named: holder) else { continue }
            let referring = try referringKeys(to: value, through: relationship, in: holderContext)
                .filter { !(holder == deleted.name && $0 == key) && !deleting.contains(Self.marker(holder, $0)) }
            guard !referring.isEmpty else { continue }
            switch relationship.deleteRule {
            case .deny:
                throw StrataError(.deleteDenied,
                    "\(deleted.name) \(value.plainDescription): \(referring.count) \(holder) record\(referring.count == 1 ? "" : "s") refer to it through '\(relationship.name)', whose delete rule is deny",
                    entity: deleted.name, key: value.plainDescription)
            case .cascade:
                for referringKey in referring {
                    try deleteStoredRecord(referringKey, holderContext, deleting: &deleting)
                }
            case .nullify:
                for referringKey in referring {
                    try editReference(relationship.keyField, kind: relationship.kind, of: referringKey, holderContext, .remove(value))
                }
            }
        }
    }

    /// Deletes one stored record after applying the delete rules that refer to it, keeping its
    /// indexes in step; false when there is none.
    @discardableResult
    package func deleteStoredRecord(_ key: [UInt8], _ context: EntityContext, deleting: inout Set<[UInt8]>) throws -> Bool {
        let marker = Self.marker(context.name, key)
        guard !deleting.contains(marker) else { return false }
        guard let old = try storedBytes(forKey: key, context) else { return false }
        deleting.insert(marker)
        try applyDeleteRules(context, key: key, deleting: &deleting)
        return try deleteRecord(forKey: key, context, prior: .stored(old))
    }

    private static func marker(_ entity: String, _ key: [UInt8]) -> [UInt8] { Array(entity.utf8) + [0] + key }
}

extension ReadTransaction {
    /// The primary keys, in order, of the records of `holder` whose reference field of
    /// `relationship` holds `value` (a to-one reference equal to it, a key list listing it). They
    /// are found through the index that leads with the reference field (one is declared with every
    /// relationship), each candidate checked against its record, since a folded or cut index key
    /// may lead to records that hold another value; without such an index, by reading every record
    /// of `holder`.
    package func referringKeys(to value: QueryValue, through relationship: RelationshipDescriptor, in holder: EntityContext) throws -> [[UInt8]] {
        let path = FieldPath.components(of: relationship.keyField)
        let selection = FieldSelection(names: [path[0]], fields: holder.schema.fields)
        func refers(_ bytes: [UInt8]) throws -> Bool {
            let held = try selection.values(of: bytes, entity: holder.name).value(at: path)
            switch (relationship.kind, held) {
            case (.toOne, let single?): return QueryValueOrder.compare(single, value, options: []) == 0
            case (.keyList, .list(let keys)?): return keys.contains { QueryValueOrder.compare($0, value, options: []) == 0 }
            default: return false
            }
        }
        var keys: [[UInt8]] = []
        if let descriptor = holder.schema.indexes.first(where: { $0.fields.first?.path == path && $0.fields.first?.kind != .other }),
           let database = holder.indexes[descriptor.name],
           let encoded = IndexKey.encode(value, kind: descriptor.fields[0].kind, collation: descriptor.fields[0].collation) {
            let probe = Array(encoded.prefix(IndexKey.maxLength))   // stored keys are cut there
            var candidates = Set<[UInt8]>()
            try withIndexCursor(database, entity: holder.name) { cursor in
                var more = try cursor.seek(atLeast: probe)
                while more, cursor.key.starts(with: probe) {
                    candidates.insert(cursor.value)
                    more = try cursor.next()
                }
            }
            for key in candidates {
                if let bytes = try storedBytes(forKey: key, holder), try refers(bytes) { keys.append(key) }
            }
            keys.sort { $0.lexicographicallyPrecedes($1) }
        } else {
            try forEachStoredRecord(holder) { key, bytes in
                if try refers(bytes) { keys.append(key) }
                return true
            }
        }
        return keys
    }
}

extension ReadTransaction {
    /// The relationships of other entities (or this one) that refer to entity `name`, each with
    /// the entity holding the reference field.
    package func incomingRelationships(of name: String) throws -> [(holder: String, relationship: RelationshipDescriptor)] {
        if let known = relationshipsByTarget[name] { return known }
        var incoming: [(holder: String, relationship: RelationshipDescriptor)] = []
        for holder in try entityNames() {
            guard let context = try context(named: holder) else { continue }
            for relationship in context.schema.relationships where relationship.target == name {
                incoming.append((holder, relationship))
            }
        }
        relationshipsByTarget[name] = incoming
        return incoming
    }
}
