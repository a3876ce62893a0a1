@_spi(Format) import StrataFormat

import Foundation
import Testing
import TestSupport
@testable import Strata

/// A record for the access paths of the planner and executor: a name that is sometimes longer
/// than an index key can hold, an optional number, a multi-value tag list, a unique email, a date.
struct PathUser: Record, Equatable {
    var id: Int64
    var name: String
    var lucky: Int?
    var tags: [String]
    var email: String
    var born: Date
    var city: String

    static let primaryKey = \PathUser.id
    static let indexes: [IndexDefinition<PathUser>] = [
        .index(\.name), .index(\.lucky), .index(\.tags, multiValue: true), .unique(\.email), .index(\.born),
    ]

    /// Three names share their first 500 characters, so their index keys are cut to the same bytes.
    static func longName(_ n: Int) -> String { String(repeating: "x", count: 500) + String(n) }

    static let base = Date(timeIntervalSince1970: 1_600_000_000)

    init(_ i: Int) {
        id = Int64(i)
        name = i % 5 == 0 ? Self.longName(i % 3) : "N\(i % 11)"
        lucky = i % 7 == 0 ? nil : i % 13
        tags = ["t\(i % 4)", "t\((i / 4) % 4)"]
        email = "u\(i)@example.com"
        born = Self.base.addingTimeInterval(Double(i) * 3_600)
        city = "C\(i % 17)"
    }
}

