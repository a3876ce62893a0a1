import Foundation
import Testing
import TestSupport
@testable import Strata

@Suite struct AggregateTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(kernUsers) }
    }

    @Test func groupByLastNameWithCountAverageAndHaving() throws {
        try store.read { tx throws in
            let groups = try tx.query(KernUser.self).group(by: \.lastName, aggregating: .count, .average(\.luckyNumber),
                                                           .min(\.luckyNumber), .max(\.luckyNumber), .sum(\.luckyNumber))
            #expect(groups.map(\.key) == ["Bluth", "Howser", "James", "Swanson"])
            #expect(groups.map(\.count) == [5, 1, 1, 1])
            let bluth = try #require(groups.group(for: "Bluth"))
            #expect(abs(try #require(bluth.average(\.luckyNumber)) - 35.0 / 3) < 1e-9)   // 11.67 over the 3 non-nil
            #expect(bluth.min(\.luckyNumber) == .int(9))
            #expect(bluth.max(\.luckyNumber) == .int(13))
            #expect(bluth.sum(\.luckyNumber) == .int(35))
            #expect(bluth[.count] == .int(5))
            #expect(bluth[.average(\.firstName)] == nil)   // not asked for
            #expect(!groups.source.usesIndexOnly)          // other aggregates read the records
            let crowded = try tx.query(KernUser.self).group(by: \.lastName, aggregating: .average(\.luckyNumber))
                .having { $0.count > 1 }
            #expect(crowded.map(\.key) == ["Bluth"])
            let luckyFamilies = try tx.query(KernUser.self).group(by: "lastName", aggregating: .average("luckyNumber"))
                .having { ($0.average(\.luckyNumber) ?? 0) > 10 }
            #expect(luckyFamilies.map(\.key) == [.string("Bluth"), .string("Swanson")])
        }
    }

    @Test func groupWithPredicateAndOptionalKeys() throws {
        try store.read { tx throws in
            let groups = try tx.query(KernUser.self).where(\.lastName == "Bluth").group(by: \.luckyNumber)
            #expect(groups.map(\.key) == [nil, 9, 13])
            #expect(groups.map(\.count) == [2, 1, 2])
            // The index of lastName and luckyNumber answers `lastName == "Bluth"` whole, and its
            // keys under "Bluth" are the lucky numbers: counted there, no record read.
            #expect(groups.source.kind == .indexGroups && groups.source.detail.contains("User.lastName,luckyNumber"), "\(groups.source)")
            // What the scan does not answer whole is filtered on the records.
            let filtered = try tx.query(KernUser.self).where(\.lastName == "Bluth" && \.firstName != "Buster").group(by: \.luckyNumber)
            #expect(filtered.map(\.count) == [1, 1, 2] && filtered.source.kind == .records, "\(filtered.source)")
        }
    }

    @Test func groupCountsComeFromIndexKeysWhenTheyCan() throws {
        try store.read { tx throws in
            // lastName leads the binary compound index "lastName,luckyNumber" (the [cd] one is folded).
            let byName = try tx.query(KernUser.self).group(by: \.lastName)
            #expect(byName.source.kind == .indexGroups)
            #expect(byName.source.detail == "User.lastName,luckyNumber")
            #expect(byName.map(\.key) == ["Bluth", "Howser", "James", "Swanson"])
            #expect(byName.map(\.count) == [5, 1, 1, 1])
            let byLucky = try tx.query(KernUser.self).group(by: \.luckyNumber, aggregating: .count)
            #expect(byLucky.source.description == "IndexGroups(User.luckyNumber)")
            #expect(byLucky.map(\.key) == [nil, 3, 7, 9, 11, 13])
            #expect(byLucky.map(\.count) == [2, 1, 1, 1, 1, 2])
            // Unindexed field, or a window: the records.
            #expect(try tx.query(KernUser.self).group(by: \.firstName).source.kind == .records)
            #expect(try tx.query(KernUser.self).sorted(by: \.luckyNumber).limit(3).group(by: \.luckyNumber).map(\.count) == [2, 1])
        }
    }

    @Test func minMaxSumAverageDistinctOnKernUsers() throws {
        try store.read { tx throws in
            let users = tx.query(KernUser.self)
            #expect(try users.max(\.luckyNumber) == 13)
            #expect(try users.min(\.luckyNumber) == 3)
            #expect(try users.extreme(["luckyNumber"], largest: true).source.description == "IndexEnds(User.luckyNumber)")
            #expect(try users.extreme(["luckyNumber"], largest: false).source.kind == .indexEnds)
            #expect(try users.sum(\.luckyNumber) == 56)
            #expect(try users.average(\.luckyNumber) == 56.0 / 6)
            #expect(try users.min(\.firstName) == "Buster")     // unindexed: records
            #expect(try users.max(\.lastName) == "Swanson")     // the binary compound index
            #expect(try users.distinct(\.lastName) == ["Bluth", "Howser", "James", "Swanson"])
            #expect(try users.distinct(\.luckyNumber) == [nil, 3, 7, 9, 11, 13])
            let bluths = users.where(\.lastName == "Bluth")
            #expect(try bluths.max(\.luckyNumber) == 13)
            #expect(try bluths.min(\.luckyNumber) == 9)
            #expect(try bluths.extreme(["luckyNumber"], largest: false).source.kind == .indexEnds)
            #expect(try bluths.extreme(["luckyNumber"], largest: true).source.kind == .indexEnds)
            #expect(try bluths.sum(\.luckyNumber) == 35)
            #expect(try bluths.average("luckyNumber") == 35.0 / 3)
            #expect(try users.where("luckyNumber > %@", 5).min("luckyNumber") == .int(7))
            #expect(try users.where(\.luckyNumber == nil).max(\.luckyNumber) == nil)
            #expect(try users.where(\.luckyNumber == nil).sum(\.luckyNumber) == 0)
            #expect(try users.where(\.luckyNumber == nil).sum("luckyNumber") == nil)
            #expect(try users.where(\.luckyNumber == nil).average(\.luckyNumber) == nil)
            // A window applies first, in the query's order.
            #expect(try users.sorted(by: \.luckyNumber, .descending).limit(3).min(\.luckyNumber) == 11)
            #expect(try users.sorted(by: \.luckyNumber).offset(2).limit(2).sum(\.luckyNumber) == 10)
        }
    }

    @Test func sumOfTextThrowsInvalidQuery() throws {
        try store.read { tx throws in
            let error = #expect(throws: StrataError.self) { try tx.query(KernUser.self).sum("lastName") }
            #expect(error?.code == .invalidQuery)
            #expect(error?.message.contains("sum(lastName)") == true)
        }
    }

    @Test func countUsesIndexEntriesWhenTheIndexAnswersThePredicate() throws {
        try store.read { tx throws in
            let users = tx.query(KernUser.self)
            func source(_ request: QueryRequest<KernUser>) throws -> String? { try request.indexOnlyCount()?.source.description }
            #expect(try users.count() == 8)
            #expect(try source(users) == "RecordCount(User)")
            #expect(try users.where(\.luckyNumber == 13).count() == 2)
            #expect(try source(users.where(\.luckyNumber == 13)) == "IndexCount(IndexScan(User.luckyNumber = 13))")
            #expect(try users.where(.in(\.luckyNumber, [3, 13, 42])).count() == 3)
            #expect(try users.where(\.luckyNumber > 8).count() == 4)
            #expect(try source(users.where(\.luckyNumber > 8))?.hasPrefix("IndexCount(IndexScan(User.luckyNumber >") == true)
            #expect(try users.where("lastName ==[cd] 'BLUTH'").count() == 5)
            #expect(try source(users.where("lastName ==[cd] 'BLUTH'")) == "IndexCount(IndexScan(User.lastName[cd] = \"BLUTH\"))")
            #expect(try users.where(\.lastName == "Bluth").count() == 5)     // a walk of the binary compound index
            #expect(try source(users.where(\.lastName == "Bluth")) == "IndexCount(IndexScan(User.lastName,luckyNumber = \"Bluth\"))")
            #expect(try users.where(\.luckyNumber == nil).count() == 2)
            // Case-insensitive only, on a [cd] index: not exact, so the records count.
            #expect(try source(users.where("lastName ==[c] 'bluth'")) == nil)
            #expect(try users.where("lastName ==[c] 'bluth'").count() == 5)
            // Both conditions bound the compound index: its entries count.
            #expect(try source(users.where(\.luckyNumber > 8 && \.lastName == "Bluth"))
                    == "IndexCount(IndexScan(User.lastName,luckyNumber (lastName = \"Bluth\", luckyNumber > 8)))")
            #expect(try users.where(\.luckyNumber > 8 && \.lastName == "Bluth").count() == 3)
            #expect(try users.where(\.luckyNumber > 8).offset(1).limit(2).count() == 2)
            #expect(try users.where(\.luckyNumber > 8).offset(3).count() == 1)
        }
    }

    @Test func emptyAndUnknownEntities() throws {
        let (empty, emptyDir) = try makeStore()
        try empty.read { tx throws in
            #expect(try tx.query(KernUser.self).max(\.luckyNumber) == nil)
            #expect(try tx.query(KernUser.self).sum(\.luckyNumber) == 0)
            #expect(try tx.query(KernUser.self).count() == 0)
            #expect(try tx.query(KernUser.self).group(by: \.lastName).isEmpty)
        }
        try empty.write { tx in try tx.insert(KernUser(id: 1, firstName: "A", lastName: "B", luckyNumber: nil)) }
        try empty.read { tx throws in
            #expect(try tx.query(KernUser.self).max(\.luckyNumber) == nil)   // the index holds only nil
            #expect(try tx.query(KernUser.self).extreme(["luckyNumber"], largest: true).source.kind == .indexEnds)
            #expect(try tx.query(KernUser.self).min(\.luckyNumber) == nil)
        }
        withExtendedLifetime(emptyDir) {}
    }
}
