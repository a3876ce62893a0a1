import Foundation
import Testing
import TestSupport
@testable import Strata

/// Aggregates on random data against brute force over the records in memory, and the index-only
/// paths against the same answers.
@Suite struct AggregateDifferentialTests {
    static let fields = ["lucky", "score", "born", "name", "active", "id"]

    /// The matching records of `query` (with its order and window), by brute force.
    static func matches(_ records: [Sample], _ query: Query<Sample>) -> [Sample] {
        let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        return DifferentialQueryTests.reference(records, query).map { byID[$0]! }
    }

    static func values(_ records: [Sample], _ field: String) -> [QueryValue] {
        records.map { $0.fields.value(at: [field]) ?? .null }.filter { $0 != .null }
    }

    static func extreme(_ values: [QueryValue], largest: Bool) -> QueryValue? {
        values.min { QueryValueOrder.compare($0, $1, options: []) * (largest ? -1 : 1) < 0 }
    }

    /// (key, count) of each group of `field`, ordered by key.
    static func groups(_ records: [Sample], _ field: String) -> [(QueryValue, Int)] {
        let keys = records.map { $0.fields.value(at: [field]) ?? .null }.sorted { QueryValueOrder.compare($0, $1, options: []) < 0 }
        var result: [(QueryValue, Int)] = []
        for key in keys {
            if let last = result.last, QueryValueOrder.compare(last.0, key, options: []) == 0 { result[result.count - 1].1 += 1 }
            else { result.append((key, 1)) }
        }
        return result
    }

