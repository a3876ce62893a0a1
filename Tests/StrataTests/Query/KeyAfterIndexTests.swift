import Foundation
import Testing
import TestSupport
@testable import Strata

/// The entries under one index key are sorted primary keys, so the primary key acts as the last
/// field of every index (as SQLite's rowid does): with every field of an index pinned, a range
/// of the key is sought inside the key's entries. A page after a record in an index's order
/// (`lastName == v AND id > k ORDER BY lastName LIMIT n`, as the studio's grid asks) reads the
/// n entries it returns, not every entry of v before k.
/// A record whose indexed field may be nil.
struct Shelved: Record, Equatable {
    var id: Int64
    var shelf: Int?
    static let primaryKey = \Shelved.id
    static let indexes: [IndexDefinition<Shelved>] = [.index(\.shelf)]
}

@Suite struct KeyAfterIndexTests {
    let dir: TemporaryDirectory
    let store: Store
    let residents: [Resident]

    init() throws { (store, dir, residents) = try Resident.store() }

    /// The plan, the rows the access step read, the ids returned, and the ids a filter and sort
    /// over every resident return.
    func run(_ predicate: String, sort: String?, limit: Int?, filter: (Resident) -> Bool,
             order: (Resident, Resident) -> Bool = { $0.id < $1.id }) throws
        -> (plan: QueryPlan, accessRows: Int?, ids: [Int64], expected: [Int64]) {
        try store.read { tx in
            var request = try tx.query(Resident.self).where(predicate)
            if let sort { request = try request.sorted(by: sort) }
            if let limit { request = request.limit(limit) }
            let expected = residents.filter(filter).sorted(by: order).prefix(limit ?? .max).map(\.id)
            let (plan, steps) = try request.analyze()
            let access = steps.first { ["IndexScan", "IndexMerge"].contains($0.operation) }
            return (plan, access?.actualRows, try request.ids(), Array(expected))
        }
    }

    /// The index and the key range the plan seeks.
    func expectKeyRange(_ plan: QueryPlan, index: String, leading: [[QueryValue]], range: QueryPlan.ValueRange,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .indexScan(let name, let fields, .compound(let found, .range(let foundRange))) = plan.access,
              found.count == fields.count else {
            Issue.record("not a key range inside an index: \(plan)", sourceLocation: sourceLocation)
            return
        }
        #expect(name == index && found == leading && foundRange == range, "\(plan)", sourceLocation: sourceLocation)
        #expect(plan.orderFromAccess, "a sort is left: \(plan)", sourceLocation: sourceLocation)
    }

    @Test func aPageAfterARecordReadsOnlyThePage() throws {
        let found = try run("lastName == 'Name3' AND id > 1000", sort: "lastName", limit: 5,
                            filter: { $0.lastName == "Name3" && $0.id > 1000 })
        expectKeyRange(found.plan, index: "lastName", leading: [[.string("Name3")]], range: .init(lower: .int(1000), lowerInclusive: false))
        #expect(found.ids == found.expected && found.expected.count == 5)
        // The equality's range with a filter on the key read the 77 entries of Name3 below 1000 first.
        #expect(found.accessRows == 5, "\(found.plan)")
        #expect(found.plan.description.contains("IndexScan(Resident.lastName (lastName = \"Name3\", id > 1000))"), "\(found.plan)")
    }

    @Test func descendingTheKeysStillComeAscendingWithinAValue() throws {
        let found = try run("lastName == 'Name3' AND id >= 1004", sort: "lastName desc", limit: 4,
                            filter: { $0.lastName == "Name3" && $0.id >= 1004 })
        expectKeyRange(found.plan, index: "lastName", leading: [[.string("Name3")]], range: .init(lower: .int(1004)))
        #expect(found.ids == found.expected && found.ids.first == 1004)
        #expect(found.accessRows == 4)
    }

    @Test func bothBoundsOfTheKeyInEveryFieldOfACompoundIndex() throws {
        let found = try run("lastName == 'Name4' AND lucky == 2 AND id > 300 AND id <= 1500", sort: "lastName, lucky", limit: nil,
                            filter: { $0.lastName == "Name4" && $0.lucky == 2 && $0.id > 300 && $0.id <= 1500 })
        expectKeyRange(found.plan, index: "lastName,lucky", leading: [[.string("Name4")], [.int(2)]],
                       range: .init(lower: .int(300), lowerInclusive: false, upper: .int(1500)))
        #expect(!found.expected.isEmpty && found.ids == found.expected)
        #expect(found.accessRows == found.expected.count, "the entries outside the range are not read")
    }

    @Test func aPageAfterARecordWithoutTheFieldReadsOnlyThePage() throws {
        // Nil is a key of a single-field index (the first), its records in key order too.
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...300).map { Shelved(id: Int64($0), shelf: $0 % 3 == 0 ? nil : $0 % 7) }) }
        try store.read { tx in
            let request = try tx.query(Shelved.self).where("shelf == nil AND id > 150").sorted(by: "shelf").limit(5)
            let (plan, steps) = try request.analyze()
            #expect(try request.ids() == [153, 156, 159, 162, 165], "\(plan)")
            #expect(steps.first { $0.operation == "IndexScan" }?.actualRows == 5, "\(plan)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func severalValuesAndAKeyRangeWithoutAnOrder() throws {
        let found = try run("lastName IN {'Name1', 'Name2'} AND id < 60", sort: nil, limit: nil,
                            filter: { ["Name1", "Name2"].contains($0.lastName) && $0.id < 60 })
        #expect(!found.expected.isEmpty && found.ids == found.expected, "\(found.plan)")
    }

    @Test func theKeyRangeCountsAndExistsAsTheRecordsDo() throws {
        try store.read { tx in
            let request = try tx.query(Resident.self).where("lastName == 'Name5' AND id > 1900")
            let expected = residents.filter { $0.lastName == "Name5" && $0.id > 1900 }.count
            #expect(try request.count() == expected && expected > 0)
            #expect(try tx.query(Resident.self).where("lastName == 'Name5' AND id > 2000").exists() == false)
        }
    }

    @Test func boundsOfAnotherKindAreLeftToTheFilter() throws {
        // A fraction bounds no integer key exactly: it is left out of the seek, and the filter keeps
        // the records above it.
        let fraction = try run("lastName == 'Name3' AND id > 1000.5", sort: "lastName", limit: 5,
                               filter: { $0.lastName == "Name3" && Double($0.id) > 1000.5 })
        #expect(fraction.ids == fraction.expected && fraction.expected.count == 5, "\(fraction.plan)")
        #expect(fraction.plan.residual != .constant(true), "\(fraction.plan)")
    }

    @Test func aKeptPlanIsMadeAgainFromTheNextPagesKey() throws {
        try store.read { tx in
            var previous: Int64 = 0
            var pages: [[Int64]] = []
            for _ in 0..<4 {
                let page = try tx.query(Resident.self).where("lastName == %@ AND id > %@", arguments: ["Name7", previous])
                    .sorted(by: "lastName").limit(10).ids()
                pages.append(page)
                previous = page.last ?? previous
            }
            let expected = residents.filter { $0.lastName == "Name7" }.map(\.id).sorted().prefix(40)
            #expect(pages.flatMap { $0 } == Array(expected))
        }
    }
}
