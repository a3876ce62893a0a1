@_spi(Format) import StrataFormat
import LMDB

extension WriteTransaction {
    /// A change to the reference field of a stored record.
    package enum ReferenceEdit {
        /// A to-one reference becomes null; a key list loses the key.
        case remove(QueryValue)
        /// A to-one reference becomes this key (CBOR, as the record codec writes it).
        case set([UInt8])
        /// A key list gains the key (as a query value and as CBOR) unless it lists it already.
        case add(QueryValue, [UInt8])
    }

    /// Rewrites the reference field `keyField` (a to-one key or a key list, as `kind` says) of
    /// the stored record `key` of `context` as `edit` says, keeping its indexes in step and
    /// noting the change for observers. False, with nothing written, when there is no such record
    /// or the edit changes nothing.
    @discardableResult
    package func editReference(_ keyField: String, kind: RelationshipDescriptor.Kind, of key: [UInt8], _ context: EntityContext,
                       _ edit: ReferenceEdit) throws -> Bool {
        guard let old = try storedBytes(forKey: key, context) else { return false }
        guard let fieldID = context.schema.fields.id(for: keyField) else {
            if case .remove = edit { return false }
            throw StrataError(.invalidValue, "\(context.name): the reference field '\(keyField)' has no field id", entity: context.name, field: keyField)
        }
        var entries: [(id: Int, value: Range<Int>)] = []
        var replacement: [UInt8]?
        do {
            let reader = CBORReader(bytes: old)
            var cursor = try RecordCursor(reader)
            entries = try cursor.entries(in: reader)
            let current = entries.first { $0.id == fieldID }?.value
            replacement = try Self.edited(current.map { old[$0] }, kind: kind, edit, reader: reader, range: current)
        } catch {
            throw StoredFieldValues.corrupt(entity: context.name, cause: error)
        }
        guard let replacement else { return false }
        var rewritten = CBORWriter(capacity: old.count + replacement.count)
        let present = entries.contains { $0.id == fieldID }
        rewritten.writeHead(.map, UInt64(entries.count + (present ? 0 : 1)))
        for entry in entries {
            rewritten.writeInteger(entry.id)
            rewritten.bytes += entry.id == fieldID ? replacement[...] : old[entry.value]
        }
        if !present {
            rewritten.writeInteger(fieldID)
            rewritten.bytes += replacement
        }
        try writeRecord(rewritten.bytes, forKey: key, context, replacing: true, prior: .stored(old)) { describeStoredKey(key) }
        return true
    }

    /// The new CBOR of a reference field whose value is `current` (at `range` of the reader's
    /// bytes; nil when the record lacks the field), or nil when `edit` changes nothing.
    private static func edited(_ current: ArraySlice<UInt8>?, kind: RelationshipDescriptor.Kind, _ edit: ReferenceEdit,
                               reader: CBORReader, range: Range<Int>?) throws -> [UInt8]? {
        switch (kind, edit) {
        case (.toOne, .remove):
            guard let current, current.first != CBOR.nullByte else { return nil }
            return [CBOR.nullByte]
        case (.toOne, .set(let value)), (.toOne, .add(_, let value)):
            return current.map { Array($0) == value } == true ? nil : value
        case (.keyList, .set(let value)):
            return current.map { Array($0) == value } == true ? nil : value
        case (.keyList, .remove(let target)), (.keyList, .add(let target, _)):
            var elements: [ArraySlice<UInt8>] = []
            var listed = false
            if let current, let range, current.first != CBOR.nullByte {
                var offset = range.lowerBound
                let head = try reader.readHead(at: &offset)
                guard head.major == .array else { throw CBORReadFailure.corrupt(offset: range.lowerBound, reason: "a key list is not an array") }
                for _ in 0..<min(head.argument, UInt64(range.count)) {
                    let start = offset
                    try reader.skipItem(at: &offset)
                    let element = try reader.queryValue(at: start, remaining: [])
                    if element.map({ QueryValueOrder.compare($0, target, options: []) == 0 }) ?? false {
                        listed = true
                        if case .remove = edit { continue }
                    }
                    elements.append(reader.bytes[start..<offset])
                }
            }
            switch edit {
            case .add(_, let value):
                guard !listed else { return nil }
                elements.append(value[...])
            default:
                guard listed else { return nil }
            }
            var writer = CBORWriter(capacity: elements.reduce(9) { $0 + $1.count })
            writer.writeHead(.array, UInt64(elements.count))
            for element in elements { writer.bytes += element }
            return writer.bytes
        }
    }
}
