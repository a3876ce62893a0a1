import Foundation
import Testing
import TestSupport
@testable import Strata

/// An index scan reads its entries' records a batch at a time in primary-key order
/// (``RecordBatch``): the results keep the index's order, and no more records are read than the
/// limit still wants.
@Suite struct RecordBatchTests {
    let dir: TemporaryDirectory
    let store: Store
    let residents: [Resident]

    init() throws { (store, dir, residents) = try Resident.store() }

    /// The ids `predicate` finds in `(lastName, lucky)`'s order, and the records the executor read
    /// for its candidates and the candidates it handed on.
    func run(_ predicate: String, descending: Bool = false, limit: Int?, offset: Int = 0) throws
        -> (ids: [Int64], recordsRead: Int, candidates: Int, plan: String) {
        try store.read { tx throws in
            var request = try tx.query(Resident.self).where(predicate).sorted(by: \.lucky, descending ? .descending : .ascending)
            if let limit { request = request.limit(limit) }
            if offset > 0 { request = request.offset(offset) }
            let context = try #require(try request.resolvedContext())
            let plan = try request.explain()
            let executor = try QueryExecutor(transaction: tx, context: context, plan: plan,
                                             predicate: try request.prepare(context).query.predicate)
            var keys: [[UInt8]] = []
            try executor.forEachResult { keys.append($0.key); return true }
            var ids: [Int64] = []
            for key in keys {
                var position = 0
                ids.append(try Int64.readOrderedKey(from: key, at: &position))
            }
            #expect(try request.all().map(\.id) == ids)
            return (ids, executor.recordsRead, executor.candidatesRead, plan.description)
        }
    }

    /// The residents `keep` selects of lastName Name3, by lucky (descending when asked) then id.
    func expected(descending: Bool = false, _ keep: (Resident) -> Bool = { _ in true }) -> [Int64] {
        residents.filter { $0.lastName == "Name3" && keep($0) }
            .sorted { ($0.lucky, descending ? -$0.id : $0.id) < ($1.lucky, descending ? -$1.id : $1.id) }
            .map(\.id)
    }

    @Test func resultsKeepTheIndexOrderWhoseKeysAreNotInPrimaryKeyOrder() throws {
        let all = expected()
        #expect(all.count > 100 && all != all.sorted())
        let whole = try run("lastName == 'Name3'", limit: nil)
        #expect(whole.plan == "IndexScan(Resident.lastName,lucky = \"Name3\")")
        #expect(whole.ids == all)
        #expect(whole.recordsRead == all.count && whole.candidates == all.count)
        let descending = try run("lastName == 'Name3'", descending: true, limit: nil)
        #expect(Set(descending.ids) == Set(all))
        #expect(descending.ids.map { id in residents.first { $0.id == id }!.lucky } == all.map { id in residents.first { $0.id == id }!.lucky }.reversed())
    }

    @Test func aLimitReadsNoRecordAheadOfWhatItWants() throws {
        for limit in [1, 7, 30, 64, 65, 150] {
            let found = try run("lastName == 'Name3'", limit: limit)
            #expect(found.ids == Array(expected().prefix(limit)))
            #expect(found.recordsRead == Swift.min(limit, expected().count), "LIMIT \(limit): \(found.recordsRead) records read")
        }
        let paged = try run("lastName == 'Name3'", limit: 20, offset: 45)
        #expect(paged.ids == Array(expected()[45..<65]) && paged.recordsRead == 65)
        // A filter the index cannot check: every record read was a candidate handed on, and the
        // reads stop at the last match the limit wants.
        let filtered = try run("lastName == 'Name3' AND firstName BEGINSWITH 'A'", limit: 9)
        let kept = expected { $0.firstName.hasPrefix("A") }
        #expect(filtered.ids == Array(kept.prefix(9)))
        #expect(filtered.recordsRead == filtered.candidates)
        #expect(filtered.recordsRead == expected().firstIndex(of: kept[8])! + 1)
    }
}