@Suite struct AccessPathTests {
    let dir: TemporaryDirectory
    let store: Store
    let users = (0..<700).map(PathUser.init)

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(users.shuffled()) }
    }

    /// The ids of `users` meeting `matches`, ascending, windowed.
    func expected(_ matches: (PathUser) -> Bool, offset: Int = 0, limit: Int? = nil) -> [Int64] {
        let all = users.filter(matches).map(\.id).sorted().dropFirst(offset)
        return Array(limit.map { all.prefix($0) } ?? all)
    }

    @Test(arguments: [(0, 5), (0, 100), (7, 20), (300, 50), (0, 10_000)])
    func inListsMergeThePointsInPrimaryKeyOrder(offset: Int, limit: Int) throws {
        try store.read { tx throws in
            let query = try tx.query(PathUser.self).where("lucky IN %@", [3, 5, 9, 12]).offset(offset).limit(limit)
            #expect(try query.explain().description.hasPrefix("IndexMerge(PathUser.lucky IN {3, 5, 9, 12})"))
            #expect(try query.ids() == expected({ [3, 5, 9, 12].contains($0.lucky ?? -1) }, offset: offset, limit: limit))
            #expect(try query.all().map(\.id) == query.ids())
        }
    }

    @Test func mergesHandleNilMultiValueUniqueAndCutKeys() throws {
        try store.read { tx throws in
            let withNil = try tx.query(PathUser.self).where("lucky IN %@", [nil, 4] as [Int?]).limit(30)
            #expect(try withNil.ids() == expected({ $0.lucky == nil || $0.lucky == 4 }, limit: 30))
            // Elements of one record's tags meet several points: each record once.
            let tagged = try tx.query(PathUser.self).where("ANY tags IN %@", ["t1", "t2"]).offset(3).limit(40)
            #expect(try tagged.ids() == expected({ $0.tags.contains("t1") || $0.tags.contains("t2") }, offset: 3, limit: 40))
            let emails = ["u9@example.com", "u3@example.com", "nobody@example.com", "u650@example.com"]
            #expect(try tx.query(PathUser.self).where("email IN %@", emails).ids() == [3, 9, 650])
            // Two long names cut to one key: the merged key holds all three, the recheck drops one.
            let long = try tx.query(PathUser.self).where("name IN %@", [PathUser.longName(0), PathUser.longName(2)]).limit(25)
            #expect(try long.ids() == expected({ [PathUser.longName(0), PathUser.longName(2)].contains($0.name) }, limit: 25))
            let residual = try tx.query(PathUser.self).where("lucky IN %@ AND city == 'C3'", [1, 2, 6]).limit(4)
            #expect(try residual.ids() == expected({ [1, 2, 6].contains($0.lucky ?? -1) && $0.city == "C3" }, limit: 4))
        }
    }

    @Test func unionsOfEqualitiesMergeLazily() throws {
        try store.read { tx throws in
            let either = try tx.query(PathUser.self).where("name == 'N3' OR lucky == 5 OR id == 1").offset(2).limit(30)
            #expect(try either.explain().description.hasPrefix("Union("))
            #expect(try either.ids() == expected({ $0.name == "N3" || $0.lucky == 5 || $0.id == 1 }, offset: 2, limit: 30))
            let overlapping = try tx.query(PathUser.self).where("lucky == 5 OR ANY tags == 't2'")
            #expect(try overlapping.ids() == expected({ $0.lucky == 5 || $0.tags.contains("t2") }))
            // A part that is a range cannot stream: the union still returns key order.
            let ranged = try tx.query(PathUser.self).where("lucky > 11 OR name == 'N4'").limit(50)
            #expect(try ranged.ids() == expected({ ($0.lucky ?? -1) > 11 || $0.name == "N4" }, limit: 50))
        }
    }

    @Test(arguments: [
        ("born >= %@ AND born < %@", true, false), ("born > %@ AND born <= %@", false, true),
        ("born >= %@ AND born <= %@", true, true), ("born > %@ AND born < %@", false, false),
    ])
    func rangeCountsCountIndexEntriesWithTheirBounds(format: String, lowerInclusive: Bool, upperInclusive: Bool) throws {
        let (low, high) = (PathUser.base.addingTimeInterval(100 * 3_600), PathUser.base.addingTimeInterval(350 * 3_600))
        try store.read { tx throws in
            let query = try tx.query(PathUser.self).where(format, low, high)
            let answer = try #require(try query.indexOnlyCount())
            #expect(answer.source.kind == .indexCount)
            let want = users.filter {
                (lowerInclusive ? $0.born >= low : $0.born > low) && (upperInclusive ? $0.born <= high : $0.born < high)
            }.count
            #expect(answer.count == want)
            #expect(try query.count() == want)
            // The index range holds both bounds: no residual filter.
            let plan = try query.sorted(by: \.born).limit(10).explain()
            #expect(plan.description.hasPrefix("IndexScan(PathUser.born ") && !plan.description.contains("Filter"), "\(plan)")
            #expect(try query.sorted(by: \.born).limit(10).ids().count == 10)
        }
    }

    @Test func rangeCountsOverCutKeysOrOtherConditionsReadTheRecords() throws {
        try store.read { tx throws in
            let cut = try tx.query(PathUser.self).where("name >= %@ AND name < %@", PathUser.longName(0), PathUser.longName(2))
            #expect(try cut.indexOnlyCount() == nil)
            #expect(try cut.count() == users.filter { $0.name >= PathUser.longName(0) && $0.name < PathUser.longName(2) }.count)
            let mixed = try tx.query(PathUser.self).where("lucky >= 3 AND lucky < 9 AND city == 'C1'")
            #expect(try mixed.indexOnlyCount() == nil)
            #expect(try mixed.count() == users.filter { (3..<9).contains($0.lucky ?? -1) && $0.city == "C1" }.count)
            let twoFields = try tx.query(PathUser.self).where("lucky >= 3 AND id < 100")
            #expect(try twoFields.indexOnlyCount() == nil)
            #expect(try twoFields.count() == users.filter { ($0.lucky ?? -1) >= 3 && $0.id < 100 }.count)
        }
    }

    @Test func rangeEstimatesAreCloseWithoutWalkingTheRange() throws {
        try store.read { tx throws in
            let context = try #require(try tx.context(for: PathUser.self))
            let descriptor = try #require(context.schema.indexes.first { $0.name == "born" })
            let probe = IndexProbe(transaction: tx, database: try #require(context.indexes["born"]), field: descriptor.fields[0])
            let range = QueryPlan.ValueRange(lower: .date(PathUser.base.addingTimeInterval(50 * 3_600)),
                                             upper: .date(PathUser.base.addingTimeInterval(450 * 3_600)), upperInclusive: false)
            // Walking at most 16 entries, the span of the keys tells the rest.
            let estimate = try probe.estimateRows(.range(range), limit: 16)
            #expect((300...500).contains(estimate), "estimated \(estimate) of 400")
            #expect(try probe.estimateRows(.range(range), limit: 1_000) == 400)
            let counted = try probe.countEntries(.range(range), limit: 16)
            #expect(!counted.complete && counted.entries >= 16)
            // A count the caller made stands for the one the estimate would make.
            #expect(try probe.estimateRows(.range(range), limit: 16, counted: counted) == estimate)
        }
    }

    @Test func scansCompareStoredTextInPlaceWithTheEvaluatorsMeaning() throws {
        try store.read { tx throws in
            let city = tx.query(PathUser.self).where(\.city == "C3").offset(2).limit(10)
            #expect(try city.explain().description.hasPrefix("FullScan"))
            #expect(try city.ids() == expected({ $0.city == "C3" }, offset: 2, limit: 10))
            // An array field: `==` holds when an element is equal.
            #expect(try tx.query(PathUser.self).where("tags == 't1' AND city != 'C1'").ids()
                    == expected({ $0.tags.contains("t1") && $0.city != "C1" }))
            #expect(try tx.query(PathUser.self).where("NOT city == 'C3' AND city == 'C33'").ids().isEmpty)
        }
        // Code points, not canonical equivalence: a decomposed "ü" is not the composed one.
        let selection = FieldSelection(predicate: fieldComparison("name", .equal, .string("F\u{FC}nke")), orderings: [],
                                       fields: FieldTable(names: [0: "name"]))
        let prepared = PreparedPredicate(fieldComparison("name", .equal, .string("F\u{FC}nke")), selection: selection)
        for (stored, matches) in [("F\u{FC}nke", true), ("Fu\u{308}nke", false), ("Funke", false), ("F\u{FC}nkes", false)] {
            var writer = CBORWriter(capacity: 16)
            writer.writeHead(.map, 1)
            writer.writeHead(.unsigned, 0)
            writer.writeText(stored)
            var offsets: [Int] = []
            let values = try selection.values(of: writer.bytes, reusing: &offsets)
            #expect(prepared.evaluate(on: values) == matches, "\(stored)")
            #expect(fieldComparison("name", .equal, .string("F\u{FC}nke")).evaluate(on: values) == matches, "\(stored)")
        }
    }

    @Test func integerPrimaryKeysAreFoundByIntegralDoubles() throws {
        try store.read { tx throws in
            // Numbers compare by value across kinds, so a lookup must too: 4.0 is the key 4, 4.5 no key.
            #expect(try tx.query(PathUser.self).where("id == %@", 4.0).ids() == [4])
            #expect(try tx.query(PathUser.self).where("id IN %@", [4.0, 4.5, 9.0, 9]).ids() == [4, 9])
            #expect(try tx.query(PathUser.self).where("id == %@", 4.5).ids() == [])
            #expect(try tx.query(PathUser.self).where("id >= %@ AND id < %@", 3.5, 6.0).ids() == [4, 5])
            #expect(try tx.query(PathUser.self).where("id > %@", 697.0).ids() == [698, 699])
            #expect(try tx.query(PathUser.self).where("id < %@", 2.5).sorted(by: "id desc").ids() == [2, 1, 0])
        }
    }

    @Test func filteringReadsOnlyTheSelectedFields() throws {
        let fields = FieldTable(names: [0: "id", 1: "name", 2: "city", 5: "lucky"])
        let predicate = fieldComparison("city", .equal, .string("C3"))
        let selection = FieldSelection(predicate: .and([predicate, fieldComparison("nowhere", .equal, .null)]),
                                       orderings: [QueryOrdering(field: ["lucky"])], fields: fields)
        #expect(selection.names == ["city", "nowhere", "lucky"])
        var writer = CBORWriter(capacity: 32)
        writer.writeHead(.map, 3)
        writer.writeHead(.unsigned, 0); writer.writeInteger(7)
        writer.writeHead(.unsigned, 2); writer.writeText("C3")
        writer.writeHead(.unsigned, 1); writer.writeText("Seven")
        var offsets: [Int] = []
        let values = try selection.values(of: writer.bytes, reusing: &offsets)
        #expect(values.value(at: ["city"]) == .string("C3"))
        #expect(values.value(at: ["lucky"]) == nil)
        #expect(values.value(at: ["nowhere"]) == nil)
        #expect(values.value(at: ["name"]) == nil)   // not selected
        #expect(predicate.evaluate(on: values))
        #expect(throws: CBORReadFailure.self) { try selection.values(of: [0x83, 0x01], reusing: &offsets) }
    }

    /// Both bounds of one field are made one range, with the positions of the two conjuncts, in
    /// the order of their positions; the last bound of a side counts; a bound alone, an equality,
    /// nil, a comparison with options or a quantifier makes none.
    @Test func bothBoundsOfAFieldMakeOneRange() {
        func c(_ field: String, _ op: ComparisonOperator, _ value: QueryValue, options: StringComparisonOptions = [],
               quantifier: Quantifier? = nil) -> QueryPredicate {
            .comparison(FieldComparison(field: [field], op: op, value: value, options: options, quantifier: quantifier))
        }
        let conjuncts: [QueryPredicate] = [
            c("b", .less, .int(9)),                          // 0
            c("a", .greaterOrEqual, .int(1)),                // 1
            c("b", .greater, .int(2)),                       // 2
            c("a", .lessOrEqual, .int(5)),                   // 3
            c("a", .greater, .int(3)),                       // 4: the last lower bound of a
            c("c", .greater, .int(0)),                       // 5: no upper bound
            c("d", .less, .null),                            // 6: nil bounds nothing
            c("d", .greater, .int(0)),                       // 7
            c("e", .greater, .string("a"), options: [.caseInsensitive]),
            c("e", .less, .string("b")),                     // 9
            c("f", .greater, .int(0), quantifier: .any),
            c("f", .less, .int(4)),                          // 11
            c("g", .equal, .int(1)),
        ]
        let ranges = QueryPlanner.combinedRanges(conjuncts)
        #expect(ranges.map(\.positions) == [[0, 2], [3, 4]])
        #expect(ranges.map(\.field) == [["b"], ["a"]])
        #expect(ranges.map(\.range) == [QueryPlan.ValueRange(lower: .int(2), lowerInclusive: false, upper: .int(9), upperInclusive: false),
                                         QueryPlan.ValueRange(lower: .int(3), lowerInclusive: false, upper: .int(5))])
        #expect(QueryPlanner.combinedRanges([c("a", .greater, .int(1))]).isEmpty)
        #expect(QueryPlanner.combinedRanges([]).isEmpty)
    }
}
