@_spi(Format) import StrataFormat
import Foundation

/// A per-field change to a JSON value before it is mapped: `{ value in ... }`, given the JSON
/// value and returning the one to store (for example cents from a "12.34" string).
public typealias JSONValueTransform = @Sendable (JSONValue) throws -> JSONValue

/// Turns JSON objects into stored records of one entity: maps keys to fields, converts values,
/// and merges the result with the stored record, so that a key absent from the JSON leaves its
/// field as stored while an explicit `null` clears an optional field.
///
/// One mapper serves one import; it reuses its buffers between records.
final class RecordMapper {
    let description: EntityDescription
    let mapping: KeyMapping
    let converter: ValueConverter
    /// The value transform of each top-level field, if any (looked up once, not per record).
    let transforms: [JSONValueTransform?]
    /// The range of each integer field of a record type narrower than 128 bits (nil: any integer).
    let integerRanges: [ClosedRange<WideInteger>?]
    /// Whether each field's range holds every `Int64` (a JSON integer that fits `Int64` then needs no check).
    let rangeCoversInt64: [Bool]
    /// The (first) primary key field.
    let primaryKeyIndex: Int
    /// The primary key's fields in key order: one, or several for a compound key.
    let keyFieldIndexes: [Int]
    let primaryKeyKind: ValueKind
    /// The primary key field is an integer.
    let primaryKeyIsInteger: Bool
    /// A record without the key gets its position in the input (``EntityDescription/primaryKeyIsGenerated``).
    let generatesKey: Bool
    /// The position (0-based) in the input of the record being mapped, for a generated key.
    @exclusivity(unchecked) var recordIndex = 0
    /// JSON keys that filled no field, with how often they occurred.
    @exclusivity(unchecked) var ignoredKeys: [String: Int] = [:]
    /// How many per-field steps (resets, conversions) mapping has taken, so that tests can tell
    /// a record costs its own keys rather than the entity's field count.
    var fieldVisits = 0
    let options: ImportOptions

    // Nested JSON (RecordMapper+Nested.swift).
    /// The entities nested objects may fill.
    let graph: ImportGraph
    /// The relationships this entity's JSON may nest.
    let nestedRelationships: [NestedRelationship]
    /// Relationship members by normalized JSON key, as member codes (``memberCode(for:)``).
    let relationshipMembers: [String: Int]
    /// Per relationship: the JSON key and value of the record being read, and whether the member
    /// lists keys.
    @exclusivity(unchecked) var chosenRelated: [(key: String, value: JSONValue, isKeyList: Bool)?]
    /// The mappers of related entities, by relationship, made on first use.
    @exclusivity(unchecked) var childMappers: [RecordMapper?]

    /// One top-level field of a mapped record.
    enum Slot: Sendable {
        case absent
        case null
        case value(Range<Int>)
    }

    // Exclusivity: these buffers are touched only while mapping one record (`map` or
    // `item(reading:…)`), which calls no code that could reach them again (value transforms
    // cannot see the mapper), so accesses never overlap; the runtime checks would otherwise run
    // on every element access.
    /// The JSON key and value of each top-level field, the last of duplicate keys winning.
    @exclusivity(unchecked) var chosen: [(key: String, value: JSONValue)?]
    /// The JSON keys of the previous record by position, with the field each filled (-1: none).
    @exclusivity(unchecked) private var keyOrder: [(key: String, field: Int)] = []
    /// Records map into sparse slots (``Slots``), with the fields each touches tracked.
    let isSparse: Bool
    /// The fields the record being read gave a key for (in ``chosen`` or ``pending``), each once,
    /// when sparse.
    @exclusivity(unchecked) var touched: [Int] = []

    // The direct path's state (RecordMapper+Direct.swift).
    /// How each top-level field's value is read.
    let directKinds: [DirectKind]
    /// Per top-level field of the record being read: where its value stands.
    @exclusivity(unchecked) var pending: [Pending]
    /// The conversion failure of each field whose value is `.failed`.
    @exclusivity(unchecked) var failures: [(any Error)?]
    /// The previous record's JSON keys by position as bytes, and the field each filled (-1: none).
    @exclusivity(unchecked) var directKeys: [(bytes: [UInt8], key: String)] = []
    @exclusivity(unchecked) var directKeyFields: [Int] = []

