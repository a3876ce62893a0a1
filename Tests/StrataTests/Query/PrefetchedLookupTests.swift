import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataQuery
@testable import StrataStorage

/// Record look-ups prefetched a batch ahead (`PrefetchedCandidates`, which a records database
/// larger than the processor's caches takes; here the environment's threshold is lowered to 0):
/// every query answers as without prefetching, with the same records read, for walks whose keys
/// come out of order (a range in another order, descending, an `IN` merged in another order, a
/// multi-value index, cut index keys) and in order (an equality), stopped mid-batch by a LIMIT or not;
/// a walk of one stored key is known to ascend.
@Suite struct PrefetchedLookupTests {
    struct Reading: Record, Equatable {
        var id: Int64
        var station: String
        var level: Int
        var tags: [String]
        var note: String
        static let primaryKey = \Reading.id
        static let indexes: [IndexDefinition<Reading>] = [
            .index(\.level), .index(\.station, \.level), .index(\.tags, multiValue: true), .index(\.note),
        ]
    }

    /// Keys inserted out of order; levels, stations and tags spread so that index order is not key order;
    /// notes longer than an index key holds, so that their keys are cut.
    static let readings: [Reading] = (0..<800).map { (i: Int) -> Reading in
        let id = Int64((i * 7_919) % 800)
        return Reading(id: id, station: "S\(i % 13)", level: (i * 37) % 211, tags: ["t\(i % 5)", "t\(i % 3)"],
                       note: String(repeating: "n", count: 500) + "\(i % 17)")
    }

    static let queries: [(String, @Sendable (QueryRequest<Reading>) throws -> QueryRequest<Reading>)] = [
        ("range by level", { try $0.where("level >= 20 AND level < 150").sorted(by: \.level) }),
        ("range by level, descending", { try $0.where("level >= 20 AND level < 150").sorted(by: \.level, .descending) }),
        ("equality, key order", { try $0.where("level == 42") }),
        ("compound range", { try $0.where("station == 'S3' AND level > 10").sorted(by: \.level) }),
        ("IN merged by level", { try $0.where("station IN {'S1', 'S4', 'S9'}").sorted(by: \.level) }),
        ("multi-value", { try $0.where("tags == 't1'").sorted(by: \.level) }),
        ("cut keys", { try $0.where("note BEGINSWITH %@", String(repeating: "n", count: 500) + "1").sorted(by: \.note) }),
    ]

    /// The ids, records and records read of each query, at each limit, with the threshold given.
    func answers(threshold: Int) throws -> [String] {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx in try tx.insert(Self.readings) }
        store.environment.prefetchThreshold.store(threshold, ordering: .relaxed)
        var answers: [String] = []
        try store.read { tx in
            let context = try #require(try tx.query(Reading.self).resolvedContext())
            #expect(tx.prefetchesStoredBytes(in: context.records) == (threshold == 0))
            for (name, make) in Self.queries {
                for limit in [nil, 1, 7, 8, 9, 50] as [Int?] {
                    var request = try make(tx.query(Reading.self))
                    if let limit { request = request.limit(limit) }
                    let executor = try QueryExecutor(transaction: tx, context: context, plan: try request.explain(),
                                                     predicate: request.query.predicate)
                    var found: [[UInt8]] = []
                    try executor.forEachResult { match in
                        found.append(match.key)
                        return true
                    }
                    let ids = try request.ids()
                    #expect(try request.all().map(\.id) == ids, "\(name), limit \(limit.map(String.init) ?? "none")")
                    answers.append("\(name) \(limit.map(String.init) ?? "-"): \(ids) read \(executor.candidatesRead) \(found)")
                }
            }
        }
        return answers
    }

    @Test func prefetchedLookUpsAnswerAsPlainOnes() throws {
        let plain = try answers(threshold: .max)
        let prefetched = try answers(threshold: 0)
        #expect(plain.count == Self.queries.count * 6)
        for (a, b) in zip(plain, prefetched) { #expect(a == b) }
        // The brute-force answer of one query, so that both are checked against the records too.
        let expected = Self.readings.filter { $0.level >= 20 && $0.level < 150 }
            .sorted { ($0.level, $0.id) < ($1.level, $1.id) }.prefix(9).map(\.id)
        #expect(prefetched.contains { $0.hasPrefix("range by level 9: \(expected)") })
    }

    @Test func aWalkOfOneStoredKeyIsKnownToAscend() {
        typealias Condition = QueryPlan.IndexCondition
        let one: [QueryValue] = [.int(1)], two: [QueryValue] = [.int(1), .int(2)]
        #expect(Condition.points(one).readsOneKey(ofFields: 1))
        #expect(!Condition.points(two).readsOneKey(ofFields: 1))
        #expect(!Condition.points(one).readsOneKey(ofFields: 2))
        #expect(Condition.compound(leading: [one], next: .points(one)).readsOneKey(ofFields: 2))
        #expect(!Condition.compound(leading: [one], next: .points(two)).readsOneKey(ofFields: 2))
        #expect(!Condition.compound(leading: [two], next: .points(one)).readsOneKey(ofFields: 2))
        #expect(!Condition.compound(leading: [one], next: .range(.init(lower: .int(1)))).readsOneKey(ofFields: 2))
        #expect(!Condition.compound(leading: [one], next: .all).readsOneKey(ofFields: 2))
        // Every field pinned, then a range of the primary key.
        #expect(Condition.compound(leading: [one, one], next: .range(.init(lower: .int(1)))).readsOneKey(ofFields: 2))
        #expect(!Condition.range(.init(lower: .int(1))).readsOneKey(ofFields: 1))
    }
}
