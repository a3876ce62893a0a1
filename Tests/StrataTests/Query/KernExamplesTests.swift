import Foundation
import Testing
import TestSupport
@testable import Strata

/// Kern's user, with the indexes a real app would declare.
struct KernUser: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var luckyNumber: Int?
    static let primaryKey = \KernUser.id
    static var entityName: String { "User" }
    static let indexes: [IndexDefinition<KernUser>] = [
        .index(\.lastName, collation: .caseAndDiacriticInsensitive),
        .index(\.luckyNumber),
        .index(\.lastName, \.luckyNumber),
    ]
}

/// The records of Kern's README: Jimmy James 3, Doogie Howser 7, George, Michael and George
/// Michael Bluth 13, 13, 9, Buster and Oscar Bluth with no lucky number, Ron Swanson 11.
let kernUsers: [KernUser] = [
    KernUser(id: 1, firstName: "Jimmy", lastName: "James", luckyNumber: 3),
    KernUser(id: 2, firstName: "Doogie", lastName: "Howser", luckyNumber: 7),
    KernUser(id: 3, firstName: "George", lastName: "Bluth", luckyNumber: 13),
    KernUser(id: 4, firstName: "Michael", lastName: "Bluth", luckyNumber: 13),
    KernUser(id: 5, firstName: "George Michael", lastName: "Bluth", luckyNumber: 9),
    KernUser(id: 6, firstName: "Buster", lastName: "Bluth", luckyNumber: nil),
    KernUser(id: 7, firstName: "Oscar", lastName: "Bluth", luckyNumber: nil),
    KernUser(id: 8, firstName: "Ron", lastName: "Swanson", luckyNumber: 11),
]