    /// A mapped record: its encoded primary key and its fields, ready to merge with the stored one.
    struct Mapped: Sendable {
        var primaryKey: [UInt8]
        /// The primary key's JSON value (for a compound key, an array of its fields' values).
        var keyValue: JSONValue
        /// The primary key as the JSON gave it, for messages and the report (made when asked).
        var keyText: String { Self.keyText(of: keyValue) }

        /// A primary key's JSON value as text for messages: strings without quotes, a compound
        /// key's values in parentheses (`(DE, 2021)`).
        static func keyText(of keyValue: JSONValue) -> String {
            if case .string(let string) = keyValue { return string }
            if case .array(let parts) = keyValue { return "(" + parts.map(keyText).joined(separator: ", ") + ")" }
            return keyValue.jsonText
        }
        /// Per top-level field: absent, null, or the range of its CBOR value in `values`.
        var slots: Slots
        var values: [UInt8]
        /// The relationship members (nested objects, key lists, null), in relationship order.
        var related: [RelatedValue] = []
    }


    /// - Parameter graph: the entities nested JSON may fill (none: relationship members are
    ///   ignored keys).
    /// - Parameter sparseAbove: the field count above which records map into sparse slots (tests
    ///   set it to hold both forms to each other).
    init(description: EntityDescription, options: ImportOptions, graph: ImportGraph = ImportGraph(),
         sparseAbove: Int = RecordMapper.sparseAbove) {
        self.description = description
        isSparse = description.fields.count > sparseAbove
        self.options = options
        self.graph = graph
        let nested = graph.nested(of: description.name)
        nestedRelationships = nested
        relationshipMembers = Self.memberTable(nested)
        chosenRelated = Array(repeating: nil, count: nested.count)
        childMappers = Array(repeating: nil, count: nested.count)
        self.mapping = KeyMapping(fields: description.fields, primaryKey: description.primaryKey, overrides: options.jsonKeys,
                                  aliases: Self.referenceAliases(nested))
        self.converter = ValueConverter(dateFormats: options.dateFormats)
        self.transforms = description.fields.map { options.transforms[$0.name] }
        self.integerRanges = description.fields.map { description.integerRanges.byField[$0.name] }
        rangeCoversInt64 = integerRanges.map { range in
            range.map { $0.contains(IntegerRanges.int64.lowerBound) && $0.contains(IntegerRanges.int64.upperBound) } ?? true
        }
        self.keyFieldIndexes = description.primaryKeyFields.map { name in description.fields.firstIndex { $0.name == name } ?? 0 }
        self.primaryKeyIndex = keyFieldIndexes[0]
        self.primaryKeyKind = ValueKind(description.fields[primaryKeyIndex].type)
        self.primaryKeyIsInteger = description.fields[primaryKeyIndex].type == .scalar(.integer)
        self.generatesKey = description.primaryKeyIsGenerated
        chosen = Array(repeating: nil, count: description.fields.count)
        pending = Array(repeating: .absent, count: description.fields.count)
        failures = Array(repeating: nil, count: description.fields.count)
        let converter = self.converter, transforms = self.transforms, keyFieldIndexes = self.keyFieldIndexes
        directKinds = description.fields.enumerated().map { index, field in
            // Integer fields narrower than Int64 take the general path, where their range is checked
            // (the direct path writes JSON integers that fit Int64, and sends the rest there too).
            let range = description.integerRanges.byField[field.name]
            guard transforms[index] == nil, !keyFieldIndexes.contains(index),
                  range.map({ $0.contains(IntegerRanges.int64.lowerBound) && $0.contains(IntegerRanges.int64.upperBound) }) ?? true else { return .general }
            return DirectKind(field, dateFormats: converter.dateFormats)
        }
    }

    /// The pipeline item of one record: mapped, or failed with the reason.
    func item(_ record: JSONValue, index: Int, position: InputPosition, endOffset: Int, maximumKeySize: Int) -> PipelineItem {
        recordIndex = index
        let content: PipelineItem.Content
        do {
            content = .mapped(try map(record, maximumKeySize: maximumKeySize))
        } catch let failure as ConversionFailure {
            content = .failed(failure.message)
        } catch {
            content = .failed("cannot be mapped: \(error)")
        }
        return PipelineItem(content: content, index: index, position: position, endOffset: endOffset)
    }

