@_spi(Format) import StrataFormat

import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataImport

/// Mapping and merging a record cost what its own keys (and the stored record's fields) cost,
/// not what the entity's field count costs; and the sparse slots give the bytes the dense
/// per-field merge gave.
@Suite struct SparseMappingTests {
    /// `id` and `count` optional integer fields `k0`, `k1`, ….
    static func wide(_ count: Int) -> EntityDescription {
        EntityDescription(name: "Wide", primaryKey: "id",
                          fields: [FieldDescription("id", .integer)] + (0..<count).map { FieldDescription("k\($0)", .integer, optional: true) })
    }

    /// 2,000 records each adding a key of its own: the old mapper reset and scanned every field
    /// per record (millions of steps); now each record costs a few steps per key, on both paths.
    @Test func recordsThatEachAddAKeyCostTheirOwnKeysNotTheEntitysFields() throws {
        let records = 2_000
        let description = Self.wide(records)
        let text = "[" + (0..<records).map { "{\"id\": \($0), \"k\($0)\": \($0)}" }.joined(separator: ",") + "]"
        let names = Dictionary(uniqueKeysWithValues: description.fields.enumerated().map { ($0 + 1, $1.name) })
        let layout = RecordLayout(description, ids: FieldTable(names: names))
        for direct in [false, true] {
            var parser = JSONParser(source: InMemoryByteSource(Array(text.utf8)))
            let mapper = RecordMapper(description: description, options: ImportOptions())
            var index = 0
            while let (record, position) = try parser.nextPendingRecordWithStart(rootKey: nil) {
                let item: PipelineItem
                switch record {
                case .parsed(let value) where !direct:
                    item = mapper.item(value, index: index, position: position, endOffset: parser.offset, maximumKeySize: 511)
                case .atValue where !direct:
                    let value = try parser.parseValue(depth: 1)
                    item = mapper.item(value, index: index, position: position, endOffset: parser.offset, maximumKeySize: 511)
                case .parsed(let value):
                    item = mapper.item(value, index: index, position: position, endOffset: parser.offset, maximumKeySize: 511)
                case .atValue:
                    item = try mapper.item(reading: &parser, index: index, position: position, maximumKeySize: 511)
                }
                guard case .mapped(let mapped) = item.content else {
                    Issue.record("record \(index) did not map: \(item.content)")
                    break
                }
                // {id: index, k<index>: index}, field ids 1 and index + 2.
                var expected = CBORWriter(capacity: 16)
                expected.writeHead(.map, 2)
                expected.writeHead(.unsigned, 1)
                expected.writeInteger(index)
                expected.writeHead(.unsigned, UInt64(index + 2))
                expected.writeInteger(index)
                #expect(try layout.encode(mapped, merging: nil, entity: "Wide") == expected.bytes)
                index += 1
            }
            #expect(index == records)
            #expect(mapper.fieldVisits <= 10 * records, "direct: \(direct): \(mapper.fieldVisits) field steps for \(records) records of 2 keys")
        }
    }

    /// Nested imports set slots after mapping (reference fields, `null` for a to-one member):
    /// both forms read back the same slots after the same changes, in any order.
    @Test func settingSlotsReadsBackAlikeInBothForms() {
        var random = Seeded(state: 7)
        let count = 20
        var dense = RecordMapper.Slots(dense: Array(repeating: .absent, count: count))
        var sparse = RecordMapper.Slots(sparse: [], fieldCount: count)
        for step in 0..<500 {
            let field = Int.random(in: 0..<count, using: &random)
            let slot: RecordMapper.Slot = switch Int.random(in: 0..<3, using: &random) {
            case 0: .absent
            case 1: .null
            default: .value(step..<(step + 1))
            }
            dense[field] = slot
            sparse[field] = slot
            #expect(Array(dense).map(String.init(describing:)) == Array(sparse).map(String.init(describing:)))
            #expect(dense.givenCount == sparse.givenCount && sparse.isSparse && !dense.isSparse)
            #expect(zip(sparse.sparse, sparse.sparse.dropFirst()).allSatisfy { $0.field < $1.field })
        }
    }

    // MARK: the dense merge, as it was

