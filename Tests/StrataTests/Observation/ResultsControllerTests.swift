import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataObservation

/// The results controller's changes, checked by replaying them: applied to the previous
/// sections, each change must give exactly the new ones, and its deletions, insertions and
/// updates must be what a brute-force comparison of the two snapshots finds.
@Suite struct ResultsControllerTests {
    typealias Change = ResultsChange<User>

    /// `old` with `change` applied as a table view applies it.
    static func apply(_ change: Change, to old: [Change.Section]) -> [[Int64]] {
        var rows = old.map { $0.records.map(\.id) }
        let removed = (change.deleted + change.moved.map(\.from)).sorted(by: >)
        for position in removed { rows[position.section].remove(at: position.item) }
        for section in change.deletedSections.sorted(by: >) {
            #expect(rows[section].isEmpty, "a deleted section still has rows")
            rows.remove(at: section)
        }
        for section in change.insertedSections.sorted() { rows.insert([], at: section) }
        let added = (change.inserted + change.moved.map(\.to)).sorted()
        for position in added { rows[position.section].insert(change.sections[position.section].records[position.item].id, at: position.item) }
        return rows
    }

    @Test(arguments: [UInt64(7), 8, 9])
    func changesReplayIntoTheNextSnapshot(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let (store, dir) = try makeStore()
        _ = dir
        let names = ["Bluth", "Fünke", "James", "Veal"]
        try await store.write { tx in
            try tx.upsert((1...12).map { User.sample(Int64($0), "U\($0)", names[$0 % 4], lucky: $0 % 5) })
        }
        let changes = store.observeSections(User.self, by: \.lastName) { try $0.sorted(by: "lastName,luckyNumber") }
        var iterator = changes.makeAsyncIterator()
        var previous: [Change.Section] = []
        var first = try #require(try await iterator.next())
        #expect(first.inserted.count == 12 && first.insertedSections == [0, 1, 2, 3])
        #expect(Self.apply(first, to: previous) == first.sections.map { $0.records.map(\.id) })
        previous = first.sections
        for round in 0..<25 {
            // A random edit: insert, delete, move to another section, reorder, or change in place.
            try await store.write { [round] tx in
                var random = SeededGenerator(seed: seed &* 1_000 &+ UInt64(round))
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let id = Int64.random(in: 1...20, using: &random)
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: try tx.delete(User.self, key: id)
                    case 1: try tx.upsert(User.sample(id, "N\(id)", names.randomElement(using: &random)!, lucky: Int.random(in: 0...4, using: &random)))
                    case 2: if var user = try tx.get(User.self, key: id) { user.lastName = names.randomElement(using: &random)!; try tx.upsert(user) }
                    case 3: if var user = try tx.get(User.self, key: id) { user.luckyNumber = Int.random(in: 0...4, using: &random); try tx.upsert(user) }
                    default: if var user = try tx.get(User.self, key: id) { user.firstName += "!"; try tx.upsert(user) }
                    }
                }
            }
            _ = Int.random(in: 0...1, using: &random)
            let expected = try await store.read { tx in try tx.query(User.self).sorted(by: "lastName,luckyNumber").all() }
            // An edit that changed nothing visible is not delivered at all.
            if expected == previous.flatMap(\.records) { continue }
            // Coalescing may merge rounds: read until the snapshot is the store's.
            var change = try #require(try await iterator.next())
            while change.sections.flatMap(\.records) != expected {
                previous = change.sections
                change = try #require(try await iterator.next())
            }
            #expect(Self.apply(change, to: previous) == change.sections.map { $0.records.map(\.id) }, "round \(round)")
            let oldRecords = Dictionary(uniqueKeysWithValues: previous.flatMap(\.records).map { ($0.id, $0) })
            let newRecords = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0) })
            func ids(_ positions: [Change.Position], in sections: [Change.Section]) -> Set<Int64> {
                Set(positions.map { sections[$0.section].records[$0.item].id })
            }
            #expect(ids(change.deleted, in: previous) == Set(oldRecords.keys).subtracting(newRecords.keys))
            #expect(ids(change.inserted, in: change.sections) == Set(newRecords.keys).subtracting(oldRecords.keys))
            let stayed = Set(oldRecords.keys).intersection(newRecords.keys).subtracting(ids(change.moved.map(\.to), in: change.sections))
            #expect(ids(change.updated, in: change.sections) == stayed.filter { oldRecords[$0] != newRecords[$0] })
            previous = change.sections
        }
        first = Change(from: previous, to: previous) { AnyHashable($0.id) }
        #expect(first.isEmpty)
    }

    @Test func theLongestRunOfRowsInOrderStays() {
        #expect(Change.longestIncreasing([3, 1, 2, 5, 4, 6]) == [1, 2, 4, 6] || Change.longestIncreasing([3, 1, 2, 5, 4, 6]) == [1, 2, 5, 6])
        #expect(Change.longestIncreasing([]) == [])
        #expect(Change.longestIncreasing([5, 4, 3]).count == 1)
    }
}
