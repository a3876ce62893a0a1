import Foundation
import Testing
import TestSupport
@testable import Strata

/// A user with the compound indexes a tuned SQLite user would add.
struct Resident: Record, Equatable {
    var id: Int64
    var lastName: String
    var firstName: String
    var lucky: Int
    var joined: Date
    var city: String
    var active: Bool
    static let primaryKey = \Resident.id
    static let indexes: [IndexDefinition<Resident>] = [
        .index(\.lastName),
        .index(\.lastName, \.lucky),
        .index(\.lastName, \.joined),
        .index(\.city, \.active, \.firstName),
        .index(\.firstName, \.lucky, collations: (.caseAndDiacriticInsensitive, .binary)),
    ]

    /// A new store holding `sample(1)` to `sample(count)`, and them.
    static func store(count: Int64 = 2_000) throws -> (store: Store, dir: TemporaryDirectory, residents: [Resident]) {
        let (store, dir) = try makeStore()
        let residents = (1...count).map(sample)
        try store.write { tx in try tx.insert(residents) }
        return (store, dir, residents)
    }

    static func sample(_ id: Int64) -> Resident {
        Resident(id: id, lastName: "Name\(id % 13)", firstName: ["Ann", "Bob", "Åsa", "Cy", "Dee"][Int(id % 5)] + "\(id % 7)",
               lucky: Int(id % 17), joined: Date(timeIntervalSince1970: 1_600_000_000 + Double(id * 3_600)),
               city: ["Berlin", "Bern", "Oslo"][Int(id % 3)], active: id % 4 != 0)
    }
}

/// Compound indexes are used as SQLite uses them: equality (or IN) on the first fields, then
/// equality, a range, a prefix or the requested order on the next one, in either direction; the
/// scan reads only the entries it returns, and its answers are those of a full scan.
@Suite struct CompoundIndexTests {
    let dir: TemporaryDirectory
    let store: Store
    let residents: [Resident]

    init() throws { (store, dir, residents) = try Resident.store() }

    /// The plan, the ids the query returns, and the ids a filter over every member returns.
    func run(_ predicate: String, sort: String? = nil, limit: Int? = nil, filter: (Resident) -> Bool,
             order: (Resident, Resident) -> Bool = { $0.id < $1.id }) throws -> (plan: QueryPlan, ids: [Int64], expected: [Int64]) {
        try store.read { tx in
            var request = try tx.query(Resident.self).where(predicate)
            if let sort { request = try request.sorted(by: sort) }
            if let limit { request = request.limit(limit) }
            let expected = residents.filter(filter).sorted(by: order).prefix(limit ?? .max).map(\.id)
            return (try request.explain(), try request.ids(), Array(expected))
        }
    }