    /// The merge as it was before slots were sparse: every field visited in description order.
    static func denseEncode(_ layout: RecordLayout, _ slots: [RecordMapper.Slot], _ values: [UInt8], merging stored: [UInt8]?) throws -> [UInt8] {
        let storedFields = try stored.map { try RecordLayout.topLevelFields(of: $0, entity: "E", key: "k") } ?? []
        var storedByID: [Int: Range<Int>] = [:]
        if storedFields.count > 8 { for entry in storedFields { storedByID[entry.id] = entry.value } }
        var writer = CBORWriter(capacity: 64)
        writer.bytes.append(CBOR.emptyMapByte)
        var count = 0
        for index in slots.indices {
            let id = layout.fieldIDs[index]
            switch slots[index] {
            case .value(let range):
                writer.writeHead(.unsigned, UInt64(id))
                writer.bytes.append(contentsOf: values[range])
                count += 1
            case .null:
                continue
            case .absent:
                if let stored, let range = storedFields.count > 8 ? storedByID[id] : storedFields.first(where: { $0.id == id })?.value {
                    writer.writeHead(.unsigned, UInt64(id))
                    writer.bytes.append(contentsOf: stored[range])
                    count += 1
                } else if stored == nil, !layout.fields[index].isOptional {
                    throw ConversionFailure(message: "has no value for the required field '\(layout.fields[index].name)'")
                }
            }
        }
        if let stored {
            for entry in storedFields where !layout.fieldIDs.contains(entry.id) {
                writer.writeHead(.unsigned, UInt64(entry.id))
                writer.bytes.append(contentsOf: stored[entry.value])
                count += 1
            }
        }
        writer.patchHead(at: 0, .map, count: count)
        return writer.bytes
    }

    /// A small seeded generator (SplitMix64), so that a failure repeats.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The CBOR of a generated JSON value as an integer or string field stores it.
    static func cbor(_ value: JSONValue) -> [UInt8] {
        var writer = CBORWriter(capacity: 16)
        switch value {
        case .int(let number): writer.writeInteger(number)
        case .string(let text):
            writer.writeHead(.text, UInt64(text.utf8.count))
            writer.bytes += Array(text.utf8)
        default: Issue.record("unexpected \(value)")
        }
        return writer.bytes
    }

