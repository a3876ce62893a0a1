@_spi(Format) import StrataFormat

import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat

/// A record with 128-bit integer fields, indexed.
struct Ledger: Record, Equatable {
    var id: Int64
    var balance: Int128
    var supply: UInt128
    var limit: Int128?
    var history: [UInt128] = []
    static let primaryKey = \Ledger.id
    static let indexes: [IndexDefinition<Ledger>] = [.index(\.balance), .index(\.supply)]
}

/// `Int128` and `UInt128` end to end: the codec, index keys, queries of every front end, import,
/// export and the on-disk form (CBOR bignums, read by Python in ExternalFormatTests).
@Suite struct WideIntegerTests {
    /// Values across every width boundary, in order.
    static let balances: [Int128] = [
        .min, Int128(Int64.min) - 1, Int128(Int64.min), -1, 0, 1, Int128(Int64.max), Int128(Int64.max) + 1,
        Int128(UInt64.max), Int128(UInt64.max) + 1, .max,
    ]

    static func ledgers() -> [Ledger] {
        balances.enumerated().map { index, balance in
            Ledger(id: Int64(index), balance: balance, supply: index == balances.count - 1 ? .max : UInt128(balance.magnitude) + UInt128(index),
                   limit: index.isMultiple(of: 2) ? balance : nil, history: [UInt128.max, 0, UInt128(index)])
        }
    }

