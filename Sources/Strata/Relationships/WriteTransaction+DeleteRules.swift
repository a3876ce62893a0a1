import LMDB

extension WriteTransaction {
    /// Applies the delete rules of every relationship that refers to the record of `context`
    /// stored under `key`, which is about to be deleted: refuses (`deny`), deletes the referring
    /// records (`cascade`, their own rules first) or clears their references (`nullify`).
    /// `deleting` holds the records being deleted up the cascade, so that cycles end.
    func applyDeleteRules(_ deleted: EntityContext, key: [UInt8], deleting: inout Set<[UInt8]>) throws {
        let incoming = try incomingRelationships(of: deleted.name)
        guard !incoming.isEmpty else { return }
        var position = 0
        let value = try OrderedKey.queryValue(from: key, at: &position)
        for (holder, relationship) in incoming {
            guard let holderContext = try context(named: holder) else { continue }
            let comparison = FieldComparison(field: relationship.keyField.split(separator: ".").map(String.init), op: .equal,
                                             value: value, quantifier: relationship.kind == .keyList ? .any : nil)
            let referring = try QueryRequest<StoredRecord>(transaction: self, entity: holder)
                .filtered(by: .comparison(comparison)).storedKeys()
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
                    try clearReference(relationship, to: value, in: referringKey, holderContext)
                }
            }
        }
    }

    /// Deletes one stored record after applying the delete rules that refer to it, keeping its
    /// indexes in step; false when there is none.
    @discardableResult
    func deleteStoredRecord(_ key: [UInt8], _ context: EntityContext, deleting: inout Set<[UInt8]>) throws -> Bool {
        let marker = Self.marker(context.name, key)
        guard !deleting.contains(marker) else { return false }
        guard let old = try lmdb(entity: context.name, { try raw.value(forKey: key, in: context.records) }) else { return false }
        deleting.insert(marker)
        try applyDeleteRules(context, key: key, deleting: &deleting)
        if !context.schema.indexes.isEmpty {
            guard context.schema.indexes.allSatisfy(StoredIndexMaintainer.canMaintain) else {
                throw StrataError(.invalidValue, "\(context.name): an index has a field with a custom key encoding; delete through the record type",
                                  entity: context.name)
            }
            try StoredIndexMaintainer(self, context).update(old: old, new: nil, primaryKey: key)
        }
        _ = try lmdb(entity: context.name) { try raw.delete(key, in: context.records) }
        changes.note(context.name, key: key, bytes: nil)
        return true
    }

    /// Rewrites the stored record `key` of `context` without its reference to `target` through
    /// `relationship`: a to-one field becomes null, a key list loses the key.
    private func clearReference(_ relationship: RelationshipDescriptor, to target: QueryValue, in key: [UInt8], _ context: EntityContext) throws {
        guard let old = try lmdb(entity: context.name, { try raw.value(forKey: key, in: context.records) }),
              let fieldID = context.schema.fields.id(for: relationship.keyField) else { return }
        let reader = CBORReader(bytes: old)
        var rewritten = CBORWriter(capacity: old.count)
        do {
            var count = 0
            try reader.forEachTopLevelField { _, _ in count += 1 }
            rewritten.writeHead(.map, UInt64(count))
            try reader.forEachTopLevelField { id, range in
                rewritten.writeInteger(id)
                guard id == fieldID else { rewritten.bytes += old[range]; return }
                switch relationship.kind {
                case .toOne:
                    rewritten.writeNull()
                case .keyList:
                    var offset = range.lowerBound
                    let head = try reader.readHead(at: &offset)
                    guard head.major == .array else { rewritten.bytes += old[range]; return }
                    var kept: [Range<Int>] = []
                    for _ in 0..<min(head.argument, UInt64(old.count)) {
                        let start = offset
                        try reader.skipItem(at: &offset)
                        let element = try reader.queryValue(at: start, remaining: [])
                        if element.map({ QueryValueOrder.compare($0, target, options: []) != 0 }) ?? true { kept.append(start..<offset) }
                    }
                    rewritten.writeHead(.array, UInt64(kept.count))
                    for element in kept { rewritten.bytes += old[element] }
                }
            }
        } catch {
            throw StoredFieldValues.corrupt(entity: context.name, cause: error)
        }
        let bytes = rewritten.bytes
        try lmdb(entity: context.name) { try raw.put(bytes, forKey: key, in: context.records) }
        changes.note(context.name, key: key, bytes: bytes)
        if !context.schema.indexes.isEmpty {
            try StoredIndexMaintainer(self, context).update(old: old, new: bytes, primaryKey: key)
        }
    }

    private static func marker(_ entity: String, _ key: [UInt8]) -> [UInt8] { Array(entity.utf8) + [0] + key }
}
