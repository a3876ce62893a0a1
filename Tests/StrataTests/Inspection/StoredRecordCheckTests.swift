@_spi(Format) import StrataFormat

import Foundation
import Testing
@testable import Strata
@testable import StrataFormat

/// ``StoredRecord/check(key:bytes:fields:entity:)``, the replica's reading of a record that makes
/// no values, holds to the reader it stands for (``StoredRecord/init(key:bytes:fields:entity:)``):
/// on every record here and on thousands of damaged copies, it throws exactly when the reader
/// throws, and names the fields the reader finds not null.
@Suite struct StoredRecordCheckTests {
    static let table = FieldTable(names: [1: "id", 2: "text", 3: "blob", 4: "list", 5: "object", 6: "when", 7: "uuid",
                                          8: "big", 9: "flag", 10: "nothing", 11: "real", 12: "other", 13: FieldTable.removedName("gone", id: 13)])

    /// Records holding every kind of value the stored format has, and some it tolerates.
    static func records() -> [[UInt8]] {
        var records: [[UInt8]] = []
        for variant in 0..<8 {
            var writer = CBORWriter(capacity: 256)
            writer.writeHead(.map, 13)
            writer.writeInteger(1); writer.writeInteger(Int64(variant) - 3)
            writer.writeInteger(2); writer.writeText(variant.isMultiple(of: 2) ? "plain" : "Fünke ☂︎")
            writer.writeInteger(3); writer.writeByteString([0, 1, 2, UInt8(variant)])
            writer.writeInteger(4); writer.writeHead(.array, 3); writer.writeInteger(1); writer.writeText("x"); writer.writeNull()
            writer.writeInteger(5); writer.writeHead(.map, 2); writer.writeText("a"); writer.writeInteger(1)
            writer.writeInteger(7); writer.writeHead(.array, 1); writer.writeBool(true)
            writer.writeInteger(6); writer.writeDate(Date(timeIntervalSince1970: 1_700_000_000 + Double(variant)))
            writer.writeInteger(7); writer.writeUUID(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8(variant))))
            writer.writeInteger(8); writer.writeInteger(variant.isMultiple(of: 2) ? Int128.max : Int128.min)
            writer.writeInteger(9); writer.writeBool(variant.isMultiple(of: 3))
            writer.writeInteger(10); writer.writeNull()
            writer.writeInteger(11)
            if variant == 5 { writer.writeDouble(.nan) } else { writer.writeDouble(Double(variant) / 3) }
            writer.writeInteger(12); writer.writeTag(variant == 6 ? CBOR.uriTag : 99); writer.writeText("https://example.com")
            writer.writeInteger(13); writer.writeText("removed")
            records.append(writer.bytes)
        }
        return records
    }

    func expectAgreement(_ bytes: [UInt8], _ key: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let read = Result { () throws(StrataError) -> StoredRecord in
            try StoredRecord(key: key, bytes: bytes, fields: Self.table, entity: "T")
        }
        let checked = Result { () throws(StrataError) -> Set<String> in
            Set(try StoredRecord.check(key: key, bytes: bytes, fields: Self.table, entity: "T").compactMap(Self.table.name(for:)))
        }
        switch (read, checked) {
        case (.success(let record), .success(let present)):
            #expect(Set(record.fields.filter { $0.value != .null }.map(\.key)) == present, "\(bytes)", sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a.message == b.message, sourceLocation: sourceLocation)
        default:
            Issue.record("the reader and the check disagree on \(bytes): \(read) against \(checked)", sourceLocation: sourceLocation)
        }
    }

    @Test func theCheckAgreesWithTheReaderOnWholeAndDamagedRecords() throws {
        var key: [UInt8] = []
        Int64(7).appendOrderedKey(to: &key)
        var rng = SplitMix(state: 42)
        var checked = 0
        for record in Self.records() {
            expectAgreement(record, key)
            checked += 1
            for _ in 0..<1_500 {
                var damaged = record
                switch rng.next() % 4 {
                case 0: damaged[Int(rng.next() % UInt64(damaged.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                case 1: damaged.removeLast(Int(rng.next() % UInt64(damaged.count)))
                case 2: damaged.insert(UInt8(truncatingIfNeeded: rng.next()), at: Int(rng.next() % UInt64(damaged.count)))
                default: damaged[Int(rng.next() % UInt64(damaged.count))] = [0x9F, 0xBF, 0xF7, 0xFF, 0xD8, 0x7F][Int(rng.next() % 6)]
                }
                expectAgreement(damaged, key)
                checked += 1
            }
        }
        // Nesting at and past the limit.
        for depth in [CBOR.maximumDepth - 2, CBOR.maximumDepth - 1, CBOR.maximumDepth, CBOR.maximumDepth + 5] {
            var writer = CBORWriter(capacity: 64)
            writer.writeHead(.map, 1)
            writer.writeInteger(4)
            for _ in 0..<depth { writer.writeHead(.array, 1) }
            writer.writeInteger(1)
            expectAgreement(writer.bytes, key)
        }
        #expect(checked == 8 * 1_501)
    }
}

/// A SplitMix64 generator, for repeatable damage.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