    /// Random payloads (random subsets of many fields in random key order, nulls, duplicate keys,
    /// records lacking a required field) merged with random stored records (fields in any order,
    /// fields the description lacks, fields stored twice): the mapped slots hold what the JSON
    /// gave, and the bytes and failures are the dense merge's, on both mapping paths, with slots
    /// held sparsely and densely for few and for many fields.
    @Test(arguments: zip([12, 12, 120, 120], [RecordMapper.sparseAbove, 0, RecordMapper.sparseAbove, 1_000]))
    func sparseSlotsMergeAsTheDenseMergeDid(fieldCount: Int, sparseAbove: Int) throws {
        var random = Seeded(state: UInt64(fieldCount))
        var fields = [FieldDescription("id", .integer), FieldDescription("req", .string)]
        for index in 0..<fieldCount { fields.append(FieldDescription("f\(index)", index % 2 == 0 ? .integer : .string, optional: true)) }
        let description = EntityDescription(name: "E", primaryKey: "id", fields: fields)
        // Ids in another order than the fields, with gaps.
        let ids = (0..<fields.count).map { $0 * 3 + 1 }.shuffled(using: &random)
        let layout = RecordLayout(description, ids: FieldTable(names: Dictionary(uniqueKeysWithValues: zip(ids, fields.map(\.name)))))
        func value(_ index: Int) -> JSONValue {
            fields[index].type == .integer ? .int(Int64.random(in: -1_000...100_000, using: &random)) : .string("s\(Int.random(in: 0...999, using: &random))")
        }
        var payloads: [[(key: String, value: JSONValue)]] = []
        for record in 0..<400 {
            var members: [(key: String, value: JSONValue)] = [("id", .int(Int64(record)))]
            let share = [0.02, 0.3, 1.0].randomElement(using: &random)!
            for index in 1..<fields.count where Double.random(in: 0..<1, using: &random) < share {
                let given: JSONValue = index > 1 && Bool.random(using: &random) && Int.random(in: 0..<4, using: &random) == 0 ? .null : value(index)
                members.append((fields[index].name, given))
                if Int.random(in: 0..<10, using: &random) == 0 { members.append((fields[index].name, value(index))) }
            }
            if Bool.random(using: &random) { members.shuffle(using: &random) }
            payloads.append(members)
        }
        let text = "[" + payloads.map { members in
            "{" + members.map { "\(JSONValue.quoted($0.key)): \($0.value.jsonText)" }.joined(separator: ", ") + "}"
        }.joined(separator: ",\n") + "]"
        for direct in [false, true] {
            var parser = JSONParser(source: InMemoryByteSource(Array(text.utf8)))
            let mapper = RecordMapper(description: description, options: ImportOptions(), sparseAbove: sparseAbove)
            #expect(mapper.isSparse == (fields.count > sparseAbove))
            var index = 0
            while let (record, position) = try parser.nextPendingRecordWithStart(rootKey: nil) {
                // The direct mapper also maps some records the general way, so its buffers see both.
                let item: PipelineItem
                if case .atValue = record, direct, Int.random(in: 0..<5, using: &random) > 0 {
                    item = try mapper.item(reading: &parser, index: index, position: position, maximumKeySize: 511)
                } else {
                    let value: JSONValue
                    if case .parsed(let parsed) = record { value = parsed } else { value = try parser.parseValue(depth: 1) }
                    item = mapper.item(value, index: index, position: position, endOffset: parser.offset, maximumKeySize: 511)
                }
                guard case .mapped(let mapped) = item.content else {
                    Issue.record("record \(index) did not map: \(item.content)")
                    break
                }
                // What the JSON gave: the last of duplicate keys.
                var expected = [[UInt8]??](repeating: nil, count: fields.count)
                for member in payloads[index] {
                    let field = fields.firstIndex { $0.name == member.key }!
                    expected[field] = member.value == .null ? .some(nil) : .some(Self.cbor(member.value))
                }
                let dense = Array(mapped.slots)
                let got: [[UInt8]??] = dense.map { slot in
                    switch slot {
                    case .absent: nil
                    case .null: .some(nil)
                    case .value(let range): .some(Array(mapped.values[range]))
                    }
                }
                #expect(got == expected, "record \(index)")
                #expect(mapped.slots.givenCount == expected.count { $0 != nil })
                #expect(mapped.slots.isSparse == mapper.isSparse)
                // Stored records: none, or random fields (known and unknown ids) in random order.
                var storedRecords: [[UInt8]?] = [nil]
                for _ in 0..<3 {
                    var entries: [(id: Int, value: [UInt8])] = []
                    for field in fields.indices where Int.random(in: 0..<3, using: &random) == 0 {
                        entries.append((layout.fieldIDs[field], Self.cbor(value(field))))
                    }
                    for _ in 0..<Int.random(in: 0...2, using: &random) {
                        entries.append((Int.random(in: 0...1_000, using: &random) * 3 + 2, Self.cbor(.int(7))))   // ids no field has
                    }
                    if !entries.isEmpty, Int.random(in: 0..<4, using: &random) == 0 { entries.append((entries[0].id, Self.cbor(.int(-1)))) }
                    entries.shuffle(using: &random)
                    var writer = CBORWriter(capacity: 64)
                    writer.writeHead(.map, UInt64(entries.count))
                    for entry in entries {
                        writer.writeHead(.unsigned, UInt64(entry.id))
                        writer.bytes += entry.value
                    }
                    storedRecords.append(writer.bytes)
                }
                if let fresh = try? Self.denseEncode(layout, dense, mapped.values, merging: nil) { storedRecords.append(fresh) }
                for stored in storedRecords {
                    let new = Result { try layout.encode(mapped, merging: stored, entity: "E") }
                    let old = Result { try Self.denseEncode(layout, dense, mapped.values, merging: stored) }
                    switch (new, old) {
                    case (.success(let new), .success(let old)): #expect(new == old, "record \(index)")
                    case (.failure(let new as ConversionFailure), .failure(let old as ConversionFailure)): #expect(new.message == old.message)
                    default: Issue.record("record \(index): \(new) but the dense merge gave \(old)")
                    }
                    if let stored {
                        let fresh = try? Self.denseEncode(layout, dense, mapped.values, merging: nil)
                        let complete = !dense.contains { if case .absent = $0 { true } else { false } }
                        #expect(stored.withUnsafeBufferPointer { layout.isUnchanged(mapped, stored: $0) } == (complete && stored == fresh))
                    }
                }
                index += 1
            }
            #expect(index == payloads.count)
        }
    }
}
