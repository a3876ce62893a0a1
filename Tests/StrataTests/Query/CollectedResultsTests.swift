import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// `all()` and `last(_:)` keep the runs the decode pipeline hands over and move their records into
/// one array at the end (``DecodedRecords/moveIntoArray()``, whose moves `DecodedRecordsTests`
/// counts): each query gets its own rows alone, in order, however many segments of
/// `BatchDecoder.batchSize` they span.
@Suite struct CollectedResultsTests {
    let dir: TemporaryDirectory
    let store: Store
    let users: [User]

    init() throws {
        (store, dir) = try makeStore()
        users = (1...Int64(5_000)).map { User.sample($0, "First\($0)", "Last\($0 % 89)", lucky: $0 % 5 == 0 ? nil : Int($0 % 100)) }
        try store.write { [users] tx in try tx.upsert(users) }
    }

    @Test func queriesInOneTransactionGetTheirOwnRowsInOrder() throws {
        let lucky = users.filter { $0.luckyNumber != nil }
        try store.read { tx throws in
            // More rows than a segment, then a few, then none, then all of them sorted, then the first ones again.
            let many = try tx.query(User.self).where("luckyNumber >= 0").all()
            #expect(many.count == lucky.count)
            #expect(many == lucky)
            let few = try tx.query(User.self).where("luckyNumber == 42").sorted(by: \.id, .descending).all()
            #expect(few == lucky.filter { $0.luckyNumber == 42 }.reversed())
            #expect(try tx.query(User.self).where("luckyNumber == 1000").all().isEmpty)
            let sorted = try tx.query(User.self).sorted(by: \.lastName).all()
            #expect(sorted == users.sorted { ($0.lastName, $0.id) < ($1.lastName, $1.id) })
            #expect(try tx.query(User.self).where("luckyNumber >= 0").all() == many)
            var seen: [User] = []
            try tx.query(User.self).where("luckyNumber >= 0").forEach { seen.append($0) }
            #expect(seen == many)
        }
    }

    @Test func lastTakesItsRowsFromTheEndAcrossSegments() throws {
        try store.read { tx throws in
            #expect(try tx.query(User.self).last(3) == Array(users.suffix(3)))
            #expect(try tx.query(User.self).last(4_000) == Array(users.suffix(4_000)))
            #expect(try tx.query(User.self).where("luckyNumber == 1000").last(5).isEmpty)
        }
    }
}
