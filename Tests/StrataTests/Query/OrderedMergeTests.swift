import Foundation
import Testing
import TestSupport
@testable import Strata

/// An `IN` on a compound index's leading fields with the order of its later fields: each value's
/// stretch of the index is in that order, and the executor merges them (no sort, no top-k), in
/// either direction, reading about as many records as it returns. Long values whose keys were
/// cut still come in the order of their full values.
@Suite struct OrderedMergeTests {
    let dir: TemporaryDirectory
    let store: Store
    let residents: [Resident]

    init() throws { (store, dir, residents) = try Resident.store() }

    /// The plan, the analyzed steps, the ids the query returns, and the ids sorting every
    /// matching resident returns.
    func run(_ predicate: String, _ arguments: any Sendable..., sort: String, limit: Int?, filter: (Resident) -> Bool,
             order: (Resident, Resident) -> Bool) throws -> (plan: QueryPlan, steps: [QueryPlan.Step], ids: [Int64], expected: [Int64]) {
        try store.read { tx in
            var request = try tx.query(Resident.self).where(predicate, arguments: arguments).sorted(by: sort)
            if let limit { request = request.limit(limit) }
            let expected = residents.filter(filter).sorted(by: order).prefix(limit ?? .max).map(\.id)
            let (plan, steps) = try request.analyze()
            return (plan, steps, try request.ids(), Array(expected))
        }
    }

    static func byLucky(descending: Bool) -> (Resident, Resident) -> Bool {
        { a, b in a.lucky != b.lucky ? (descending ? a.lucky > b.lucky : a.lucky < b.lucky) : a.id < b.id }
    }

    @Test func inOnTheLeadingFieldThenItsOrderIsMergedInEitherDirection() throws {
        let names = ["Name1", "Name4", "Name9"]
        for descending in [false, true] {
            let found = try run("lastName IN {'Name1', 'Name4', 'Name9'}", sort: descending ? "lucky desc" : "lucky", limit: 10,
                                filter: { names.contains($0.lastName) }, order: Self.byLucky(descending: descending))
            guard case .indexScan("lastName,lucky", _, _) = found.plan.access else {
                Issue.record("not the compound index: \(found.plan)")
                continue
            }
            #expect(found.plan.merge == .laterFields(after: 1) && found.plan.reversed == descending, "\(found.plan)")
            #expect(found.plan.sort.isEmpty && !found.plan.description.contains("TopK"), "\(found.plan)")
            #expect(found.ids == found.expected && found.ids.count == 10, "\(found.ids) \(found.expected)")
            // The merge reads the records it returns, no more.
            #expect(found.steps.first?.operation == "IndexMerge" && found.steps.first?.actualRows == 10, "\(found.plan.tree(found.steps))")
        }
    }

    @Test func withoutALimitEveryMatchComesInOrder() throws {
        let names = ["Name2", "Name3", "Name5", "Name12"]
        let found = try run("lastName IN {'Name2', 'Name3', 'Name5', 'Name12'}", sort: "lucky desc", limit: nil,
                            filter: { names.contains($0.lastName) }, order: Self.byLucky(descending: true))
        #expect(found.plan.merge == .laterFields(after: 1), "\(found.plan)")
        #expect(found.ids == found.expected && found.ids.count > 500)
    }

    @Test func inThenARangeOnTheNextFieldIsMergedByThatField() throws {
        let from = Date(timeIntervalSince1970: 1_600_000_000 + 200 * 3_600)
        let found = try run("lastName IN {'Name0', 'Name7'} AND joined >= %@", from, sort: "joined desc", limit: 6,
                            filter: { ["Name0", "Name7"].contains($0.lastName) && $0.joined >= from },
                            order: { a, b in a.joined != b.joined ? a.joined > b.joined : a.id < b.id })
        #expect(found.plan.merge == .laterFields(after: 1) && found.plan.sort.isEmpty, "\(found.plan)")
        #expect(found.ids == found.expected && found.ids.count == 6)
    }
}

