import Foundation
import Testing
import TestSupport
@testable import Strata

/// Answers an index gives alone: counts, existence and keys read from index entries, no record;
/// primary key order from the few keys under a compound index's leading values, merged; and
/// one estimate for one condition, whichever index led by its field is asked.
@Suite struct IndexOnlyAnswerTests {
    let dir: TemporaryDirectory
    let store: Store
    let residents: [Resident]

    init() throws { (store, dir, residents) = try Resident.store() }

    /// How `count()` of the predicate was found, and the count.
    func counted(_ predicate: String) throws -> (count: Int, source: QueryExecutor.CountSource, plan: String) {
        try store.read { tx in
            let request = try tx.query(Resident.self).where(predicate).sorted(by: "firstName")
            let answer = try request.countWithSource()
            // explainCount() shows the plan count() runs: the order asked for is not sorted.
            #expect(try request.explainCount().description == answer.plan?.description)
            return (answer.count, answer.source, answer.plan?.description ?? "")
        }
    }

    @Test func aCountOfACompoundConditionReadsIndexEntriesOnly() throws {
        let range = try counted("lastName == 'Name3' AND lucky BETWEEN {2, 9}")
        #expect(range.count == residents.filter { $0.lastName == "Name3" && (2...9).contains($0.lucky) }.count && range.count > 0)
        #expect(range.source == .indexEntries, "\(range.plan)")
        #expect(range.plan == "IndexScan(Resident.lastName,lucky (lastName = \"Name3\", lucky [2, 9]))")
        let pinned = try counted("city == 'Oslo' AND active == true")
        #expect(pinned.count == residents.filter { $0.city == "Oslo" && $0.active }.count && pinned.source == .indexEntries, "\(pinned.plan)")
        // A condition the index does not hold is checked on the records.
        let rest = try counted("lastName == 'Name3' AND firstName == 'Ann3'")
        #expect(rest.count == residents.filter { $0.lastName == "Name3" && $0.firstName == "Ann3" }.count && rest.source == .records)
        // No plan sorts what it only counts.
        #expect(!range.plan.contains("Sort") && !pinned.plan.contains("Sort"))
    }

    @Test func existsAndIdsOfAnExactIndexScanReadNoRecord() throws {
        try store.read { tx throws in
            let request = try tx.query(Resident.self).where("lastName == 'Name4' AND lucky == 4")
            let query = try request.prepare(try #require(try request.resolvedContext())).query
            let plan = try request.explain()
            let executor = try QueryExecutor(transaction: tx, context: try #require(try request.resolvedContext()), plan: plan,
                                             predicate: query.predicate)
            #expect(executor.answersFromKeys, "\(plan)")
            let expected = residents.filter { $0.lastName == "Name4" && $0.lucky == 4 }.map(\.id)
            #expect(try !expected.isEmpty && request.ids() == expected)
            #expect(try request.exists())
            #expect(try !tx.query(Resident.self).where("lastName == 'Name4' AND lucky == 99").exists())
            // A filter left over: the records are read.
            let filtered = try tx.query(Resident.self).where("lastName == 'Name4' AND firstName == 'Bob1'")
            let filteredExecutor = try QueryExecutor(transaction: tx, context: try #require(try filtered.resolvedContext()),
                                                     plan: try filtered.explain(), predicate: filtered.query.predicate)
            #expect(!filteredExecutor.answersFromKeys)
        }
    }

    @Test func aLeadingValueOverFewKeysMergesThemInPrimaryKeyOrder() throws {
        try store.read { tx throws in
            let request = try tx.query(Resident.self).where("city == 'Bern' AND active == true").limit(25)
            let plan = try request.explain()
            #expect(plan.merge == .primaryKey && plan.sort.isEmpty, "\(plan)")
            #expect(plan.description == "IndexMerge(Resident.city,active,firstName (city = \"Bern\", active = true)) → Limit(25)")
            let expected = residents.filter { $0.city == "Bern" && $0.active }.map(\.id)
            #expect(try request.ids() == Array(expected.prefix(25)))
            #expect(try request.all().map(\.id) == Array(expected.prefix(25)))
            #expect(try tx.query(Resident.self).where("city == 'Bern' AND active == true").ids() == expected)
        }
    }

    @Test func indexesLedByOneFieldAgreeOnItsEstimate() throws {
        // Names whose bytes interpolate badly ("Ba…" is a sliver of "Abe" to "Zhang"), each
        // under many records: the single-field index counts a key's duplicates at once, a
        // compound index's distinct keys stop the bounded count early.
        let (store, dir) = try makeStore()
        let names = ["Abe", "Bailey", "Baker", "Bauer", "Garcia", "Müller", "Zhang"]
        let people = residents.map { resident in
            var resident = resident
            resident.lastName = names[Int(resident.id) % names.count]
            return resident
        }
        try store.write { tx in try tx.insert(people) }
        try store.read { tx throws in
            let request = try tx.query(Resident.self).where("lastName BEGINSWITH 'Ba'").sorted(by: "lastName").limit(30)
            let plan = try request.explain()
            #expect(plan.description == "IndexScan(Resident.lastName BEGINSWITH \"Ba\") → Limit(30)", "\(plan)")
            let expected = people.filter { $0.lastName.hasPrefix("Ba") }
                .sorted { ($0.lastName, $0.id) < ($1.lastName, $1.id) }.prefix(30).map(\.id)
            #expect(try request.ids() == Array(expected))
        }
        withExtendedLifetime(dir) {}
    }
}