    /// Maps the members of one JSON record. Throws ``ConversionFailure`` naming the JSON key.
    func map(_ record: JSONValue, maximumKeySize: Int) throws -> Mapped {
        guard case .object(let members) = record else {
            throw ConversionFailure(message: "is \(record.kind), not an object")
        }
        if members.count > options.limits.maximumRecordFields {
            throw ConversionFailure(message: options.limits.tooManyFields(members.count))
        }
        if isSparse {
            resetTouched()
        } else {
            for index in chosen.indices { chosen[index] = nil }
            fieldVisits &+= chosen.count
        }
        if !chosenRelated.isEmpty { resetRelated() }
        for (position, member) in members.enumerated() {
            // Records of one payload list their keys in one order: the previous record's mapping
            // at this position usually answers without hashing the key.
            let index: Int
            if position < keyOrder.count, keyOrder[position].key == member.key {
                index = keyOrder[position].field
            } else {
                index = memberCode(for: member.key)
                if position < keyOrder.count {
                    keyOrder[position] = (member.key, index)
                } else if position == keyOrder.count, position < 256 {
                    keyOrder.append((member.key, index))
                }
            }
            if index >= 0 {
                if isSparse, chosen[index] == nil { touched.append(index) }
                chosen[index] = (member.key, member.value)   // the last of duplicate keys wins
            } else if index < -1 {
                choose(relationshipMember: index, key: member.key, value: member.value)
            } else {
                ignoredKeys[member.key, default: 0] += 1
            }
        }
        var values = CBORWriter(capacity: 256)
        guard isSparse else {
            var slots = [Slot](repeating: .absent, count: description.fields.count)
            fieldVisits &+= chosen.count
            for index in description.fields.indices {
                guard let (key, given) = chosen[index] else { continue }
                slots[index] = try convert(given, key: key, field: index, into: &values)
            }
            return try finish(slots: Slots(dense: slots), values: values, maximumKeySize: maximumKeySize)
        }
        sortTouched()
        var given: [(field: Int, slot: Slot)] = []
        given.reserveCapacity(touched.count)
        fieldVisits &+= touched.count
        for index in touched {
            guard let (key, value) = chosen[index] else { continue }
            let slot = try convert(value, key: key, field: index, into: &values)
            if case .absent = slot { continue }
            given.append((index, slot))
        }
        return try finish(slots: Slots(sparse: given, fieldCount: description.fields.count), values: values, maximumKeySize: maximumKeySize)
    }

    /// The slot of the top-level field at `index` given `value` under the JSON key `key`: the
    /// field's transform applied, null checked, the value converted into `values`.
    func convert(_ value: JSONValue, key: String, field index: Int, into values: inout CBORWriter) throws -> Slot {
        let field = description.fields[index]
        var value = value
        if let transform = transforms[index] {
            do { value = try transform(value) } catch {
                throw ConversionFailure(message: "'\(key)': the transform of '\(field.name)' failed: \(error)")
            }
        }
        if case .null = value {
            guard field.isOptional else { throw ConversionFailure(message: "'\(key)' is null, but '\(field.name)' is not optional") }
            return .null
        }
        if let range = integerRanges[index], !(rangeCoversInt64[index] && value.isInt64),
           let number = ValueConverter.integer(value), !range.contains(number) {
            throw ConversionFailure(message: "'\(key)' is \(number), out of range for '\(field.name)' (\(range.lowerBound) through \(range.upperBound))")
        }
        let start = values.count
        do {
            try converter.write(value, as: field.type, dateFormat: field.dateFormat, path: field.name, into: &values,
                                owner: (mapping, index))
        } catch let failure as ConversionFailure {
            throw ConversionFailure(message: "'\(key)' " + failure.message)
        }
        return .value(start..<values.count)
    }

