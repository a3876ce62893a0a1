@_spi(Format) import StrataFormat

/// The one sampler of the field types an entity's stored records hold: what the query layer checks
/// comparisons against when the catalog holds no description (``FieldTypes/sampled(_:in:)``) and
/// what ``ReadTransaction/entityDescription(named:sampleLimit:)`` infers for `strata schema`, the
/// export's keys, a nested import into an existing entity and an index added by name.
///
/// It reads the first records of the entity in key order through the one walk of the record map
/// (``RecordCursor``) and types each top-level field by the exact CBOR kind of its values, not by
/// how they would render as JSON: text is `string` (even when it looks like a date), tag 1 `date`,
/// tag 37 `uuid`, tag 32 `url`, byte strings `data`, integers and bignums `integer`, floats
/// `double`, true and false `bool`, arrays `array` of their elements' merged type (an empty one
/// `array(any)`). A nested map is `any`: a struct and a dictionary are the same CBOR map, and an
/// `object` of the keys a sample saw would make a later import drop the keys it did not see. Null
/// (and undefined) says nothing of the type and makes the field optional; values of different kinds
/// merge as schema inference merges them (``FieldType.merge(_:_:)``).
///
/// How many records to read is the caller's, by what the sample is for:
/// ``typeCheckRecords`` (64) for a query's type check, paid by the first untyped query of each
/// transaction (and never refusing a valid comparison when it misses a kind); ``lookupRecords``
/// (1,000) for descriptions the library and the tool use on the way to other work (export keys,
/// nested imports, adding an index by name, the tool's field lists); and `entityDescription`'s
/// default of 10,000 for the description a person reads (`strata schema`), where more records
/// make the optional flags truer.
package struct StoredFieldSample {
    /// Records sampled for a query's type check (``FieldTypes/sampled(_:in:)``).
    package static let typeCheckRecords = 64
    /// Records sampled for a description used on the way to other work.
    package static let lookupRecords = 1_000

    /// What the sample says of one field.
    package struct Field: Equatable {
        /// The type its non-null values agree on; nil when every sampled value was null.
        package var type: FieldType?
        /// The first sampled record (from 0) that holds it.
        package var firstSeenIn: Int
        /// Whether a sampled record from `firstSeenIn` on lacks it or holds null.
        package var isOptional = false
    }

    /// The sampled fields by name (removed fields left out).
    package private(set) var fields: [String: Field] = [:]
    /// How many records were read.
    package private(set) var records = 0

    /// Reads up to `limit` records of `context` (the caller's purpose gives `limit`, see above).
    /// Throws `.corruptRecord` naming the entity, the key and the byte offset for a record that
    /// does not decode or holds a field id its entity's table lacks.
    package init(_ context: EntityContext, in transaction: ReadTransaction, records limit: Int) throws {
        let table = context.schema.fields
        try transaction.forEachStoredRecord(context) { key, bytes in
            guard records < limit else { return false }
            do throws(CBORReadFailure) {
                try add(bytes, fields: table)
            } catch {
                let described = (try? OrderedKey.primaryKeyValue(from: key))?.keyDescription ?? key.hex
                throw StrataError(.corruptRecord, "\(context.name) \(described): the record does not decode: \(error)",
                                  entity: context.name, key: described)
            }
            return true
        }
    }

    /// An empty sample, for records added one at a time (``add(_:fields:)``).
    package init() {}

    /// Adds one stored record.
    package mutating func add(_ bytes: [UInt8], fields table: FieldTable) throws(CBORReadFailure) {
        let reader = CBORReader(bytes: bytes)
        var cursor = try RecordCursor(reader)
        var present = Set<String>()
        while let id = try cursor.nextField(in: reader) {
            guard let name = table.name(for: id) else {
                throw .corrupt(offset: cursor.position, reason: "field id \(id) is not in the entity's field table")
            }
            let type = try reader.sampledType(at: &cursor.position)
            guard !FieldTable.isRemoved(name), present.insert(name).inserted else { continue }
            var field = fields[name] ?? Field(firstSeenIn: records)
            if let type {
                field.type = field.type.map { FieldType.merge($0, type) } ?? type
            } else {
                field.isOptional = true
            }
            fields[name] = field
        }
        try cursor.finish(in: reader)
        for (name, field) in fields where !field.isOptional && !present.contains(name) { fields[name]!.isOptional = true }
        records += 1
    }
}

extension CBORReader {
    /// The field type of the item at `offset` by its CBOR kind (``StoredFieldSample``), moving
    /// past it; nil for null and undefined. Checks what ``jsonValue(at:depth:)`` checks.
    package func sampledType(at offset: inout Int, depth: Int = 0) throws(CBORReadFailure) -> FieldType? {
        guard depth < CBOR.maximumDepth else { throw .corrupt(offset: offset, reason: "nesting too deep") }
        let start = offset
        let head = try readHead(at: &offset)
        switch head.major {
        case .unsigned, .negative:
            return .scalar(.integer)
        case .text:
            offset = start
            _ = try readValidTextRange(at: &offset)
            return .scalar(.string)
        case .bytes:
            offset = start
            _ = try readStringRange(.bytes, at: &offset)
            return .scalar(.data)
        case .array:
            let count = try checkedLength(head, at: offset, start: start, perItem: 1)
            var element: FieldType?
            for _ in 0..<count {
                guard let type = try sampledType(at: &offset, depth: depth + 1) else { continue }
                element = element.map { FieldType.merge($0, type) } ?? type
            }
            return .array(element ?? .any)
        case .map:
            offset = start
            _ = try checkJSONValue(at: &offset, depth: depth)
            return .any
        case .tag:
            switch head.argument {
            case CBOR.epochDateTag:
                _ = try readDouble(at: &offset)
                return .scalar(.date)
            case CBOR.positiveBignumTag, CBOR.negativeBignumTag:
                offset = start
                _ = try readWideInteger(at: &offset)
                return .scalar(.integer)
            case CBOR.uuidTag:
                let range = try readStringRange(.bytes, at: &offset)
                guard range.count == 16 else { throw .corrupt(offset: range.lowerBound, reason: "a UUID of \(range.count) bytes") }
                return .scalar(.uuid)
            case CBOR.uriTag:
                _ = try readValidTextRange(at: &offset)
                return .scalar(.url)
            default:
                _ = try sampledType(at: &offset, depth: depth + 1)
                return .any
            }
        case .simple:
            switch head.info {
            case 20, 21: return .scalar(.bool)
            case 22, 23: return nil
            case 25, 26, 27: return .scalar(.double)
            default: throw .corrupt(offset: start, reason: "simple value \(head.info)")
            }
        }
    }
}