    static func store(seed: UInt64, count: Int = 150) throws -> (Store, TemporaryDirectory, [Sample], QueryCaseGenerator) {
        let (store, dir) = try makeStore()
        var generator = QueryCaseGenerator(random: SeededGenerator(seed: seed))
        let records = (1...count).map { generator.record(Int64($0)) }
        try store.write { tx in try tx.insert(records.shuffled(using: &generator.random)) }
        return (store, dir, records, generator)
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func aggregatesOfRandomQueriesMatchBruteForce(seed: UInt64) throws {
        var (store, dir, records, generator) = try Self.store(seed: seed)
        try store.read { tx throws in
            for _ in 0..<150 {
                var query = Query<Sample>()
                query.predicate = generator.predicate()
                query.orderings = generator.orderings()
                if Int.random(in: 0..<4, using: &generator.random) == 0 { query.limit = Int.random(in: 0...20, using: &generator.random) }
                if Int.random(in: 0..<5, using: &generator.random) == 0 { query.offset = Int.random(in: 0...10, using: &generator.random) }
                let request = QueryRequest<Sample>(transaction: tx, query: query)
                let matching = Self.matches(records, query)
                let context = "query \(query.predicate.explained) limit \(String(describing: query.limit)) offset \(query.offset)"
                #expect(try request.count() == matching.count, "\(context)")
                let field = Self.fields.randomElement(using: &generator.random)!
                let values = Self.values(matching, field)
                #expect(try request.min(field) == Self.extreme(values, largest: false), "\(context) min(\(field))")
                #expect(try request.max(field) == Self.extreme(values, largest: true), "\(context) max(\(field))")
                let numbers = Self.values(matching, ["lucky", "score"].randomElement(using: &generator.random)!)
                let name = numbers.first.map { if case .int = $0 { "lucky" } else { "score" } }
                if let name {
                    let total = numbers.reduce(0.0) { sum, value in
                        switch value { case .int(let x): sum + Double(x); case .double(let x): sum + x; default: sum }
                    }
                    #expect(try request.average(name) == total / Double(numbers.count), "\(context) average(\(name))")
                    let sum = try #require(try request.sum(name))
                    #expect(QueryValueOrder.compare(sum, .double(total), options: []) == 0, "\(context) sum(\(name))")
                }
                let grouped = try request.group(by: field, aggregating: .count, .max("score"), .average("lucky"))
                let expected = Self.groups(matching, field)
                #expect(grouped.map(\.key) == expected.map(\.0), "\(context) group(by: \(field))")
                #expect(grouped.map(\.count) == expected.map(\.1), "\(context) group(by: \(field))")
                for group in grouped {
                    let members = matching.filter { QueryValueOrder.compare($0.fields.value(at: [field]) ?? .null, group.key, options: []) == 0 }
                    #expect(group[.max("score")] == Self.extreme(Self.values(members, "score"), largest: true))
                    let lucky = members.compactMap(\.lucky)
                    #expect(group[.average("lucky")] == (lucky.isEmpty ? nil : .double(Double(lucky.reduce(0, +)) / Double(lucky.count))))
                }
            }
        }
        withExtendedLifetime(dir) {}
    }

    @Test(arguments: [UInt64(21), 22, 23])
    func indexOnlyAnswersMatchBruteForce(seed: UInt64) throws {
        var (store, dir, records, generator) = try Self.store(seed: seed, count: 200)
        var indexCounts = 0
        try store.read { tx throws in
            // Counts of one random comparison: through an index when exact, else the records.
            for _ in 0..<300 {
                var query = Query<Sample>()
                query.predicate = generator.comparison()
                let request = QueryRequest<Sample>(transaction: tx, query: query)
                let expected = Self.matches(records, query).count
                if let answer = try request.indexOnlyCount() {
                    indexCounts += 1
                    #expect(answer.count == expected, "\(query.predicate.explained) by \(answer.source)")
                    #expect(answer.source.kind == .indexCount)
                }
                #expect(try request.count() == expected, "\(query.predicate.explained)")
                #expect(try request.ids().count == expected)   // the record path
            }
            // min, max and group counts of indexed fields, without predicate: from the index keys.
            let all = tx.query(Sample.self)
            for field in ["lucky", "score", "born", "name"] {
                let values = Self.values(records, field)
                let low = try all.extreme([field], largest: false), high = try all.extreme([field], largest: true)
                #expect(low.source.kind == .indexEnds && high.source.kind == .indexEnds, "\(field)")
                #expect(low.value == Self.extreme(values, largest: false), "min(\(field))")
                #expect(high.value == Self.extreme(values, largest: true), "max(\(field))")
                let groups = try all.group(by: field)
                #expect(groups.source.kind == .indexGroups, "\(field)")
                let expected = Self.groups(records, field)
                #expect(groups.map(\.key) == expected.map(\.0) && groups.map(\.count) == expected.map(\.1), "group(by: \(field))")
                // The same questions through the record path, by a condition every record meets.
                let everything = all.where(\.id > Int64.min)
                #expect(try everything.group(by: field).map(\.count) == groups.map(\.count))
                #expect(try everything.extreme([field], largest: true).source.kind == .records)
                #expect(try everything.max(field) == high.value && everything.min(field) == low.value)
            }
            // With a predicate: from the keys of an index scan that answers it whole, the field
            // being the first one the scan does not pin (`name == x` then min(lucky) on the index
            // of name and lucky), else from the records.
            var fromKeys = 0
            for round in 0..<300 {
                var query = Query<Sample>()
                query.predicate = round % 2 == 0 ? generator.compoundPredicate().predicate : generator.comparison()
                let request = QueryRequest<Sample>(transaction: tx, query: query)
                let matching = Self.matches(records, query)
                for field in ["lucky", "score", "born", "name", "active"] {
                    let values = Self.values(matching, field)
                    let low = try request.extreme([field], largest: false), high = try request.extreme([field], largest: true)
                    #expect(low.value == Self.extreme(values, largest: false), "min(\(field)) of \(query.predicate.explained) by \(low.source)")
                    #expect(high.value == Self.extreme(values, largest: true), "max(\(field)) of \(query.predicate.explained) by \(high.source)")
                    let groups = try request.group(by: field)
                    let expected = Self.groups(matching, field)
                    #expect(groups.map(\.key) == expected.map(\.0) && groups.map(\.count) == expected.map(\.1),
                            "group(by: \(field)) of \(query.predicate.explained) by \(groups.source)")
                    if low.source.kind == .indexEnds, groups.source.kind == .indexGroups { fromKeys += 1 }
                }
            }
            #expect(fromKeys > 20, "the generator must reach answers from index keys with a predicate (\(fromKeys))")
            #expect(try all.max(\.born) == records.map(\.born).max())
            #expect(try all.distinct(\.lucky) == Array(Set(records.map(\.lucky))).sorted { ($0 ?? .min) < ($1 ?? .min) })
        }
        #expect(indexCounts > 40, "the generator must reach the index-only count")
        withExtendedLifetime(dir) {}
    }

    @Test func nanAndCutKeysFallBackToTheRecords() throws {
        let (store, dir) = try makeStore()
        let long = String(repeating: "x", count: 600)
        var records = (1...6).map { Sample(id: $0, name: long + "\($0 % 3)", lucky: nil, score: Double($0), active: true,
                                           born: Date(timeIntervalSince1970: 0), tags: []) }
        records[0].score = .nan
        records[1].name = "short"
        try store.write { tx in try tx.insert(records) }
        try store.read { tx throws in
            let all = tx.query(Sample.self)
            let low = try all.extreme(["score"], largest: false), high = try all.extreme(["score"], largest: true)
            #expect(low.source.kind == .records && high.source.kind == .records)
            #expect(try all.max(\.score) == 6)
            #expect(try all.min(\.score).map(\.isNaN) == true)   // NaN sorts first in QueryValueOrder
            #expect(try all.where(\.score > 2).count() == 4)
            #expect(try all.where(\.score > 2).indexOnlyCount() == nil)
            // Names cut at the key limit: the records tell them apart.
            let names = try all.group(by: \.name)
            #expect(names.source.kind == .records)
            #expect(names.map(\.key) == ["short", long + "0", long + "1", long + "2"])
            #expect(names.map(\.count) == [1, 2, 2, 1])
            #expect(try all.max(\.name) == long + "2")
            #expect(try all.min(\.name) == "short")
            #expect(try all.where(\.name > long).count() == 5)
        }
        withExtendedLifetime(dir) {}
    }
}
