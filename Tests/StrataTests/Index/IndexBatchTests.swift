import Foundation
import Testing
import TestSupport
@testable import Strata

/// Bulk writes of sequences hold index changes back and apply them sorted (``IndexMaintainer``'s batching mode, ``IndexMaintainer/HeldChanges``): the
/// indexes must come out exactly as record-by-record writes leave them, across batch boundaries,
/// for a record written twice in one sequence, with cut keys, and when a bulk insert fails
/// halfway and the caller goes on.
@Suite struct IndexBatchTests {
    struct Item: Record, Equatable {
        var id: Int64
        var group: Int
        var name: String
        var tags: [String]
        var stamp: Date?
        static let primaryKey = \Item.id
        static let indexes: [IndexDefinition<Item>] = [
            .index(\.group), .index(\.name), .index(\.tags, multiValue: true), .index(\.stamp), .index(\.group, \.name),
            .index(\.name, collation: .caseInsensitive, name: "foldedName"),
        ]
    }

    static func item(_ id: Int64, _ random: inout SeededGenerator) -> Item {
        let names = ["Bluth", "Fünke", "veal", "Zoë", String(repeating: "long", count: 150), String(repeating: "lang", count: 150) + "x"]
        return Item(id: id, group: Int.random(in: 0..<40, using: &random),
                    name: names.randomElement(using: &random)! + String(Int.random(in: 0..<30, using: &random)),
                    tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in ["a", "b", "c", "d"].randomElement(using: &random)! },
                    stamp: Bool.random(using: &random) ? nil : Date(timeIntervalSince1970: Double(Int.random(in: 0..<1_000, using: &random))))
    }

    func expectConsistent(_ store: Store, _ items: [Int64: Item]) throws {
        let verification = try store.read { tx in try tx.verifyIndexes(entity: "Item") }
        #expect(verification.isConsistent, "\(verification.problems.prefix(3))")
        try store.read { tx in
            for group in [0, 7, 39] {
                let found = try tx.query(Item.self).where(\.group == group).ids()
                #expect(Set(found) == Set(items.values.filter { $0.group == group }.map(\.id)))
            }
            let tagged = try tx.query(Item.self, "ANY tags == 'c'").count()
            #expect(tagged == items.values.filter { $0.tags.contains("c") }.count)
        }
    }

    @Test func bulkWritesAcrossBatchesRepeatsAndCutKeysLeaveExactIndexes() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 11)
        // More records than one batch holds, in shuffled key order.
        var ids = Array(Int64(1)...Int64(IndexMaintainer.HeldChanges.recordLimit + 3_000))
        ids.shuffle(using: &random)
        let first = ids.map { Self.item($0, &random) }
        try store.write { tx in try tx.upsert(first) }
        var expected = Dictionary(uniqueKeysWithValues: first.map { ($0.id, $0) })
        try expectConsistent(store, expected)
        // Changes to stored records, new ones, and records written twice in one sequence.
        var second: [Item] = []
        for _ in 0..<3_000 {
            let id = Int64.random(in: 1...Int64(IndexMaintainer.HeldChanges.recordLimit + 6_000), using: &random)
            second.append(Self.item(id, &random))
            if Bool.random(using: &random) { second.append(Self.item(id, &random)) }
        }
        try store.write { tx in try tx.upsert(second) }
        for item in second { expected[item.id] = item }
        try expectConsistent(store, expected)
    }

    @Test func aBulkInsertThatFailsHalfwayLeavesTheIndexesOfWhatItWrote() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 12)
        let stored = (1...100).map { Self.item(Int64($0), &random) }
        let fresh = (101...400).map { Self.item(Int64($0), &random) }
        try store.write { tx in
            try tx.insert(stored)
            // 300 new records, then one whose key exists: the call throws after writing the 300.
            do {
                try tx.insert(fresh + [Self.item(50, &random)])
                Issue.record("inserting an existing key did not throw")
            } catch let error as StrataError where error.code == .duplicateKey {}
        }
        let expected = Dictionary(uniqueKeysWithValues: (stored + fresh).map { ($0.id, $0) })
        #expect(try store.read { tx in try tx.count(Item.self) } == 400)
        try expectConsistent(store, expected)
    }
}
