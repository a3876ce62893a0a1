@_spi(Format) import StrataFormat

/// A stored record's selected fields (``FieldSelection``) as query values, read straight from its
/// CBOR bytes on demand: filtering, sorting, index maintenance, aggregates and exports need a few
/// fields, not the whole record, so they skip the Codable decoder.
///
/// Paths into embedded structs (`address.city`) walk nested maps; a path through an array
/// (`addresses.city`) yields the list of the elements' values, which quantifiers then range over
/// (``CBORReader/queryValue(at:remaining:depth:)``).
package struct StoredFieldValues: FieldValues {
    package let reader: CBORReader
    package let selection: FieldSelection
    /// The offset of each selected field's value, by slot; -1 when the record does not hold it.
    package let offsets: [Int]

    /// Every field of the record `bytes`; throws `.corruptRecord` naming `entity` when the bytes
    /// are not a record's map.
    package init(bytes: [UInt8], fields: FieldTable, entity: String) throws(StrataError) {
        self = try FieldSelection(everyFieldOf: fields).values(of: bytes, entity: entity)
    }

    package init(reader: CBORReader, selection: FieldSelection, offsets: [Int]) {
        self.reader = reader
        self.selection = selection
        self.offsets = offsets
    }

    /// No fields: what a query that reads none hands on.
    package static let none = StoredFieldValues(reader: CBORReader(bytes: []), selection: FieldSelection(names: [], fields: FieldTable()), offsets: [])

    /// The error for stored bytes of `entity` that are not a valid record map.
    package static func corrupt(entity: String, cause: any Error) -> StrataError {
        StrataError(.corruptRecord, "\(entity): stored record is not a valid CBOR map", entity: entity, cause: cause)
    }

    package func value(at path: [String]) -> QueryValue? {
        guard let first = path.first, let slot = selection.slot(of: first), offsets[slot] >= 0 else { return nil }
        return try? reader.queryValue(at: offsets[slot], remaining: path.dropFirst())
    }

    /// Whether the selected field in `slot` is a text string of exactly these UTF-8 bytes; nil
    /// when it is absent or not a text string.
    @inline(__always)
    package func textEquals(slot: Int, _ utf8: [UInt8]) -> Bool? {
        guard offsets[slot] >= 0 else { return nil }
        return RecordCursor.textEquals(reader, at: offsets[slot], utf8)
    }
}
