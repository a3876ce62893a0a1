@_spi(Format) import StrataFormat
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
                    try editReference(relationship.keyField, kind: relationship.kind, of: referringKey, holderContext, .remove(value))
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
        guard let old = try storedBytes(forKey: key, context) else { return false }
        deleting.insert(marker)
        try applyDeleteRules(context, key: key, deleting: &deleting)
        return try deleteRecord(forKey: key, context, prior: .stored(old))
    }

    private static func marker(_ entity: String, _ key: [UInt8]) -> [UInt8] { Array(entity.utf8) + [0] + key }
}
