import Foundation
import Testing
import TestSupport
@testable import Strata

/// A place with alternate names and readings, and a multi-value index on the names: an index
/// that holds one entry per element, and must never answer a count.
private struct Place: Record {
    struct Line: Codable, Sendable { var amount: Int }
    var id: Int64
    var names: [String]
    var readings: [Int]
    var population: Int
    var extra: [Int]?
    var lines: [Line] = []
    static let primaryKey = \Place.id
    static let indexes: [IndexDefinition<Place>] = [.index(\.names, multiValue: true)]
}

/// `@count`, `@sum`, `@avg`, `@min` and `@max` after an array field evaluate as NSPredicate
/// evaluates them, in every front end that names a path (format strings, `%K`, dictionaries,
/// sort strings, aggregates), the planner leaves them to the filter, and what Strata does not
/// support (`SUBQUERY`, other operators, variables, subscripts) is an error saying so.
@Suite struct CollectionOperatorTests {
    let dir: TemporaryDirectory
    let store: Store

    private static let places = [
        Place(id: 1, names: ["Bern", "Berne"], readings: [1, 2, 3], population: 10, extra: [5],
              lines: [.init(amount: 2), .init(amount: 5)]),
        Place(id: 2, names: [], readings: [], population: 0, extra: nil),
        Place(id: 3, names: ["Oslo", "Christiania", "Kristiania"], readings: [10, -4], population: 7, extra: []),
        Place(id: 4, names: ["Wien"], readings: [7], population: 3, extra: [1, 2, 3, 4]),
    ]

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(Self.places) }
    }

    private func ids(_ format: String, _ arguments: any Sendable...) throws -> [Int64] {
        try store.read { tx in try tx.query(Place.self).where(format, arguments: arguments).all().map(\.id) }
    }

    private func untypedIDs(_ format: String) throws -> [QueryValue] {
        try store.read { tx in try tx.query(entity: "Place").where(format).all().map(\.key) }
    }

    private func error(_ format: String) throws -> StrataError {
        try #require(throws: StrataError.self) { try store.read { tx in _ = try tx.query(Place.self).where(format).all() } }
    }

    @Test func countIsTheNumberOfElements() throws {
        #expect(try ids("names.@count > 0") == [1, 3, 4])
        #expect(try ids("names.@count != 3") == [1, 2, 4])
        #expect(try ids("names.@count == 0") == [2])
        #expect(try ids("names.@count BETWEEN {1, 2}") == [1, 4])
        #expect(try ids("%K >= %@", "names.@count", 2) == [1, 3])
        #expect(try untypedIDs("names.@count > 1") == [.int(1), .int(3)])
    }

    @Test func anAbsentArrayHasNoCountAsInNSPredicate() throws {
        // Key-value coding of a nil array is nil: no count to compare, and `!=` holds.
        #expect(try ids("extra.@count == 0") == [3])
        #expect(try ids("extra.@count != 0") == [1, 2, 4])
        #expect(try ids("extra.@count == 0 OR extra == nil") == [2, 3])
    }

    @Test func sumAverageMinimumAndMaximumRangeOverTheElements() throws {
        #expect(try ids("readings.@sum > 5") == [1, 3, 4])
        #expect(try ids("readings.@sum == 0") == [2])   // the sum of no element is 0
        #expect(try ids("readings.@avg == 2") == [1])
        #expect(try ids("readings.@avg > 0") == [1, 3, 4])   // the mean of no element is nil
        #expect(try ids("readings.@min < 0") == [3])
        #expect(try ids("readings.@max >= 7") == [3, 4])
        #expect(try ids("readings.@sum.self == 6") == [1, 3])
        #expect(try ids("names.@max == 'Oslo'") == [3])
        #expect(try ids("lines.@sum.amount == 7") == [1])
    }

    @Test func theEvaluatorAppliesTheOperatorToTheArrayAlone() {
        let record = DictionaryRecord(["tags": .list([.string("a"), .null, .string("b")]), "n": .list([.int(2), .double(0.5)]), "s": .int(3)])
        #expect(fieldComparison("tags.@count", .equal, .int(3)).evaluate(on: record))
        #expect(fieldComparison("n.@sum", .equal, .double(2.5)).evaluate(on: record))
        #expect(fieldComparison("n.@avg", .equal, .double(1.25)).evaluate(on: record))
        #expect(fieldComparison("n.@min", .equal, .double(0.5)).evaluate(on: record))
        #expect(fieldComparison("tags.@sum", .equal, .int(0)).evaluate(on: record) == false)   // strings: no sum
        #expect(fieldComparison("s.@count", .equal, .int(1)).evaluate(on: record) == false)   // not an array
        #expect(fieldComparison("s.@count", .notEqual, .int(1)).evaluate(on: record))
    }

    @Test func theMultiValueIndexOnTheArrayIsNotUsedForACount() throws {
        try store.read { tx throws in
            let plan = try tx.query(Place.self).where("names.@count > 0").explain()
            #expect(plan.description.hasPrefix("FullScan"), "\(plan)")
            // With an element condition beside it, the index answers the element condition only.
            let both = try tx.query(Place.self).where("ANY names == 'Wien' AND names.@count == 1")
            let bothPlan = try both.explain()
            #expect(bothPlan.description.contains("names.@count"), "\(bothPlan)")
            #expect(try both.all().map(\.id) == [4])
            #expect(try tx.query(Place.self).where("names.@count == 2").count() == 1)
        }
    }

    @Test func ordersAndAggregatesReadTheOperatorsValueToo() throws {
        try store.read { tx throws in
            #expect(try tx.query(Place.self).sorted(by: "names.@count desc").all().map(\.id) == [3, 1, 4, 2])
            #expect(try tx.query(Place.self).sum("names.@count") == .int(6))
            #expect(try tx.query(Place.self).max("readings.@sum") == .int(7))
            #expect(try tx.query(Place.self).distinct("names.@count") == [.int(0), .int(1), .int(2), .int(3)])
        }
    }

    @Test func anOperatorOnAFieldThatIsNotAnArrayIsAnError() throws {
        let sum = try error("population.@sum > 0")
        #expect(sum.code == .invalidQuery)
        #expect(sum.message == "Place: population.@sum: population (integer) is not an array; @sum applies to array fields at column 19", "\(sum.message)")
        #expect(sum.field == "population.@sum")
        // Untyped, the type sampled from the stored records says the same.
        let untyped = try #require(throws: StrataError.self) { try store.read { tx in _ = try tx.query(entity: "Place").where("population.@count > 1") } }
        #expect(untyped.message.contains("population (integer) is not an array"), "\(untyped.message)")
        let strings = try error("names.@avg > 1")
        #expect(strings.message == "Place: names.@avg: @avg needs numbers, and names holds string values at column 14", "\(strings.message)")
        let kind = try error("names.@count == 'two'")
        #expect(kind.message.hasPrefix("Place: cannot compare names.@count (integer) with the string \"two\""), "\(kind.message)")
    }

    @Test func unsupportedOperatorsAndConstructsAreNamedAsSuch() throws {
        let unknown = try error("names.@distinctUnionOfObjects > 1")
        #expect(unknown.code == .invalidQuery)
        #expect(unknown.message == "Place: 'names.@distinctUnionOfObjects': the collection operator '@distinctUnionOfObjects' is not supported (Strata supports @count, @sum, @avg, @min and @max) at column 1",
                "\(unknown.message)")
        #expect(try error("@count > 1").message.contains("@count follows an array field, as in 'tags.@count'"))
        #expect(try error("names.@count.length > 1").message.contains("@count ends the path"))
        let subquery = try error("SUBQUERY(names, $n, $n BEGINSWITH 'B').@count > 0")
        #expect(subquery.code == .invalidQuery)
        #expect(subquery.message.hasPrefix("SUBQUERY is not supported at column 1 ("), "\(subquery.message)")
        #expect(!subquery.message.contains("unknown field"))
        #expect(try error("ANY SUBQUERY(names, $n, $n == 'x').@count > 0").message.hasPrefix("SUBQUERY is not supported at column 5"))
        #expect(try error("FUNCTION(population, 'sqrt') > 2").message.hasPrefix("the function FUNCTION(…) is not supported at column 1"))
        #expect(try error("$limit > 2").message.hasPrefix("variables ('$limit') are not supported at column 1"))
        #expect(try error("names[SIZE] > 2").message.hasPrefix("array subscripts ([SIZE]) are not supported at column 6"))
        // Without known fields (no store), the format parser names them all the same.
        #expect(userQueryError("tags.@first == 1")?.message.contains("'@first' is not supported") == true)
        #expect(userQueryError("SUBQUERY(tags, $t, $t == 'a').@count > 0")?.message.hasPrefix("SUBQUERY is not supported") == true)
    }

    @Test func anIndexCannotHoldACollectionOperator() throws {
        let added = try #require(throws: StrataError.self) {
            try store.write { tx in try tx.addIndex(IndexDescription(fields: ["names.@count"]), toEntity: "Place") }
        }
        #expect(added.code == .invalidValue)
        #expect(added.message == "the index on 'names.@count' of Place: 'names.@count' has a collection operator; an index holds stored field values",
                "\(added.message)")
    }
}
