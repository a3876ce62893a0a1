import Foundation
import Testing
import TestSupport
@testable import Strata

/// A record type whose store the tool (or any untyped query) reads without the type.
private struct Sampled: Record {
    var id: Int64
    var luckyNumber: Int?
    var name: String
    var stamp: String          // text that looks like a date: still a string
    var createdAt: Date
    var active: Bool
    var mixed: [String]
    static let primaryKey = \Sampled.id
}

/// Entities written only by Swift types have no description in the catalog; untyped queries
/// check their comparisons against the kinds of the stored values, so that `strata delete` on a
/// program's store refuses `luckyNumber != "7"` as it does on an imported one.
@Suite struct SampledFieldTypeTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert((1...10).map {
                Sampled(id: $0, luckyNumber: $0 == 3 ? nil : Int($0) % 4, name: "n\($0)", stamp: "2021-01-01T00:00:00Z",
                        createdAt: Date(timeIntervalSince1970: 1_600_000_000 + Double($0)), active: $0 % 2 == 0, mixed: ["a"])
            })
        }
    }

    @Test(arguments: [#"luckyNumber != "7""#, #"createdAt > "2021-01-01""#, "createdAt > 1609459200", "active == 1",
                      "active > 5", "name == 5", #"mixed == 3"#])
    func aMismatchedComparisonOnAStoreWrittenByATypeIsRefusedAndDeletesNothing(_ predicate: String) throws {
        let error = try #require(throws: StrataError.self) {
            try store.write { tx in try tx.delete(entity: "Sampled", where: predicate) }
        }
        #expect(error.code == .invalidQuery, "\(error)")
        #expect(try store.read { tx in try tx.count(Sampled.self) } == 10)
    }

    @Test(arguments: [#"luckyNumber != 7"#, #"stamp == "2021-01-01T00:00:00Z""#, #"name BEGINSWITH "n""#, "active == true",
                      #"createdAt > CAST("2020-01-01T00:00:00Z", "NSDate")"#, "luckyNumber == nil", #"ANY mixed == "a""#])
    func comparisonsOfTheStoredKindsRun(_ predicate: String) throws {
        _ = try store.read { tx in try tx.query(entity: "Sampled").where(predicate, arguments: []).count() }
    }
}