    @Test func recordsRoundTripAtEveryWidthBoundary() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let ledgers = Self.ledgers()
        try store.write { tx in try tx.insert(ledgers) }
        #expect(try store.read { tx in try tx.all(Ledger.self) } == ledgers)
        #expect(try store.read { tx in try tx.get(Ledger.self, key: 10) }?.supply == UInt128.max)
    }

    @Test func valuesUseTheShortestCBORFormAndBignumsBeyond64Bits() throws {
        func bytes(_ value: WideInteger) -> [UInt8] {
            var writer = CBORWriter(capacity: 32)
            writer.writeInteger(value)
            return writer.bytes
        }
        // Within 64 bits: exactly what an Int64 or UInt64 field stores.
        #expect(bytes(WideInteger(5)) == [0x05])
        #expect(bytes(WideInteger(Int64.min)) == [0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(bytes(WideInteger(UInt64.max)) == [0x1B] + [UInt8](repeating: 0xFF, count: 8))
        // 2^64: tag 2 over 01 00…00; -2^64 - 1: tag 3 over the same bytes.
        #expect(bytes(WideInteger(UInt128(1) << 64)) == [0xC2, 0x49, 0x01] + [UInt8](repeating: 0, count: 8))
        #expect(bytes(WideInteger(-(Int128(1) << 64) - 1)) == [0xC3, 0x49, 0x01] + [UInt8](repeating: 0, count: 8))
        #expect(bytes(.max) == [0xC2, 0x50] + [UInt8](repeating: 0xFF, count: 16))
        for value in Self.balances.map(WideInteger.init) + [.max, WideInteger(UInt128.max - 1)] {
            var offset = 0
            #expect(try CBORReader(bytes: bytes(value)).readWideInteger(at: &offset) == value)
        }
    }

    @Test func damagedBignumsAreErrorsNotCrashes() {
        let damaged: [[UInt8]] = [
            [0xC2, 0x51] + [UInt8](repeating: 0x01, count: 17),   // 17 significant bytes: beyond 128 bits
            [0xC2, 0x50, 0x01],                                     // truncated
            [0xC3, 0x50] + [UInt8](repeating: 0xFF, count: 16),    // -2^128: below Int128.min
            [0xC2, 0x61, 0x41],                                     // tag 2 over text
        ]
        for bytes in damaged {
            var offset = 0
            #expect(throws: CBORReadFailure.self) { try CBORReader(bytes: bytes).readWideInteger(at: &offset) }
        }
    }

    @Test func indexKeysOrderEveryWidthAndReadBack() throws {
        let keys = Self.balances.map(\.orderedKey)
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(UInt128.max.orderedKey.lexicographicallyPrecedes(Int128.max.orderedKey) == false)
        // Equal values have equal keys whatever their width.
        #expect(Int128(-7).orderedKey == Int8(-7).orderedKey)
        #expect(UInt128(UInt64.max).orderedKey == UInt64.max.orderedKey)
        for value in Self.balances {
            var position = 0
            #expect(try Int128.readOrderedKey(from: value.orderedKey, at: &position) == value)
            position = 0
            #expect(try OrderedKey.queryValue(from: value.orderedKey, at: &position) == value.queryValue)
        }
        var position = 0
        #expect(throws: StrataError.self) { try Int64.readOrderedKey(from: Int128.max.orderedKey, at: &position) }
    }

    @Test func queriesAgreeWithAFilterOverEveryPlan() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let ledgers = Self.ledgers()
        try store.write { tx in try tx.insert(ledgers) }
        for pivot in Self.balances {
            let expected = ledgers.filter { $0.balance > pivot }.map(\.id)
            try store.read { tx in
                #expect(try tx.query(Ledger.self).where(\.balance > pivot).all().map(\.id) == expected, "key path > \(pivot)")
                #expect(try tx.query(Ledger.self).where("balance > \(pivot)").all().map(\.id) == expected, "format > \(pivot)")
                #expect(try tx.query(Ledger.self).where("balance > %@", pivot).all().map(\.id) == expected, "argument > \(pivot)")
                let equal = try tx.query(Ledger.self).where(\.balance == pivot)
                #expect(try equal.explain().description.contains("IndexScan"))
                #expect(try equal.all().map(\.balance) == [pivot])
                // The full scan's filter reads the stored bignums.
                #expect(try tx.query(Ledger.self).where(\.limit == pivot).all().map(\.id)
                        == ledgers.filter { $0.limit == pivot }.map(\.id), "limit == \(pivot)")
            }
        }
        try store.read { tx in
            let sorted = try tx.query(Ledger.self).sorted(by: \.supply, .descending).all().map(\.supply)
            #expect(sorted == ledgers.map(\.supply).sorted(by: >))
            #expect(try tx.query(Ledger.self).where("balance < 0.5").count() == 5)
            #expect(try tx.query(Ledger.self).where("ANY history == %@", UInt128.max).count() == ledgers.count)
        }
    }

    @Test func importTakesLiteralsOf128BitsAndChecksEachTypesRange() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let json = #"""
        [{"id": 1, "balance": -170141183460469231731687303715884105728, "supply": 340282366920938463463374607431768211455,
          "limit": "18446744073709551616", "history": [18446744073709551616, 3]}]
        """#
        let report = try store.importJSON(Data(json.utf8), as: Ledger.self)
        #expect(report.inserted == 1)
        let ledger = try #require(try store.read { tx in try tx.get(Ledger.self, key: 1) })
        #expect(ledger.balance == .min && ledger.supply == .max && ledger.limit == Int128(UInt64.max) + 1)
        #expect(ledger.history == [UInt128(UInt64.max) + 1, 3])

        // One past each type's range is refused, naming the field.
        for (field, value) in [("balance", "-170141183460469231731687303715884105729"), ("supply", "-1"),
                               ("limit", "170141183460469231731687303715884105728"),
                               ("supply", "340282366920938463463374607431768211456")] {
            let bad = #"[{"id": 2, "balance": 0, "supply": 0, "\#(field)": \#(value)}]"#
            let error = #expect(throws: StrataError.self) { try store.importJSON(Data(bad.utf8), as: Ledger.self) }
            #expect(error?.message.contains(field) == true, "\(field) = \(value): \(error?.message ?? "")")
        }
        // An Int64 field still refuses what Int64 cannot hold.
        let narrow = #"[{"id": 18446744073709551616, "balance": 0, "supply": 0}]"#
        #expect(throws: StrataError.self) { try store.importJSON(Data(narrow.utf8), as: Ledger.self) }
    }

    @Test func describedEntitiesStoreWideIntegersAndExportTheirDigits() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let description = EntityDescription(name: "Account", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("big", .integer),
        ], indexes: [IndexDescription(fields: ["big"])])
        let json = #"[{"id": 1, "big": 340282366920938463463374607431768211455}, {"id": 2, "big": -170141183460469231731687303715884105728}, {"id": 3, "big": 7}]"#
        #expect(try store.importJSON(Data(json.utf8), entity: description).inserted == 3)
        try store.read { tx in
            let big = try tx.query(entity: "Account").where("big > 18446744073709551615").all()
            #expect(big.map { $0["id"] } == [.int(1)])
            #expect(big.first?["big"] == .wideInt(.max))
            // The index, forced (three records make a full scan the cheaper plan), finds the bignums.
            for (condition, ids) in [("big > 18446744073709551615", [1]), ("big < 0", [2]), ("big >= 7", [1, 3])] {
                let byIndex = try tx.query(entity: "Account").where(condition).using(index: "big")
                #expect(try byIndex.explain().indexesUsed == ["big"], "\(condition)")
                #expect(try byIndex.all().map { $0["id"] } == ids.map { .int(Int64($0)) }, "\(condition)")
            }
            let exported = try #require(try tx.exportJSON(entity: "Account", key: .int(2)))
            #expect(exported.jsonText.contains("-170141183460469231731687303715884105728"))
        }
        // A re-import of the same values changes nothing.
        #expect(try store.importJSON(Data(json.utf8), entity: description).unchanged == 3)
        #expect(try store.read { tx in try tx.verifyIndexes(entity: "Account") }.problems.isEmpty)
    }
}
