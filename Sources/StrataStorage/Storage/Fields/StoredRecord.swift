@_spi(Format) import StrataFormat
import Foundation

/// A record read without its Swift type: its primary key and its fields by stored name, each
/// value as JSON carries it. What `strata query`, `get` and `export` print.
///
/// Values map as the importer reads them back: dates become ISO 8601 text in UTC with `Z`
/// (fractional seconds when there are any), UUIDs and URLs their text, `Data` base64 text,
/// embedded structs objects keyed by their field names. So an export imports again unchanged.
public struct StoredRecord: Sendable, Hashable {
    /// The primary key value; for a compound key, the `.list` of its fields' values.
    public var key: QueryValue
    /// The stored fields, in field id order (the order they were first written). A field written
    /// as nil is `.null`; a field the record never had is absent.
    public var fields: [JSONMember]

    /// A record with this primary key and these fields.
    public init(key: QueryValue, fields: [JSONMember]) {
        self.key = key
        self.fields = fields
    }

    /// The value of the field named `name`, when the record has it.
    public subscript(name: String) -> JSONValue? {
        fields.first { $0.key == name }?.value
    }

    /// The record as a JSON object; `keys` renames fields (stored name → JSON key), as an export
    /// with the import's key mapping reversed does.
    public func jsonObject(renaming keys: [String: String] = [:]) -> JSONValue {
        .object(fields.map { JSONMember(key: keys[$0.key] ?? $0.key, value: $0.value) })
    }

    /// Reads a stored record; throws `.corruptRecord` naming the entity, the key and the byte.
    package init(key: [UInt8], bytes: [UInt8], fields table: FieldTable, entity: String) throws(StrataError) {
        let keyValue: QueryValue
        do throws(StrataError) {
            keyValue = try OrderedKey.primaryKeyValue(from: key)
        } catch {
            throw StrataError(.corruptRecord, "\(entity): a primary key does not decode (\(key.hex)): \(error.message)", entity: entity)
        }
        self.key = keyValue
        var members: [JSONMember] = []
        do {
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            members.reserveCapacity(cursor.count)
            while let id = try cursor.nextField(in: reader) {
                guard let name = table.name(for: id) else {
                    throw CBORReadFailure.corrupt(offset: cursor.position, reason: "field id \(id) is not in the entity's field table")
                }
                if FieldTable.isRemoved(name) {   // removed by a migration, not yet compacted away
                    _ = try cursor.skipValue(in: reader)
                    continue
                }
                members.append(JSONMember(key: name, value: try reader.jsonValue(at: &cursor.position)))
            }
            try cursor.finish(in: reader)
        } catch {
            let described = keyValue.keyDescription
            throw StrataError(.corruptRecord, "\(entity) \(described): the record does not decode: \(error)", entity: entity, key: described)
        }
        fields = members
    }
}

extension StoredRecord {
    /// Checks what ``init(key:bytes:fields:entity:)`` checks, without making the values: the
    /// record a replica is about to store is read in full, but nothing of it is kept. Throws
    /// exactly when the initializer throws (a test holds the two to that on mutated records);
    /// returns the ids of the fields whose value is not null, in the record's order.
    package static func check(key: [UInt8], bytes: [UInt8], fields table: FieldTable, entity: String) throws(StrataError) -> [Int] {
        let keyValue: QueryValue
        do throws(StrataError) {
            keyValue = try OrderedKey.primaryKeyValue(from: key)
        } catch {
            throw StrataError(.corruptRecord, "\(entity): a primary key does not decode (\(key.hex)): \(error.message)", entity: entity)
        }
        var present: [Int] = []
        do {
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            while let id = try cursor.nextField(in: reader) {
                guard let name = table.name(for: id) else {
                    throw CBORReadFailure.corrupt(offset: cursor.position, reason: "field id \(id) is not in the entity's field table")
                }
                if FieldTable.isRemoved(name) {
                    _ = try cursor.skipValue(in: reader)
                    continue
                }
                if try reader.checkJSONValue(at: &cursor.position) != .null { present.append(id) }
            }
            try cursor.finish(in: reader)
        } catch {
            let described = keyValue.keyDescription
            throw StrataError(.corruptRecord, "\(entity) \(described): the record does not decode: \(error)", entity: entity, key: described)
        }
        return present
    }
}
