import Foundation
import Testing
import TestSupport
@testable import Strata

/// `analyze()` gives every step its actual rows and time, the order steps between the filter and
/// the last step included.
@Suite struct AnalyzeTests {
    @Test func everyStepOfASortedWindowedQueryHasItsActualRows() throws {
        let (store, dir) = try makeStore()
        let residents = (1...600).map(Resident.sample)
        try store.write { tx in try tx.insert(residents) }
        try store.read { tx throws in
            // An index scan, a filter, then a top-k of offset + limit, the offset and the limit.
            let request = try tx.query(Resident.self).where("lastName == 'Name3' AND firstName BEGINSWITH 'A'")
                .sorted(by: "firstName desc").offset(3).limit(5)
            let (plan, steps) = try request.analyze()
            #expect(steps.map(\.operation) == ["IndexScan", "Filter", "TopK", "Offset", "Limit"], "\(plan)")
            let matching = residents.filter { $0.lastName == "Name3" && $0.firstName.hasPrefix("A") }.count
            let rows = steps.map(\.actualRows)
            #expect(rows == [residents.filter { $0.lastName == "Name3" }.count, matching, min(matching, 8), 5, 5], "\(plan.tree(steps))")
            #expect(steps.allSatisfy { $0.seconds != nil }, "\(plan.tree(steps))")
            #expect(plan.tree(steps).contains("TopK firstName desc, 8  (estimated "))
        }
        withExtendedLifetime(dir) {}
    }
}
