import Foundation

/// A stored record's fields as query values, read straight from its CBOR bytes: filtering and
/// sorting need a few fields, not the whole record, so they skip the Codable decoder.
///
/// Paths into embedded structs (`address.city`) walk nested maps; a path through an array
/// (`addresses.city`) yields the list of the elements' values, which quantifiers then range over.
struct StoredFieldValues: FieldValues {
    private let reader: CBORReader
    /// Offsets of the top-level values, by field name.
    private let offsets: [String: Int]

    /// Indexes the top-level map of `bytes`; throws `.corruptRecord` when it is not one.
    init(bytes: [UInt8], fields: FieldTable, entity: String) throws(StrataError) {
        reader = CBORReader(bytes: bytes)
        var offsets: [String: Int] = [:]
        do {
            try reader.forEachTopLevelField { id, value in
                if let name = fields.name(for: id) { offsets[name] = value.lowerBound }
            }
        } catch {
            throw Self.corrupt(entity: entity, cause: error)
        }
        self.offsets = offsets
    }

    /// The error for stored bytes of `entity` that are not a valid CBOR map.
    static func corrupt(entity: String, cause: any Error) -> StrataError {
        StrataError(.corruptRecord, "\(entity): stored record is not a valid CBOR map", entity: entity, cause: cause)
    }

    func value(at path: [String]) -> QueryValue? {
        guard let first = path.first, let offset = offsets[first] else { return nil }
        return try? reader.queryValue(at: offset, remaining: path.dropFirst())
    }
}