    /// The stretch of the index the plan reads, and whether it needs a filter or a sort.
    func expectCompound(_ plan: QueryPlan, index: String, leading: [[QueryValue]], next: QueryPlan.IndexCondition,
                        exact: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .indexScan(let name, _, .compound(let foundLeading, let foundNext)) = plan.access else {
            Issue.record("not a compound scan: \(plan)", sourceLocation: sourceLocation)
            return
        }
        #expect(name == index && foundLeading == leading && foundNext == next, "\(plan)", sourceLocation: sourceLocation)
        if exact { #expect(plan.residual == .constant(true), "a filter is left: \(plan)", sourceLocation: sourceLocation) }
    }

    @Test func equalityOnBothFieldsReadsOneKey() throws {
        let found = try run("lastName == 'Name3' AND lucky == 7") { $0.lastName == "Name3" && $0.lucky == 7 }
        expectCompound(found.plan, index: "lastName,lucky", leading: [[.string("Name3")]], next: .points([.int(7)]))
        #expect(found.plan.estimatedRows == found.expected.count)
        #expect(!found.expected.isEmpty && found.ids == found.expected)
        #expect(found.plan.description.contains("IndexScan(Resident.lastName,lucky (lastName = \"Name3\", lucky = 7))"), "\(found.plan)")
    }

    @Test func aRangeOnTheSecondFieldIsPartOfTheScanAndItsOrder() throws {
        let from = Date(timeIntervalSince1970: 1_600_000_000 + 300 * 3_600), to = Date(timeIntervalSince1970: 1_600_000_000 + 1_500 * 3_600)
        let request = { (tx: ReadTransaction) in
            try tx.query(Resident.self).where(\.lastName == "Name5" && \.joined >= from && \.joined < to).sorted(by: "joined desc").limit(5)
        }
        let (plan, ids) = try store.read { tx in (try request(tx).explain(), try request(tx).ids()) }
        let expected = residents.filter { $0.lastName == "Name5" && $0.joined >= from && $0.joined < to }.sorted { $0.joined > $1.joined }.prefix(5).map(\.id)
        expectCompound(plan, index: "lastName,joined", leading: [[.string("Name5")]],
                       next: .range(QueryPlan.ValueRange(lower: .date(from), upper: .date(to), upperInclusive: false)))
        #expect(plan.orderFromAccess && plan.reversed && plan.sort.isEmpty, "no sort: \(plan)")
        #expect(!plan.description.contains("TopK") && !plan.description.contains("Sort"), "\(plan)")
        #expect(ids == Array(expected) && ids.count == 5)
    }

    @Test func equalityOnTwoFieldsThenAPrefixOnTheThird() throws {
        let found = try run("city == 'Bern' AND active == true AND firstName BEGINSWITH 'Bo'") {
            $0.city == "Bern" && $0.active && $0.firstName.hasPrefix("Bo")
        }
        expectCompound(found.plan, index: "city,active,firstName", leading: [[.string("Bern")], [.bool(true)]], next: .prefix("Bo"))
        #expect(!found.expected.isEmpty && found.ids == found.expected)
    }

    @Test func theOrderAfterTheEqualitiesNeedsNoSortInEitherDirection() throws {
        for descending in [false, true] {
            let sort = descending ? "firstName desc" : "firstName"
            let found = try run("city == 'Oslo' AND active == false", sort: sort, limit: 4,
                                filter: { $0.city == "Oslo" && !$0.active },
                                order: { a, b in a.firstName != b.firstName ? (descending ? a.firstName > b.firstName : a.firstName < b.firstName) : a.id < b.id })
            expectCompound(found.plan, index: "city,active,firstName", leading: [[.string("Oslo")], [.bool(false)]], next: .all)
            #expect(found.plan.orderFromAccess && found.plan.reversed == descending && found.plan.sort.isEmpty, "\(found.plan)")
            #expect(found.ids == found.expected && found.ids.count == 4, "\(found.ids) \(found.expected)")
        }
    }

    @Test func inOnTheLeadingFieldProbesEachValue() throws {
        let found = try run("lastName IN {'Name1', 'Name4', 'Name9'} AND lucky == 3") {
            ["Name1", "Name4", "Name9"].contains($0.lastName) && $0.lucky == 3
        }
        expectCompound(found.plan, index: "lastName,lucky", leading: [[.string("Name1"), .string("Name4"), .string("Name9")]],
                       next: .points([.int(3)]))
        #expect(!found.expected.isEmpty && found.ids == found.expected)
    }

    @Test func aFoldedLeadingFieldScansItsKeysAndFiltersTheRest() throws {
        let found = try run("firstName ==[cd] 'asa3' AND lucky > 10") { $0.firstName == "Åsa3" && $0.lucky > 10 }
        expectCompound(found.plan, index: "firstName[cd],lucky", leading: [[.string("asa3")]],
                       next: .range(QueryPlan.ValueRange(lower: .int(10), lowerInclusive: false)), exact: false)
        #expect(!found.expected.isEmpty && found.ids == found.expected)
    }
}
