@_spi(Format) import StrataFormat
import LMDB

extension EntityWriter {
    /// Refuses a reference field holding a key no stored record of the target has, whichever
    /// way the payload filled it (`company_id`, `ingredients_ids`, the field by its name, or the
    /// keys of nested records written just before), as `notes_ids` refuses an unknown key.
    /// Throws `.notFound` naming the field, the target entity and the key.
    func checkReferences(_ mapped: RecordMapper.Mapped) throws {
        guard !description.relationships.isEmpty else { return }
        for relationship in description.relationships where !relationship.keyField.contains(".") {
            guard let field = fieldIndex(relationship.keyField), case .value(let range) = mapped.slots[field] else { continue }
            let reader = CBORReader(bytes: Array(mapped.values[range]))
            let value: QueryValue?
            do { value = try reader.queryValue(at: 0, remaining: []) } catch { continue }
            let keys: [QueryValue] = switch value {
            case .list(let elements)?: elements
            case .null?, nil: []
            case let single?: [single]
            }
            guard !keys.isEmpty else { continue }
            let target = try tx.context(named: relationship.target)
            for key in keys where key != .null {
                let text = key.plainDescription
                let stored = try target.map { target in
                    let bytes = try tx.storedPrimaryKey(key, target)
                    return try tx.hasRecord(forKey: bytes, target)
                } ?? false
                guard stored else {
                    throw StrataError(.notFound, "'\(relationship.keyField)' (the relationship '\(relationship.name)') links \(relationship.target) \(text), which is not stored",
                                      entity: relationship.target, field: relationship.keyField, key: text)
                }
            }
        }
    }
}
