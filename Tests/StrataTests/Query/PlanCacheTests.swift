import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataQuery
@testable import StrataFormat

/// Queries of one shape run the access path kept for the shape, made again from their constants
/// (`PlanCache`, `QueryPlanner.rebound`): they get the plans a store that never planned the shape
/// makes while their estimates stay near, and a kept choice gives way when a constant finds far
/// more entries, when an index is added, or when the record count moves.
@Suite struct PlanCacheTests {
    /// The plan of `query` on a new `Store` for the same files, whose cache is empty.
    func freshPlan(_ directory: TemporaryDirectory, _ query: (ReadTransaction) -> QueryRequest<Ticket>) throws -> QueryPlan {
        let fresh = try Store(path: directory.path("store"))
        return try fresh.read { tx in try query(tx).explain() }
    }

    func filledStore() throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(Ticket.tickets(6_000)) }
        return (store, dir)
    }

    @Test func aShapeIsKeptOnceAndItsRepeatsGetTheFreshPlans() throws {
        let (store, dir) = try filledStore()
        for rank in [5, 77, 1_234, 5_999, -1] {
            let query = { (tx: ReadTransaction) in tx.query(Ticket.self).where(\.rank == rank) }
            let plan = try store.read { tx in try query(tx).explain() }
            #expect(plan == (try freshPlan(dir, query)), "rank \(rank)")
            #expect(plan.description.hasPrefix("IndexScan(Ticket.rank"), "\(plan)")
        }
        #expect(store.planCache.count == 1, "five constants, one shape")
        _ = try store.read { tx in try tx.query(Ticket.self).where(\.rank > 5_990).explain() }
        _ = try store.read { tx in try tx.query(Ticket.self).where(\.rank == 3).limit(5).explain() }
        #expect(store.planCache.count == 3, "another operator and a limit are other shapes")
        withExtendedLifetime(dir) {}
    }

    @Test func eachKindOfKeptPathIsMadeAgainFromTheNewConstants() throws {
        let (store, dir) = try filledStore()
        // A compound index's leading equality then a range on its next field, a range of two
        // conjuncts, a union of one conjunct's operands, an IN list: each constant set gets the
        // plan a store that never planned the shape makes, and results follow the constants.
        typealias Shape = (prefix: String, query: (Int) -> (ReadTransaction) -> QueryRequest<Ticket>, matches: (Int, Ticket) -> Bool)
        let shapes: [Shape] = [
            ("IndexMerge(Ticket.scope,stamp (scope = \"S3\", stamp [", { x in { tx in tx.query(Ticket.self).where(\.scope == "S3" && \.stamp >= x && \.stamp < x + 50) } },
             { x, t in t.scope == "S3" && t.stamp >= x && t.stamp < x + 50 }),
            ("IndexMerge(Ticket.rank [", { x in { tx in tx.query(Ticket.self).where(\.rank >= x && \.rank <= x + 20) } },
             { x, t in t.rank >= x && t.rank <= x + 20 }),
            ("Union(IndexScan(Ticket.rank", { x in { tx in tx.query(Ticket.self).where(\.rank == x || \.rank == x + 7) } },
             { x, t in t.rank == x || t.rank == x + 7 }),
            ("IndexMerge(Ticket.rank IN", { x in { tx in tx.query(Ticket.self).where(.in(\.rank, [x, x + 3, x + 9])) } },
             { x, t in [x, x + 3, x + 9].contains(t.rank) }),
        ]
        let tickets = Ticket.tickets(6_000)
        for shape in shapes {
            for x in [100, 2_500, 4_900] {
                let plan = try store.read { tx in try shape.query(x)(tx).explain() }
                #expect(plan == (try freshPlan(dir, shape.query(x))), "\(shape.prefix) at \(x)")
                #expect(plan.description.hasPrefix(shape.prefix), "\(plan)")
                let found = try store.read { tx in try shape.query(x)(tx).all().map(\.id) }
                let expected = tickets.filter { shape.matches(x, $0) }.map(\.id)
                #expect(found == expected && !found.isEmpty, "\(shape.prefix) at \(x)")
            }
        }
        #expect(store.planCache.count == shapes.count)
        withExtendedLifetime(dir) {}
    }

    @Test func aRepeatedShapeWeighsNoOtherAccessPath() throws {
        let (store, dir) = try filledStore()
        // Ten ranks in scope "I" (1,800 records): the rank range is chosen and kept. Thirty ranks
        // in scope "R" (six records) would go through the scope index on a store without the
        // choice, but thirty is within four times the kept estimate of the kept path (at least
        // 16): the kept path runs, reading the thirty.
        let query = { (low: Int, high: Int, scope: String) in { (tx: ReadTransaction) in
            tx.query(Ticket.self).where(\.rank >= low && \.rank < high && \.scope == scope) } }
        let kept = try store.read { tx in try query(1_000, 1_010, "I")(tx).explain() }
        #expect(kept.description.hasPrefix("IndexMerge(Ticket.rank [1000, 1010))"), "\(kept)")
        let repeated = try store.read { tx in try query(3_000, 3_030, "R")(tx).explain() }
        #expect(repeated.description.hasPrefix("IndexMerge(Ticket.rank [3000, 3030))"), "\(repeated)")
        #expect(repeated.estimatedRows == 30)
        let fresh = try freshPlan(dir, query(3_000, 3_030, "R"))
        #expect(fresh.description.hasPrefix("IndexMerge(Ticket.scope,stamp = \"R\")"), "\(fresh)")
        let wide = try store.read { tx in try query(3_000, 3_100, "R")(tx).explain() }
        #expect(wide.description.hasPrefix("IndexMerge(Ticket.scope,stamp = \"R\")"), "a hundred ranks is past the kept path's drift: \(wide)")
        withExtendedLifetime(dir) {}
    }

    @Test func aConstantThatFindsFarMoreEntriesIsPlannedInFull() throws {
        let (store, dir) = try filledStore()
        // "R" holds six records, "S4" about 380, "I" 1,800: the compound scan for the first, the
        // rank index's order for the others (ten in rank order are near its start), whichever
        // came first.
        for scope in ["R", "I", "R", "S4", "I"] {
            let query = { (tx: ReadTransaction) in tx.query(Ticket.self).where(\.scope == scope).sorted(by: \.rank).limit(10) }
            let plan = try store.read { tx in try query(tx).explain() }
            #expect(plan == (try freshPlan(dir, query)), "scope \(scope)")
            let walk = plan.description.hasPrefix("IndexOrder(Ticket.rank)")
            #expect(walk == (scope != "R"), "\(scope): \(plan)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func anIndexAddedAfterTheChoiceIsWeighed() throws {
        let (store, dir) = try filledStore()
        let query = { (tx: ReadTransaction) in tx.query(Ticket.self).where(\.rank >= 100 && \.rank < 400 && \.stamp == 42) }
        let before = try store.read { tx in try query(tx).explain() }
        #expect(before.description.hasPrefix("IndexScan(Ticket.rank"), "\(before)")
        try store.write { tx in try tx.addIndex(IndexDescription(fields: ["stamp"]), toEntity: "Ticket") }
        let after = try store.read { tx in try query(tx).explain() }
        #expect(after.description.hasPrefix("IndexScan(Ticket.stamp"), "one entry, not 300: \(after)")
        #expect(after == (try freshPlan(dir, query)))
        withExtendedLifetime(dir) {}
    }

    @Test func aChoiceMadeAtLessThanHalfTheRecordsIsMadeAgain() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(Ticket.tickets(3_000)) }
        let request = { (tx: ReadTransaction) in tx.query(Ticket.self).where(\.rank == 7) }
        func keptAt() throws -> Int? {
            try store.read { tx in
                let shape = PlanCache.Shape(request(tx).query.retyped(as: Void.self), try #require(try tx.context(named: "Ticket")))
                return store.planCache.choice(for: shape)?.records
            }
        }
        _ = try store.read { tx in try request(tx).explain() }
        #expect(try keptAt() == 3_000)
        try store.write { tx in try tx.insert(Array(Ticket.tickets(6_000).dropFirst(3_000))) }
        _ = try store.read { tx in try request(tx).explain() }
        #expect(try keptAt() == 3_000, "twice the records: the choice holds")
        try store.write { tx in try tx.insert(Array(Ticket.tickets(6_001).dropFirst(6_000))) }
        _ = try store.read { tx in try request(tx).explain() }
        #expect(try keptAt() == 6_001, "more than twice: planned in full and kept again")
        withExtendedLifetime(dir) {}
    }

    @Test func plansThatReadNoIndexOrAWholeOneOrIntersectAreNotKept() throws {
        let (store, dir) = try filledStore()
        try store.read { tx in
            _ = try tx.query(Ticket.self).where(\.stamp == 3).explain()           // no index leads with stamp: a scan
            _ = try tx.query(Ticket.self).where(\.id == 3).explain()              // the primary key
            let walk = try tx.query(Ticket.self).where(\.scope == "I").sorted(by: \.rank).limit(10).explain()
            #expect(walk.description.hasPrefix("IndexOrder(Ticket.rank)"), "\(walk)")
            let both = try tx.query(Ticket.self).where(\.rank < 2_000 && \.scope == "I").explain()
            #expect(both.description.hasPrefix("Intersection("), "\(both)")
        }
        #expect(store.planCache.count == 0)
        withExtendedLifetime(dir) {}
    }

    @Test func theStoreKeepsAtMostItsCapacityOfShapes() throws {
        let (store, dir) = try filledStore()
        try store.read { tx in
            // An IN list of each length is a shape of its own.
            for length in 1...PlanCache.capacity {
                _ = try tx.query(Ticket.self).where(.in(\.rank, 0..<length)).explain()
            }
            #expect(store.planCache.count == PlanCache.capacity)
            _ = try tx.query(Ticket.self).where(.in(\.rank, 0...PlanCache.capacity)).explain()
            #expect(store.planCache.count == 1, "forgotten when full, then the new one kept")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aChoiceHoldsWhileTheCountAndTheEstimateStayWithinTheirFactors() throws {
        #expect(PlanCache.within(0, 0, factor: 2) && PlanCache.within(0, 1, factor: 2) && PlanCache.within(1, 2, factor: 2))
        #expect(!PlanCache.within(1, 3, factor: 2) && !PlanCache.within(0, 3, factor: 2))
        #expect(PlanCache.within(100, 25, factor: 4) && !PlanCache.within(100, 24, factor: 4))
        let plan = QueryPlan(entity: "Ticket", access: .indexScan(index: "rank", fields: [], condition: .points([.int(5)])),
                             reversed: false, residual: .constant(true), sort: [], orderFromAccess: true, offset: 0, limit: nil,
                             estimatedRows: 10)
        let choice = try #require(PlanCache.Choice(plan, conjuncts: [0], records: 1_000))
        #expect(choice.holds(records: 500) && choice.holds(records: 2_000) && !choice.holds(records: 2_001) && !choice.holds(records: 499))
        var other = plan
        other.access = .indexScan(index: "rank", fields: [], condition: .points([.int(9)]))
        other.estimatedRows = 64
        #expect(choice.isConfirmed(by: other), "another constant, four times the rows (10 counted as 16)")
        other.estimatedRows = 65
        #expect(!choice.isConfirmed(by: other))
        other.estimatedRows = 0
        #expect(choice.isConfirmed(by: other), "fewer rows keep the choice")
        let large = try #require(PlanCache.Choice({ var plan = plan; plan.estimatedRows = 1_000; return plan }(), conjuncts: [0], records: 1_000))
        other.estimatedRows = 4_000
        #expect(large.isConfirmed(by: other))
        other.estimatedRows = 4_001
        #expect(!large.isConfirmed(by: other))
        other.estimatedRows = 10
        other.access = .indexScan(index: "rank", fields: [], condition: .points([.int(9), .int(10)]))
        #expect(!choice.isConfirmed(by: other), "another shape of access")
        other.access = .fullScan
        #expect(PlanCache.Choice(other, conjuncts: [], records: 1_000) == nil)
    }

    /// A shape is hashed by its entity and query alone; its indexes still tell shapes apart.
    @Test func shapesOfOtherIndexesAreOtherShapes() throws {
        var query = Query<Void>()
        query.predicate = .comparison(FieldComparison(field: ["rank"], op: .equal, value: .int(0)))
        let one = PlanCache.Shape(entity: "Ticket", indexes: ["rank"], query: query)
        let two = PlanCache.Shape(entity: "Ticket", indexes: ["rank", "scope"], query: query)
        #expect(one != two && one.hashValue == two.hashValue)
        var other = query
        other.limit = 5
        #expect(one != PlanCache.Shape(entity: "Ticket", indexes: ["rank"], query: other))
        let plan = QueryPlan(entity: "Ticket", access: .indexScan(index: "rank", fields: [], condition: .points([.int(0)])),
                             reversed: false, residual: .constant(true), sort: [], orderFromAccess: true, offset: 0, limit: nil,
                             estimatedRows: 10)
        let cache = PlanCache()
        cache.keep(try #require(PlanCache.Choice(plan, conjuncts: [0], records: 1_000)), for: one)
        #expect(cache.choice(for: one) != nil && cache.choice(for: two) == nil)
        #expect(cache.choice(for: PlanCache.Shape(entity: "Ticket", indexes: ["rank"], query: query)) != nil)
    }
}

/// A kept path's estimate reads only what could undo its choice (`QueryPlanner.keptAllowance`):
/// leading values of a compound index that its statistics show within the allowance are not
/// counted, a range is interpolated without its count, and a skewed value is still counted and
/// still moves the query to another index.
extension PlanCacheTests {
    func scoped(_ scope: String) -> (ReadTransaction) -> QueryRequest<Ticket> {
        { tx in tx.query(Ticket.self).where(\.scope == scope) }
    }

    /// The plan of `query` in `store` and the index reads made to estimate it.
    func planAndReads(_ store: Store, _ query: (ReadTransaction) -> QueryRequest<Ticket>) throws -> (QueryPlan, Int) {
        try store.read { tx in
            let before = tx.indexEstimateReads
            let plan = try query(tx).explain()
            return (plan, tx.indexEstimateReads - before)
        }
    }

    @Test func valuesThatAreNotFrequentAreEstimatedWithoutReadingTheIndex() throws {
        let (store, dir) = try filledStore()
        let tickets = Ticket.tickets(6_000)
        let (kept, keptReads) = try planAndReads(store, scoped("S3"))
        #expect(kept.description.contains("Ticket.scope,stamp = \"S3\""), "\(kept)")
        #expect(keptReads > 0, "planned in full: counted")
        // "S5" and "S7" are frequent (about 380 entries each, within four times the kept
        // estimate), "R" is not (six): the statistics tell all three, and no index is read.
        for scope in ["S5", "R", "S7"] {
            let (plan, reads) = try planAndReads(store, scoped(scope))
            #expect(reads == 0, "\(scope): \(plan)")
            #expect(plan == (try freshPlan(dir, scoped(scope))), "\(scope)")
            #expect(try store.read { tx in try scoped(scope)(tx).ids() } == tickets.filter { $0.scope == scope }.map(\.id))
        }
        // "I" (1,800 entries, 30 %) is past the allowance: counted and planned in full, it leaves
        // the index for a scan.
        let (skewed, skewedReads) = try planAndReads(store, scoped("I"))
        #expect(skewedReads > 0)
        #expect(skewed == (try freshPlan(dir, scoped("I"))) && skewed.description.hasPrefix("FullScan(Ticket)"), "\(skewed)")
        withExtendedLifetime(dir) {}
    }

    @Test func aFrequentValueBeyondTheAllowanceIsCountedAndMovesTheQueryToAnotherIndex() throws {
        let (store, dir) = try filledStore()
        let query = { (scope: String) in { (tx: ReadTransaction) in tx.query(Ticket.self).where(\.scope == scope).sorted(by: \.rank).limit(10) } }
        let (rare, _) = try planAndReads(store, query("R"))
        #expect(rare.description.hasPrefix("IndexScan(Ticket.scope,stamp") || rare.description.hasPrefix("IndexMerge(Ticket.scope,stamp"), "\(rare)")
        // Kept for six rows, the allowance is 64: "S5" (380, in the statistics) and "I" (1,800)
        // are counted, and walking the rank index in its order wins for both.
        for scope in ["S5", "I"] {
            let (plan, reads) = try planAndReads(store, query(scope))
            #expect(reads > 0, "\(scope)")
            #expect(plan.description.hasPrefix("IndexOrder(Ticket.rank)"), "\(scope): \(plan)")
            #expect(plan == (try freshPlan(dir, query(scope))), "\(scope)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aKeptRangeIsInterpolatedWithoutCountingItsEntries() throws {
        let (store, dir) = try filledStore()
        let range = { (low: Int) in { (tx: ReadTransaction) in tx.query(Ticket.self).where(\.rank >= low && \.rank < low + 500) } }
        let (first, fullReads) = try planAndReads(store, range(100))
        #expect(first.description.contains("Ticket.rank ["), "\(first)")
        for low in [1_000, 3_000, 5_000] {
            let (plan, reads) = try planAndReads(store, range(low))
            // One interpolation (the index's first and last keys), no count of 64 entries; the
            // estimate a count that reaches its limit would give.
            #expect(reads == 1 && fullReads > reads, "\(low): \(reads) against \(fullReads)")
            #expect(plan == (try freshPlan(dir, range(low))), "\(low)")
        }
        // A range of fewer entries than the count's limit is still counted, exactly.
        let (narrow, narrowReads) = try planAndReads(store, { tx in tx.query(Ticket.self).where(\.rank >= 4_000 && \.rank < 4_020) })
        #expect(narrowReads == 2 && narrow.estimatedRows == 20, "\(narrow)")
        withExtendedLifetime(dir) {}
    }
}

/// A kept path that no other plan can beat for any constants (`QueryPlanner.isBoundAlone`) is
/// bound to a repeated query's constants without an estimate; `explain()` still estimates it.
extension PlanCacheTests {
    /// The ids `query` returns in `store` and the index reads made to estimate its plan.
    func idsAndReads(_ store: Store, _ query: (ReadTransaction) -> QueryRequest<Ticket>) throws -> ([Int64], Int) {
        try store.read { tx in
            let before = tx.indexEstimateReads
            let ids = try query(tx).all().map(\.id)
            return (ids, tx.indexEstimateReads - before)
        }
    }

    func stampWindow(_ scope: String, _ low: Int, limit: Int? = 10, sorted: Bool = true) -> (ReadTransaction) -> QueryRequest<Ticket> {
        { tx in
            var query = tx.query(Ticket.self).where(\.scope == scope && \.stamp >= low && \.stamp < low + 900)
            if sorted { query = query.sorted(by: \.stamp) }
            if let limit { query = query.limit(limit) }
            return query
        }
    }

    func expectedIDs(_ scope: String, _ low: Int, limit: Int? = 10, sorted: Bool = true) -> [Int64] {
        var matches = Ticket.tickets(6_000).filter { $0.scope == scope && $0.stamp >= low && $0.stamp < low + 900 }
        if sorted { matches.sort { ($0.stamp, $0.id) < ($1.stamp, $1.id) } }
        return Array(matches.prefix(limit ?? matches.count)).map(\.id)
    }

    @Test func anExactPathInTheRequestedOrderUnderALimitIsBoundWithoutAnEstimate() throws {
        let (store, dir) = try filledStore()
        let (first, firstReads) = try idsAndReads(store, stampWindow("S3", 100))
        #expect(first == expectedIDs("S3", 100) && firstReads > 0, "planned in full: estimated")
        // The skewed scope too: whatever a value holds, the path reads at most ten entries.
        for (scope, low) in [("S5", 2_000), ("I", 4_000), ("R", 0), ("S3", 5_500)] {
            let (ids, reads) = try idsAndReads(store, stampWindow(scope, low))
            #expect(reads == 0, "\(scope) at \(low)")
            #expect(ids == expectedIDs(scope, low), "\(scope) at \(low)")
            // explain() estimates the same plan for its constants, as a store that never planned it.
            let (explained, explainReads) = try planAndReads(store, stampWindow(scope, low))
            let fresh = try freshPlan(dir, stampWindow(scope, low))
            #expect(explainReads > 0 && explained == fresh, "\(scope): \(explained)")
            #expect(explained.description.contains("Ticket.scope,stamp (scope = \"\(scope)\""), "\(explained)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func explainShowsTheBoundPathWhateverItsEstimate() throws {
        let (store, dir) = try filledStore()
        defer { withExtendedLifetime(dir) {} }
        func keptEstimate(_ query: (ReadTransaction) -> QueryRequest<Ticket>) throws -> Int? {
            try store.read { tx in
                let request = query(tx)
                let context = try #require(try request.resolvedContext())
                let shape = PlanCache.Shape(try request.prepare(context).query.retyped(as: Void.self), context)
                return store.planCache.choice(for: shape)?.estimatedRows
            }
        }
        // Kept for "R", a handful of entries (an allowance of 64); "I" holds about 270 in its window.
        _ = try idsAndReads(store, stampWindow("R", 0))
        let kept = try #require(try keptEstimate(stampWindow("R", 0)))
        #expect(kept < 16)
        let (explained, reads) = try planAndReads(store, stampWindow("I", 4_000))
        #expect(reads > 0 && explained.estimatedRows > 64, "estimated for its values: \(explained.estimatedRows)")
        #expect(explained.description.contains("Ticket.scope,stamp (scope = \"I\""), "\(explained)")
        // Shown as the query runs it: the choice stands, not planned again for the larger estimate.
        #expect(try keptEstimate(stampWindow("I", 4_000)) == kept)
        let (ids, idReads) = try idsAndReads(store, stampWindow("I", 4_000))
        #expect(idReads == 0 && ids == expectedIDs("I", 4_000))
    }

    @Test func anExactCountOrExistsIsBoundWithoutAnEstimate() throws {
        let (store, dir) = try filledStore()
        let count = { (scope: String, low: Int) in
            try store.read { tx in
                let before = tx.indexEstimateReads
                let found = try stampWindow(scope, low, limit: nil, sorted: false)(tx).count()
                return (found, tx.indexEstimateReads - before)
            }
        }
        // The answer is itself a count of the index's entries, tallied as one read.
        let (_, firstReads) = try count("S3", 100)
        #expect(firstReads > 1, "planned in full: estimated, then counted")
        for (scope, low) in [("S5", 2_000), ("I", 4_000), ("R", 0)] {
            let (found, reads) = try count(scope, low)
            #expect(reads == 1, "\(scope) at \(low): counted, not estimated")
            #expect(found == expectedIDs(scope, low, limit: nil, sorted: false).count, "\(scope) at \(low)")
        }
        // exists() walks the entries for its first (no count tallied): no read at all once bound.
        let exists = { (scope: String, low: Int) in
            try store.read { tx in
                let before = tx.indexEstimateReads
                let found = try stampWindow(scope, low, limit: nil, sorted: false)(tx).exists()
                return (found, tx.indexEstimateReads - before)
            }
        }
        #expect(try exists("S3", 100).1 > 0)
        for (scope, low) in [("S5", 2_000), ("R", 5_990), ("I", 4_000)] {
            let (found, reads) = try exists(scope, low)
            #expect(reads == 0 && found == !expectedIDs(scope, low, limit: nil, sorted: false).isEmpty, "\(scope) at \(low)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aPathAnotherPlanCouldBeatIsStillEstimated() throws {
        let (store, dir) = try filledStore()
        // Without a LIMIT the path reads every match, which a scan may read for less; without an
        // order a scan in key order could stop as early as the path.
        for (limit, sorted) in [(nil, true), (10, false)] as [(Int?, Bool)] {
            _ = try idsAndReads(store, stampWindow("S3", 100, limit: limit, sorted: sorted))
            let (ids, reads) = try idsAndReads(store, stampWindow("S5", 2_000, limit: limit, sorted: sorted))
            #expect(reads > 0, "limit \(String(describing: limit)), sorted \(sorted)")
            #expect(ids == expectedIDs("S5", 2_000, limit: limit, sorted: sorted))
        }
        withExtendedLifetime(dir) {}
    }
}
