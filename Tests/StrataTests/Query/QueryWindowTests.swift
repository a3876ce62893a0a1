import Foundation
import Testing
import TestSupport
@testable import Strata

/// Limits and offsets at their extremes: the planner and the executor add them (`offset + limit`
/// records to keep, to walk, to read per merged source), so a query keeps both at most
/// ``Query/maximumWindow`` and no combination overflows.
@Suite struct QueryWindowTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...20).map { User.sample(Int64($0), "U\($0)", $0 % 2 == 0 ? "Even" : "Odd", lucky: $0 % 5) }) }
    }

    @Test func aLimitAndAnOffsetOfIntMaxAnswerInsteadOfOverflowing() throws {
        try store.read { tx throws in
            let all = tx.query(User.self)
            #expect(try all.limit(.max).offset(.max).all().isEmpty)
            #expect(try all.limit(.max).offset(19).all().map(\.id) == [20])
            #expect(try all.limit(.max).all().count == 20)
            // Sorted (top-k), through an OR (a merge of sources), counted and explained.
            #expect(try all.sorted(by: "luckyNumber desc").limit(.max).offset(.max - 1).all().isEmpty)
            #expect(try all.where("lastName == 'Odd' OR luckyNumber == 2").limit(.max).offset(.max).all().isEmpty)
            #expect(try all.where("lastName == 'Odd' OR luckyNumber == 2").limit(.max).all().count == 12)
            #expect(try all.limit(.max).offset(.max).count() == 0)
            _ = try all.sorted(by: "luckyNumber").limit(.max).offset(.max).explain()
            // A format string's LIMIT and OFFSET.
            let text = "lastName == 'Even' LIMIT 9223372036854775807 OFFSET 9223372036854775807"
            #expect(try tx.query(User.self, text).all().isEmpty)
        }
    }

    @Test func aQueryKeepsItsWindowWithinTheMaximum() {
        var query = Query<User>()
        query.limit = .max
        query.offset = .max
        #expect(query.limit == Query<User>.maximumWindow && query.offset == Query<User>.maximumWindow)
        query.limit = 10
        query.offset = 5
        #expect(query.limit == 10 && query.offset == 5)
    }

    @Test(arguments: [Double.infinity, .nan, -1, 0])
    func aChangeLogRetentionOfNoFinitePositiveTimeIsRefused(_ seconds: Double) throws {
        let error = #expect(throws: StrataError.self) { try store.enableChangeLog(retention: .seconds(seconds)) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("a positive, finite time") == true, "\(error?.message ?? "")")
    }
}