@Suite struct KernExamplesTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(kernUsers) }
    }

    func names(_ users: [KernUser]) -> [String] { users.map(\.firstName) }

    @Test func findAllReturnsEveryRecord() throws {
        #expect(try store.read { tx in try tx.query(KernUser.self).all() } == kernUsers)
    }

    @Test func findAllSortedByLuckyNumberInEveryForm() throws {
        let expected = ["Buster", "Oscar", "Jimmy", "Doogie", "George Michael", "Ron", "George", "Michael"]
        try store.read { tx throws in
            #expect(names(try tx.query(KernUser.self).sorted(by: "luckyNumber").all()) == expected)
            #expect(names(try tx.query(KernUser.self).sorted(by: ["luckyNumber": .ascending]).all()) == expected)
            #expect(names(try tx.query(KernUser.self).sorted(by: \.luckyNumber).all()) == expected)
        }
    }

    @Test func sortByLastNameDescendingThenLuckyNumberInEveryForm() throws {
        let expected = ["Ron", "Jimmy", "Doogie", "Buster", "Oscar", "George Michael", "George", "Michael"]
        try store.read { tx throws in
            #expect(names(try tx.query(KernUser.self).sorted(by: "lastName desc,luckyNumber").all()) == expected)
            #expect(names(try tx.query(KernUser.self).sorted(by: ["lastName": .descending, "luckyNumber": .ascending]).all()) == expected)
            #expect(names(try tx.query(KernUser.self).sorted(by: \.lastName, .descending).sorted(by: \.luckyNumber).all()) == expected)
        }
    }

    @Test func topThreeLuckiest() throws {
        let top = try store.read { tx in try tx.query(KernUser.self).sorted(by: "luckyNumber desc").limit(3).all() }
        #expect(names(top) == ["George", "Michael", "Ron"])
    }

    @Test func findAllTheBluthsInEveryForm() throws {
        let bluths = ["George", "Michael", "George Michael", "Buster", "Oscar"]
        try store.read { tx throws in
            #expect(names(try tx.query(KernUser.self).where("lastName ==[cd] 'bluth'").all()) == bluths)
            #expect(names(try tx.query(KernUser.self).where("lastName ==[cd] %@", "bluth").all()) == bluths)
            #expect(names(try tx.query(KernUser.self).where(.equal(\.lastName, "bluth", .caseAndDiacriticInsensitive)).all()) == bluths)
            #expect(names(try tx.query(KernUser.self).where(\.lastName == "Bluth").all()) == bluths)
        }
    }

    @Test func bluthsWithLuckyNumberThirteenInEveryForm() throws {
        let expected = ["George", "Michael"]
        try store.read { tx throws in
            #expect(names(try tx.query(KernUser.self).where("lastName ==[cd] %@ AND luckyNumber == %@", "bluth", 13).all()) == expected)
            #expect(names(try tx.query(KernUser.self).where(["lastName": "Bluth", "luckyNumber": 13]).all()) == expected)
            #expect(names(try tx.query(KernUser.self).where(\.lastName == "Bluth" && \.luckyNumber == 13).all()) == expected)
        }
    }

    @Test func topTwoBluthsByLuckyNumber() throws {
        let top = try store.read { tx throws in
            try tx.query(KernUser.self).where("lastName ==[cd] %@", "bluth").sorted(by: "luckyNumber desc").limit(2).all()
        }
        #expect(names(top) == ["George", "Michael"])
    }

    @Test func notInWithSortAndGroupingOrder() throws {
        let users = try store.read { tx throws in
            try tx.query(KernUser.self).where("lastName NOT IN %@", ["Howser", "James"]).sorted(by: "lastName, luckyNumber DESC").all()
        }
        #expect(names(users) == ["George", "Michael", "George Michael", "Buster", "Oscar", "Ron"])
    }

    @Test func resultsCountExistsIdsFirstAndLast() throws {
        try store.read { tx throws in
            let bluths = tx.query(KernUser.self).where(\.lastName == "Bluth")
            #expect(try bluths.count() == 5)
            #expect(try bluths.exists())
            #expect(try tx.query(KernUser.self).where(\.lastName == "Nobody").exists() == false)
            #expect(try bluths.ids() == [3, 4, 5, 6, 7])
            #expect(try bluths.sorted(by: \.firstName).first()?.firstName == "Buster")
            #expect(try bluths.sorted(by: \.firstName).last()?.firstName == "Oscar")
            #expect(names(try bluths.sorted(by: \.firstName).last(2)) == ["Michael", "Oscar"])
            #expect(names(try bluths.first(2)) == ["George", "Michael"])
            #expect(try bluths.offset(3).ids() == [6, 7])
            #expect(try tx.query(KernUser.self).where(\.luckyNumber == nil).ids() == [6, 7])
        }
    }

    @Test func explainShowsTheChosenPlans() throws {
        // Enough other users that reading 5 Bluths through an index beats a scan.
        try store.write { tx in
            try tx.insert((100..<3_100).map { KernUser(id: $0, firstName: "F\($0)", lastName: "Filler\($0 % 60)", luckyNumber: Int($0 % 97)) })
        }
        try store.read { tx throws in
            let bluthPlan = try tx.query(KernUser.self).where("lastName ==[cd] %@ AND luckyNumber > 5", "bluth").explain()
            #expect(bluthPlan.description == #"IndexScan(User.lastName[cd] = "bluth") → Filter(luckyNumber > 5)"#,
                    "\(bluthPlan)")
            #expect(try tx.query(KernUser.self).where(\.id == 3).explain().description == "KeyLookup(User.id = 3)")
            #expect(try tx.query(KernUser.self).explain().description == "FullScan(User)")
            #expect(try tx.query(KernUser.self).where("luckyNumber IN {3, 7}").explain().description
                    == "IndexMerge(User.luckyNumber IN {3, 7})")
            #expect(try tx.query(KernUser.self).where("lastName BEGINSWITH[cd] 'blu'").explain().description
                    == #"IndexMerge(User.lastName[cd] BEGINSWITH "blu")"#)   // one key: its entries are in key order
            #expect(try tx.query(KernUser.self).where("lastName ==[cd] 'bluth'").explain().estimatedRows == 5)
            #expect(try tx.query(KernUser.self).where(\.firstName == "Ron").explain().description
                    == #"FullScan(User) → Filter(firstName == "Ron")"#)
            let plan = try tx.query(KernUser.self).where("lastName ==[cd] %@", "bluth").sorted(by: "luckyNumber desc").limit(2).explain()
            #expect(plan.description.hasSuffix("→ TopK(luckyNumber desc, 2) → Limit(2)"), "\(plan)")
            let ordered = try tx.query(KernUser.self).where(\.lastName == "Bluth").sorted(by: \.luckyNumber).explain()
            #expect(ordered.orderFromAccess, "\(ordered)")
            // Descending orders walk the index backwards, ties still by ascending primary key.
            let descending = tx.query(KernUser.self).where(\.lastName == "Bluth").sorted(by: \.luckyNumber, .descending)
            #expect(try descending.explain().description == #"IndexScan(User.lastName,luckyNumber = "Bluth") reversed"#)
            #expect(names(try descending.all()) == ["George", "Michael", "George Michael", "Buster", "Oscar"])
            #expect(try tx.query(KernUser.self).sorted(by: "id desc").limit(3).explain().description == "FullScan(User) reversed → Limit(3)")
            #expect(try tx.query(KernUser.self).sorted(by: "id desc").limit(3).ids() == [3099, 3098, 3097])
            // OR of indexed conditions: a union of index scans; records read once, in key order.
            let either = try tx.query(KernUser.self).where("lastName ==[cd] 'swanson' OR luckyNumber == 3")
            let unionPlan = try either.explain().description
            #expect(unionPlan.hasPrefix(#"Union(IndexScan(User.lastName[cd] = "swanson"), IndexScan(User.luckyNumber = 3))"#), "\(unionPlan)")
            #expect(try either.ids().prefix(2) == [1, 8])
            let newest = tx.query(KernUser.self).sorted(by: \.luckyNumber, .descending).limit(2)
            #expect(try newest.explain().description == "IndexOrder(User.luckyNumber) reversed → Limit(2)")
            #expect(try newest.all().map(\.luckyNumber) == [96, 96])
        }
    }
}
