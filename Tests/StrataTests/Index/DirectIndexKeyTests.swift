@_spi(Format) import StrataFormat

import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// The index keys read straight from stored bytes (StoredIndexMaintainer+Direct.swift) are the
/// general path's byte for byte, on random values of every kind the direct path takes and some
/// it leaves to the general path.
@Suite struct DirectIndexKeyTests {
    struct Row: Record {
        var id: Int64
        var number: Int64?
        var big: UInt64
        var text: String?
        var folded: String
        var score: Double
        var when: Date?
        static let primaryKey = \Row.id
        static let indexes: [IndexDefinition<Row>] = [
            .index(\.number), .index(\.big), .index(\.text), .index(\.folded, collation: .caseInsensitive),
            .index(\.score), .index(\.text, \.number), .index(\.when), .index(\.number, \.when),
        ]
    }

    static func randomText(_ random: inout SeededGenerator) -> String {
        let alphabet: [Character] = ["a", "Z", "0", "\u{0}", " ", "é", "ß", "😀", "\u{7F}", "k"]
        return String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    @Test func directKeysEqualTheGeneralPathsOnRandomRecords() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 2026)
        let rows = (0..<2_000).map { id in
            Row(id: Int64(id),
                number: Bool.random(using: &random) ? nil : [Int64.min, -1, 0, 1, Int64.max, Int64.random(in: .min ... .max, using: &random)].randomElement(using: &random)!,
                big: [0, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, UInt64.random(in: 0 ... .max, using: &random)].randomElement(using: &random)!,
                text: Bool.random(using: &random) ? nil : Self.randomText(&random),
                folded: Self.randomText(&random),
                score: [0, -0.0, .infinity, -.infinity, 1e300, Double.random(in: -1e9...1e9, using: &random)].randomElement(using: &random)!,
                when: Bool.random(using: &random) ? nil : Date(timeIntervalSince1970: Double.random(in: -4e9...4e9, using: &random)))
        }
        try store.write { tx throws in
            try tx.insert(rows)
            let context = try #require(try tx.context(named: "Row"))
            let maintainer = try IndexMaintainer(tx, context)
            var direct = 0
            for row in rows {
                let key = try tx.recordKey(row.id, entity: "Row")
                let bytes = try #require(try tx.raw.value(forKey: key, in: context.records))
                let fields = try maintainer.fieldValues(bytes)
                for (index, descriptor) in maintainer.descriptors.enumerated() {
                    guard let fast = IndexKey.directKey(fields, slots: maintainer.slots[index], descriptor) else { continue }
                    direct += 1
                    #expect([fast] == IndexKey.keys(of: fields, descriptor), "\(descriptor.name) of \(row)")
                }
            }
            // The direct path served the integer, double, date and ASCII-text parts, not the folded ones.
            #expect(direct > rows.count * 6, "\(direct)")
        }
        let verification = try store.read { tx throws in try tx.verifyIndexes(entity: "Row") }
        #expect(verification.isConsistent, "\(verification.problems.prefix(3))")
    }

    @Test func memcmpOrderIsTheBytewiseOrder() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<5_000 {
            let a = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) * 85 }
            let b = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) * 85 }
            #expect(OrderedKey.precedes(a, b) == a.lexicographicallyPrecedes(b), "\(a) \(b)")
        }
    }
}
