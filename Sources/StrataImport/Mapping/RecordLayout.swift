@_spi(Format) import StrataFormat
import Foundation

/// The stored layout of an entity's records: merges mapped records with stored ones. A value, so
/// the writing thread can use it while another thread maps the next records.
struct RecordLayout: Sendable {
    let fields: [FieldDescription]
    /// The stored field id of each field.
    let fieldIDs: [Int]
    /// The field index of each stored field id, and which fields are required: so that merging
    /// a record costs constant time per field it or the stored record holds, however many fields
    /// the entity has.
    private let indexByID: [Int: Int]
    /// The same ids as a set, which the dense merge asks.
    private let knownIDs: Set<Int>
    private let isRequired: [Bool]
    /// How many fields are required.
    private let requiredCount: Int
    /// The layout of `description`'s fields, with the ids `table` gives them. A field with a
    /// stored default (the catalog's, `EntitySchema/defaults`, by field name) is not required:
    /// the record writer adds the default to a record that lacks it, whoever wrote the record.
    init(_ description: EntityDescription, ids table: FieldTable, defaults: [String: [UInt8]] = [:]) {
        fields = description.fields
        fieldIDs = description.fields.map { table.id(for: $0.name) ?? 0 }
        indexByID = Dictionary(fieldIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        knownIDs = Set(fieldIDs)
        isRequired = description.fields.map { !$0.isOptional && defaults[$0.name] == nil }
        requiredCount = isRequired.count { $0 }
    }

    /// The record bytes: the mapped fields in description order, stored fields where the JSON had
    /// no key, then stored fields the description does not know, in their stored order (defaults
    /// are the record writer's). Throws ``ConversionFailure`` when a new record lacks a required field.
    func encode(_ mapped: RecordMapper.Mapped, merging stored: [UInt8]?, entity: String) throws -> [UInt8] {
        guard mapped.slots.isSparse else { return try encode(dense: mapped.slots.dense, mapped, merging: stored, entity: entity) }
        let given = mapped.slots.sparse
        guard let stored else {
            try checkRequired(given)
            var writer = CBORWriter(capacity: mapped.values.count + 16)
            writer.bytes.append(CBOR.emptyMapByte)
            var count = 0
            for (index, slot) in given {
                guard case .value(let range) = slot else { continue }
                writer.writeHead(.unsigned, UInt64(fieldIDs[index]))
                writer.bytes.append(contentsOf: mapped.values[range])
                count += 1
            }
            writer.patchHead(at: 0, .map, count: count)
            return writer.bytes
        }
        let storedFields = try Self.topLevelFields(of: stored, entity: entity, key: mapped.keyText)
        // The stored fields the description knows, by field index; of a field stored twice, the
        // one the merge has always taken (the first of a few fields, the last of many).
        var known: [(index: Int, value: Range<Int>)] = []
        var unknown = false
        for entry in storedFields {
            if let index = indexByID[entry.id] { known.append((index, entry.value)) } else { unknown = true }
        }
        known = Self.ordered(known, keepingFirst: storedFields.count <= 8)
        var writer = CBORWriter(capacity: mapped.values.count + stored.count + 16)
        writer.bytes.append(CBOR.emptyMapByte)
        var count = 0
        var next = 0   // the next of `known`
        for (index, slot) in given {
            while next < known.count, known[next].index <= index {
                if known[next].index < index {
                    writer.writeHead(.unsigned, UInt64(fieldIDs[known[next].index]))
                    writer.bytes.append(contentsOf: stored[known[next].value])
                    count += 1
                }
                next += 1
            }
            guard case .value(let range) = slot else { continue }
            writer.writeHead(.unsigned, UInt64(fieldIDs[index]))
            writer.bytes.append(contentsOf: mapped.values[range])
            count += 1
        }
        for entry in known[next...] {
            writer.writeHead(.unsigned, UInt64(fieldIDs[entry.index]))
            writer.bytes.append(contentsOf: stored[entry.value])
            count += 1
        }
        if unknown {
            for entry in storedFields where indexByID[entry.id] == nil {
                writer.writeHead(.unsigned, UInt64(entry.id))
                writer.bytes.append(contentsOf: stored[entry.value])
                count += 1
            }
        }
        writer.patchHead(at: 0, .map, count: count)
        return writer.bytes
    }

    /// ``encode(_:merging:entity:)`` for a slot per field: the fields in order, each looked up
    /// in the stored record when absent.
    private func encode(dense slots: [RecordMapper.Slot], _ mapped: RecordMapper.Mapped, merging stored: [UInt8]?,
                        entity: String) throws -> [UInt8] {
        let storedFields = try stored.map { try Self.topLevelFields(of: $0, entity: entity, key: mapped.keyText) } ?? []
        // Stored values by id, looked up for the fields the mapped record lacks.
        var storedByID: [Int: Range<Int>] = [:]
        if storedFields.count > 8 { for entry in storedFields { storedByID[entry.id] = entry.value } }
        var writer = CBORWriter(capacity: mapped.values.count + (stored?.count ?? 0) + 16)
        writer.bytes.append(CBOR.emptyMapByte)
        var count = 0
        for index in slots.indices {
            let id = fieldIDs[index]
            switch slots[index] {
            case .value(let range):
                writer.writeHead(.unsigned, UInt64(id))
                writer.bytes.append(contentsOf: mapped.values[range])
                count += 1
            case .null:
                continue
            case .absent:
                if let stored, let range = storedFields.count > 8 ? storedByID[id] : storedFields.first(where: { $0.id == id })?.value {
                    writer.writeHead(.unsigned, UInt64(id))
                    writer.bytes.append(contentsOf: stored[range])
                    count += 1
                } else if stored == nil, isRequired[index] {
                    throw ConversionFailure(message: "has no value for the required field '\(fields[index].name)'")
                }
            }
        }
        if let stored {
            for entry in storedFields where !knownIDs.contains(entry.id) {
                writer.writeHead(.unsigned, UInt64(entry.id))
                writer.bytes.append(contentsOf: stored[entry.value])
                count += 1
            }
        }
        writer.patchHead(at: 0, .map, count: count)
        return writer.bytes
    }

    /// Throws ``ConversionFailure`` naming the first required field (in description order) that a
    /// new record lacks; counts the given ones first, so a complete record costs its own fields.
    private func checkRequired(_ given: [(field: Int, slot: RecordMapper.Slot)]) throws {
        guard requiredCount > 0 else { return }
        var present = 0
        for entry in given where isRequired[entry.field] { present += 1 }
        guard present < requiredCount else { return }
        let slots = RecordMapper.Slots(sparse: given, fieldCount: fields.count)
        for index in fields.indices where isRequired[index] {
            if case .absent = slots[index] {
                throw ConversionFailure(message: "has no value for the required field '\(fields[index].name)'")
            }
        }
    }

    /// `entries` by field index, one per field: of duplicates the first in stored order, or the last.
    private static func ordered(_ entries: [(index: Int, value: Range<Int>)], keepingFirst: Bool) -> [(index: Int, value: Range<Int>)] {
        var sorted = true
        for position in entries.indices.dropFirst() where entries[position - 1].index >= entries[position].index {
            sorted = false
            break
        }
        if sorted { return entries }
        let ranked = entries.enumerated().sorted { ($0.element.index, $0.offset) < ($1.element.index, $1.offset) }
        var result: [(index: Int, value: Range<Int>)] = []
        result.reserveCapacity(ranked.count)
        for (_, entry) in ranked {
            if let last = result.last, last.index == entry.index {
                if !keepingFirst { result[result.count - 1] = entry }
            } else {
                result.append(entry)
            }
        }
        return result
    }

    /// The top-level entries of a stored record: field id and the byte range of its value.
    static func topLevelFields(of bytes: [UInt8], entity: String, key: @autoclosure () -> String) throws(StrataError) -> [(id: Int, value: Range<Int>)] {
        do {
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            return try cursor.entries(in: reader)
        } catch {
            let key = key()
            throw StrataError(.corruptRecord, "\(entity): the stored record with key \(key) is not a valid CBOR map",
                              entity: entity, key: key, cause: error)
        }
    }

    /// Whether `stored` is what ``encode(_:merging:entity:)`` would store again, when that is
    /// cheap to tell: every field is given (none absent) and `stored` holds exactly those fields
    /// in the same bytes. False when it cannot tell; ``encode(_:merging:entity:)`` then decides.
    func isUnchanged(_ mapped: RecordMapper.Mapped, stored: UnsafeBufferPointer<UInt8>) -> Bool {
        guard mapped.slots.isSparse else { return isUnchanged(dense: mapped.slots.dense, mapped, stored: stored) }
        let given = mapped.slots.sparse
        guard given.count == mapped.slots.count else { return false }   // a field is absent
        var count = 0
        for entry in given { if case .value = entry.slot { count += 1 } }
        return mapped.values.withUnsafeBufferPointer { values in
            RecordCursor.matches(stored, count: count) { match in
                for (index, slot) in given {
                    guard case .value(let range) = slot else { continue }
                    guard match.entry(fieldIDs[index], UnsafeBufferPointer(rebasing: values[range])) else { return false }
                }
                return true
            }
        }
    }

    /// ``isUnchanged(_:stored:)`` for a slot per field.
    private func isUnchanged(dense slots: [RecordMapper.Slot], _ mapped: RecordMapper.Mapped, stored: UnsafeBufferPointer<UInt8>) -> Bool {
        var count = 0
        for slot in slots {
            switch slot {
            case .absent: return false
            case .null: continue
            case .value: count += 1
            }
        }
        return mapped.values.withUnsafeBufferPointer { values in
            RecordCursor.matches(stored, count: count) { match in
                for (index, slot) in slots.enumerated() {
                    guard case .value(let range) = slot else { continue }
                    guard match.entry(fieldIDs[index], UnsafeBufferPointer(rebasing: values[range])) else { return false }
                }
                return true
            }
        }
    }
}
