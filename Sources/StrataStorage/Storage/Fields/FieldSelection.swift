@_spi(Format) import StrataFormat

/// The top-level fields one reader of stored records needs (a query's predicate and orderings, an
/// index's fields, an aggregate), resolved to field ids once, so that reading a record costs one
/// ``RecordCursor`` pass over the head of its top-level map: no dictionary, no field names read,
/// and the pass stops once every selected field is found.
///
/// A class, so that the ``StoredFieldValues`` of each record hold one reference to it rather than
/// a copy of its arrays.
package final class FieldSelection: Sendable {
    /// The selected top-level field names, distinct, in slot order; empty for a selection of every
    /// field (``init(everyFieldOf:)``), whose slots are the field ids.
    package let names: [String]
    /// The slot of each stored field id (-1 for an unselected one), indexed by id.
    private let slots: [Int]
    /// The id of the field in slot 0 (-1 when there is none or it was never stored).
    private let firstID: Int
    /// How many slots there are.
    package let slotCount: Int
    /// How many selected names have a stored id (the others are always absent).
    private let stored: Int
    /// The field table of a selection of every field; nil for listed names.
    private let every: FieldTable?

    /// The selection of the top-level fields `names`.
    package init(names: [String], fields: FieldTable) {
        self.names = names
        let ids = names.map { fields.id(for: $0) }
        var slots = [Int](repeating: -1, count: (ids.compactMap { $0 }.max() ?? -1) + 1)
        for (slot, id) in ids.enumerated() { if let id, id >= 0 { slots[id] = slot } }
        self.slots = slots
        slotCount = names.count
        stored = slots.count { $0 >= 0 }
        firstID = ids.first.flatMap { $0 } ?? -1
        every = nil
    }

    /// The selection of every field of `fields` (for readers that ask for fields by name as they
    /// go: aggregates, exports, observation): the slot of a field is its id. Ids past the table's
    /// dense range (only a damaged catalog has them) are not selected.
    package init(everyFieldOf fields: FieldTable) {
        names = []
        let namesByID = fields.namesByID
        slots = namesByID.indices.map { namesByID[$0] == nil ? -1 : $0 }
        slotCount = namesByID.count
        stored = namesByID.count { $0 != nil }
        firstID = -1
        every = fields
    }

    /// The slot of the top-level field `name`, or nil when it is not selected (or never stored,
    /// for a selection of every field).
    @inline(__always)
    package func slot(of name: String) -> Int? {
        guard let every else { return names.firstIndex(of: name) }
        guard let id = every.id(for: name), id < slotCount else { return nil }
        return id
    }

    /// The values of `bytes`' selected fields, reusing `offsets`' storage.
    package func values(of bytes: [UInt8], reusing offsets: inout [Int]) throws(CBORReadFailure) -> StoredFieldValues {
        if offsets.count == slotCount {
            for slot in offsets.indices { offsets[slot] = -1 }
        } else {
            offsets = [Int](repeating: -1, count: slotCount)
        }
        let reader = CBORReader(bytes: bytes)
        var cursor = try RecordCursor(reader)
        try cursor.locate(reader, slots: slots, offsets: &offsets, stored: stored)
        return StoredFieldValues(reader: reader, selection: self, offsets: offsets)
    }

    /// The values of `bytes`' selected fields; throws `.corruptRecord` naming `entity` when the
    /// bytes are not a record's map.
    package func values(of bytes: [UInt8], entity: String) throws(StrataError) -> StoredFieldValues {
        var offsets: [Int] = []
        do {
            return try values(of: bytes, reusing: &offsets)
        } catch {
            throw StoredFieldValues.corrupt(entity: entity, cause: error)
        }
    }

    /// For a selection of one stored field: whether that field of `bytes` is a text string of
    /// exactly these UTF-8 bytes, compared in place (what ``PreparedPredicate`` does for
    /// `field == text`) without making a ``StoredFieldValues``; nil when the field is absent,
    /// not a text string, or the bytes do not read as a map (the caller then evaluates in full,
    /// which also reports corrupt bytes).
    package func singleTextEquals(_ bytes: [UInt8], _ utf8: [UInt8]) -> Bool? {
        guard names.count == 1, firstID >= 0 else { return nil }
        let reader = CBORReader(bytes: bytes)
        guard var cursor = try? RecordCursor(reader), let value = try? cursor.find(id: firstID, in: reader) else { return nil }
        return RecordCursor.textEquals(reader, at: value, utf8)
    }
}