    /// The mapped record of converted fields, with the primary key from `chosen`.
    func finish(slots: Slots, values: CBORWriter, maximumKeySize: Int) throws -> Mapped {
        if keyFieldIndexes.count > 1 { return try finishCompound(slots: slots, values: values, maximumKeySize: maximumKeySize) }
        var slots = slots, values = values
        var given = chosen[primaryKeyIndex]
        if generatesKey, given == nil {
            // The record's position in the input, 1-based, stored in the key field as well.
            let generated = Int64(recordIndex) + 1
            let start = values.count
            values.writeInteger(generated)
            slots[primaryKeyIndex] = .value(start..<values.count)
            given = (description.primaryKey, .int(generated))
        }
        guard let (key, value) = given, value != .null else {
            throw ConversionFailure(message: "has no primary key (field '\(description.primaryKey)', JSON key 'id' or '\(description.primaryKey)')")
        }
        let bytes: [UInt8]
        if case .int(let integer) = value, primaryKeyIsInteger, let encoded = PrimaryKeyEncoder.encode(.int(integer), kind: .integer) {
            // An integer in an integer key field needs no conversion.
            bytes = encoded
        } else {
            guard let keyValue = primaryKeyValue(value), let encoded = PrimaryKeyEncoder.encode(keyValue, kind: primaryKeyKind) else {
                throw ConversionFailure(message: "'\(key)' is \(value), which is not a valid primary key")
            }
            bytes = encoded
        }
        guard bytes.count <= maximumKeySize else {
            throw ConversionFailure(message: "'\(key)': the primary key encodes to \(bytes.count) bytes; LMDB keys are limited to \(maximumKeySize)")
        }
        // Made in one piece: a record set up and then changed was copied whole.
        let related = chosenRelated.isEmpty ? [] : try relatedValues(maximumKeySize: maximumKeySize)
        return Mapped(primaryKey: bytes, keyValue: value, slots: slots, values: values.bytes, related: related)
    }

    /// ``finish(slots:values:maximumKeySize:)`` for a compound primary key: the stored key is the
    /// order-preserving keys of its fields' values one after the other (as a compound index keys
    /// an entry), the key's JSON value the array of those values. Every field of the key must be
    /// given and not null.
    private func finishCompound(slots: Slots, values: CBORWriter, maximumKeySize: Int) throws -> Mapped {
        var bytes: [UInt8] = []
        var parts: [JSONValue] = []
        for index in keyFieldIndexes {
            let field = description.fields[index]
            guard let (key, value) = chosen[index], value != .null else {
                throw ConversionFailure(message: "has no '\(field.name)' (JSON key '\(field.jsonKey ?? field.name)'), "
                    + "a field of the primary key (\(description.primaryKeyFields.joined(separator: ", ")))")
            }
            guard let keyValue = primaryKeyValue(value, field: index),
                  PrimaryKeyEncoder.append(keyValue, kind: ValueKind(field.type), to: &bytes) else {
                throw ConversionFailure(message: "'\(key)' is \(value), which is not a valid value of the primary key field '\(field.name)'")
            }
            parts.append(value)
        }
        let keyValue = JSONValue.array(parts)
        guard bytes.count <= maximumKeySize else {
            throw ConversionFailure(message: "\(Mapped.keyText(of: keyValue)): the primary key encodes to \(bytes.count) bytes; LMDB keys are limited to \(maximumKeySize)")
        }
        let related = chosenRelated.isEmpty ? [] : try relatedValues(maximumKeySize: maximumKeySize)
        return Mapped(primaryKey: bytes, keyValue: keyValue, slots: slots, values: values.bytes, related: related)
    }

    /// The value of the primary key field at `index` (the first by default) as a query value,
    /// converted as its field's type asks.
    func primaryKeyValue(_ value: JSONValue, field index: Int? = nil) -> QueryValue? {
        let index = index ?? primaryKeyIndex
        let field = description.fields[index]
        switch field.type {
        case .scalar(.integer): return ValueConverter.integer(value)?.queryValue
        case .scalar(.double): return ValueConverter.double(value).map(QueryValue.double)
        case .scalar(.bool): return ValueConverter.bool(value).map(QueryValue.bool)
        case .scalar(.string):
            switch value {
            case .string(let text): return .string(text)
            case .int(let number): return .string(String(number))
            default: return nil
            }
        case .scalar(.uuid):
            guard case .string(let text) = value else { return nil }
            return UUID(uuidString: text).map(QueryValue.uuid)
        case .scalar(.date):
            let format = converter.dateFormats[field.name] ?? field.dateFormat ?? .automatic
            return DateParsing.seconds(value, format: format).map { .date(Date(timeIntervalSince1970: $0)) }
        default:
            return nil
        }
    }
}