extension OrderedMergeTests {
    /// One stretch merged alone, read in chunks that resume after their last entry, yields the
    /// entries an index walk yields, in either direction, at the index's first, middle and last
    /// keys (after `MDB_LAST` a cursor finds no further duplicates unless it seeks its key anew).
    @Test func aStretchReadInChunksIsTheWalkOfItsKeys() throws {
        try store.read { tx in
            let context = try #require(try tx.context(named: "Resident"))
            let descriptor = try #require(context.schema.indexes.first { $0.name == "lastName,lucky" })
            let database = try #require(context.indexes[descriptor.name])
            let probe = IndexProbe(transaction: tx, database: database, fields: descriptor.fields)
            for name in ["Name0", "Name5", "Name9"] {
                for reversed in [false, true] {
                    let condition = QueryPlan.IndexCondition.points([.string(name)])
                    var walked: [[UInt8]] = []
                    try probe.walk(condition, reversed: reversed) { _, primaryKey in walked.append(primaryKey); return true }
                    let stretches = try #require(probe.stretches(condition, after: 1))
                    var merged: [[UInt8]] = []
                    try tx.lmdb {
                        var merge = try IndexMerge(transaction: tx, sources: stretches.map { .stretch(database, $0.bounds, leadingLength: $0.leadingLength) },
                                                   chunk: 1, descending: reversed)
                        while let entry = try merge.nextEntry() {
                            #expect(entry.runKey == nil)
                            merged.append(entry.primaryKey)
                        }
                    }
                    #expect(walked.count > 100 && merged == walked, "\(name) reversed: \(reversed)")
                }
            }
        }
    }
}

extension OrderedMergeTests {
    /// Values longer than an index key are stored cut, so values that differ only past the cut
    /// share a key and sit in primary key order; the merge hands them on together and the
    /// executor orders them by their full values, in either direction.
    @Test func longValuesCutInTheIndexComeInTheOrderOfTheirFullValues() throws {
        let (store, dir) = try makeStore()
        let long = String(repeating: "x", count: IndexKey.maxLength + 20)
        let residents = (1...1_500).map { (id: Int64) in
            var resident = Resident.sample(id)
            // Later ids get smaller suffixes, so primary key order is not the values' order.
            resident.firstName = id % 100 == 0 ? "y\(id)" : long + String(format: "%04d", 2_000 - id)
            return resident
        }
        try store.write { tx in try tx.insert(residents) }
        for descending in [false, true] {
            try store.read { tx in
                let request = try tx.query(Resident.self).where("city IN {'Berlin', 'Oslo'} AND active == true")
                    .sorted(by: descending ? "firstName desc" : "firstName").limit(25)
                let plan = try request.explain()
                #expect(plan.merge == .laterFields(after: 2) && plan.sort.isEmpty, "\(plan)")
                let expected = residents.filter { ["Berlin", "Oslo"].contains($0.city) && $0.active }
                    .sorted { a, b in a.firstName != b.firstName ? (descending ? a.firstName > b.firstName : a.firstName < b.firstName) : a.id < b.id }
                    .prefix(25).map(\.id)
                #expect(try request.ids() == Array(expected), "descending: \(descending)")
                // Records too: the run of a cut key reads its ordering fields (made at its first match).
                #expect(try request.all().map(\.id) == Array(expected), "descending: \(descending)")
            }
        }
        withExtendedLifetime(dir) {}
    }
}

extension OrderedMergeTests {
    /// The order may start at a field the condition pins: `city IN {…} AND active == true ORDER BY
    /// active, firstName` merges the stretches of each city under `active = true` by active, then
    /// firstName.
    @Test func anOrderFromAPinnedFieldOnMergesTheWholeCombinations() throws {
        let found = try run("city IN {'Berlin', 'Oslo'} AND active == true", sort: "active desc, firstName desc", limit: 12,
                            filter: { ["Berlin", "Oslo"].contains($0.city) && $0.active },
                            order: { a, b in a.firstName != b.firstName ? a.firstName > b.firstName : a.id < b.id })
        #expect(found.plan.merge == .laterFields(after: 1) && found.plan.sort.isEmpty, "\(found.plan)")
        #expect(found.ids == found.expected && found.ids.count == 12, "\(found.ids) \(found.expected)")
    }
}
