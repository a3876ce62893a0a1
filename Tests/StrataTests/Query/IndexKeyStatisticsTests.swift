import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat

/// A record whose `scope` is skewed: "I" holds 30 % of the records, "R" one in a thousand, and
/// eleven other scopes share the rest (about 6 % each).
/// Its compound indexes are led by fields without an index of their own, so only statistics
/// tell how many entries a leading value has.
struct Ticket: Record, Equatable {
    var id: Int64
    var scope: String
    var stamp: Int
    var rank: Int
    static let primaryKey = \Ticket.id
    static let indexes: [IndexDefinition<Ticket>] = [.index(\.scope, \.stamp), .index(\.rank)]

    /// `count` tickets: three in ten in scope "I", one in a thousand in "R", the rest spread over
    /// "S0" to "S10"; stamps and ranks are permutations.
    static func tickets(_ count: Int) -> [Ticket] {
        (0..<count).map { i in
            let scope = i % 10 < 3 ? "I" : i % 1_000 == 999 ? "R" : "S\(i % 11)"
            return Ticket(id: Int64(i), scope: scope, stamp: (i * 7_919) % count, rank: (i * 104_729) % count)
        }
    }
}

/// Compound indexes led by a field without an index of its own keep statistics in the catalog
/// (distinct values, the most frequent leading values counted exactly), taken by the writes
/// that change them enough, so that estimates see skew where interpolation between the index's
/// first and last keys cannot.
@Suite struct IndexKeyStatisticsTests {
    func statistics(_ store: Store) throws -> IndexKeyStatistics? {
        try store.read { tx in try #require(try tx.context(named: "Ticket")).schema.statistics["scope,stamp"] }
    }

    @Test func aWriteTakesThemAndEstimatesSeeTheFrequentValue() throws {
        let (store, dir) = try makeStore()
        let tickets = Ticket.tickets(6_000)
        try store.write { tx in try tx.insert(tickets) }
        let taken = try #require(try statistics(store))
        #expect(taken.entries == 6_000 && taken.distinctKeys == 6_000)
        #expect(taken.distinctLeading == Set(tickets.map(\.scope)).count)
        // "I" first, then the eleven others (each above 1 %), not "R".
        #expect(taken.frequent.count == 12 && taken.frequent.first?.entries == 1_800, "\(taken.frequent)")
        #expect(taken.frequent.dropFirst().allSatisfy { (370...390).contains($0.entries) }, "\(taken.frequent)")
        try store.read { tx in
            // "R" is counted (the average of the other scopes would say hundreds).
            for scope in ["I", "S5", "R"] {
                let actual = tickets.filter { $0.scope == scope }.count
                let plan = try tx.query(Ticket.self).where(\.scope == scope).using(index: "scope,stamp").explain()
                // Within a factor of two, both ways.
                #expect(plan.estimatedRows <= 2 * actual && actual <= 2 * max(plan.estimatedRows, 1), "\(scope): \(plan) for \(actual)")
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func theFrequentValueIsWalkedInTheOrdersIndexAndARareOneFoundThroughItsOwn() throws {
        let (store, dir) = try makeStore()
        let tickets = Ticket.tickets(6_000)
        try store.write { tx in try tx.insert(tickets) }
        try store.read { tx in
            // 30 % match: walking the rank index finds ten in about 33 records; the compound scan
            // would read 1,800 and sort them.
            let frequent = try tx.query(Ticket.self).where(\.scope == "I").sorted(by: \.rank).limit(10)
            let frequentPlan = try frequent.explain()
            #expect(frequentPlan.description.hasPrefix("IndexOrder(Ticket.rank)"), "\(frequentPlan)")
            // A handful match: the compound scan reads them and sorts.
            let rare = try tx.query(Ticket.self).where(\.scope == "R").sorted(by: \.rank).limit(10)
            let rarePlan = try rare.explain()
            #expect(rarePlan.description.hasPrefix("IndexScan(Ticket.scope,stamp"), "\(rarePlan)")
            for (request, scope) in [(frequent, "I"), (rare, "R")] {
                let expected = tickets.filter { $0.scope == scope }.sorted { $0.rank < $1.rank }.prefix(10).map(\.id)
                #expect(try request.ids() == Array(expected))
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func theyFollowTheDataAndSmallIndexesHaveNone() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(Ticket.tickets(900)) }
        #expect(try statistics(store) == nil, "fewer entries than IndexKeyStatistics.minimumEntries")
        try store.write { tx in try tx.insert(Array(Ticket.tickets(4_000).dropFirst(900))) }
        #expect(try statistics(store)?.entries == 4_000)
        // A small change keeps them; one of more than a quarter takes them again.
        try store.write { tx in for id in 0..<Int64(500) { try tx.delete(Ticket.self, key: id) } }
        #expect(try statistics(store)?.entries == 4_000)
        try store.write { tx in for id in 500..<Int64(1_500) { try tx.delete(Ticket.self, key: id) } }
        let retaken = try #require(try statistics(store))
        #expect(retaken.entries == 2_500 && retaken.frequent.first?.entries == 750, "\(retaken)")
        withExtendedLifetime(dir) {}
    }
}

extension IndexKeyStatisticsTests {
    /// The walk finds where a leading string ends without decoding it: escaped zeros inside, the
    /// terminator, whatever follows; a key cut inside the string has no end.
    @Test func aLeadingStringsLengthIsFoundWithoutDecodingIt() {
        for text in ["", "a", "a\u{0}b", "\u{0}\u{0}", "Zürich", String(repeating: "x", count: 300)] {
            var key: [UInt8] = []
            text.appendOrderedKey(to: &key)
            let length = key.count
            Int(5).appendOrderedKey(to: &key)
            #expect(IndexKeyStatistics.stringLength(key) == length, "\(text.debugDescription)")
            #expect(IndexKeyStatistics.stringLength(Array(key[..<(length - 1)])) == nil, "cut: \(text.debugDescription)")
        }
        var number: [UInt8] = []
        Int(5).appendOrderedKey(to: &number)
        #expect(IndexKeyStatistics.stringLength(number) == nil)
    }
}

extension IndexKeyStatisticsTests {
    /// A value left out of the frequent list had fewer entries than the share that keeps one
    /// (list not full), or no more than the least frequent value kept (list full).
    @Test func aValueNotKeptAsFrequentHadAtMostTheRareCeiling() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(Ticket.tickets(6_000)) }
        let taken = try #require(try statistics(store))
        #expect(taken.rareCeiling == 6_000 / IndexKeyStatistics.frequentShare - 1)
        #expect(taken.frequent.allSatisfy { $0.entries > taken.rareCeiling })
        let full = (0..<IndexKeyStatistics.frequentLimit).map { IndexKeyStatistics.Frequent(key: [UInt8($0)], entries: 500 - $0) }
        let statistics = IndexKeyStatistics(fields: taken.fields, entries: 40_000, distinctLeading: 100, distinctKeys: 100, frequent: full)
        #expect(statistics.rareCeiling == 500 - IndexKeyStatistics.frequentLimit + 1)
        withExtendedLifetime(dir) {}
    }
}
