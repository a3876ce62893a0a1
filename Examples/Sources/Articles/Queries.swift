import Foundation
import Strata

func queries(path: String) throws {
    let store = try Store(path: path)
    try store.write { tx in
        try tx.upsert([
            User(id: 1, firstName: "George", lastName: "Bluth", luckyNumber: 13, tags: ["vip"]),
            User(id: 2, firstName: "Lindsay", lastName: "Fünke", luckyNumber: 7),
            User(id: 3, firstName: "Buster", lastName: "Bluth", luckyNumber: nil, tags: ["army"]),
            User(id: 4, firstName: "Gob", lastName: "Bluth", luckyNumber: 2, tags: ["magic", "vip"]),
        ])
    }
    try store.read { tx in
        // snippet: queries-key-paths
        let bluths = try tx.query(User.self)
            .where(\.lastName == "Bluth" && (\.luckyNumber > 5 || \.luckyNumber == nil))
            .sorted(by: \.luckyNumber, .descending)
            .limit(10)
            .all()                                          // George (13), then Buster (nil sorts last descending)
        // end snippet: queries-key-paths
        check(bluths.map(\.firstName) == ["George", "Buster"], "\(bluths.map(\.firstName))")

        // snippet: queries-format
        let funkes = try tx.query(User.self).where("lastName ==[cd] %@ AND luckyNumber BETWEEN {%@, %@}", "funke", 1, 10).all()
        let vips = try tx.query(User.self, "ANY tags IN %@ ORDER BY lastName, firstName DESC LIMIT 10", ["vip"]).all()
        // end snippet: queries-format
        check(funkes.map(\.id) == [2] && vips.map(\.firstName) == ["Gob", "George"], "\(vips.map(\.firstName))")

        // snippet: queries-dictionary
        let gob = try tx.query(User.self).where(["lastName": "Bluth", "firstName": "Gob"])
            .sorted(by: "lastName desc,luckyNumber").first()
        // end snippet: queries-dictionary
        check(gob?.id == 4)

        // snippet: queries-foundation
        let lucky = try tx.query(User.self)
            .where(#Predicate<User> { $0.lastName == "Bluth" && ($0.luckyNumber ?? 0) > 5 })
            .sorted(by: [SortDescriptor(\.lastName), SortDescriptor(\.firstName, order: .reverse)])
            .all()
        // end snippet: queries-foundation
        check(lucky.map(\.id) == [1])

        // snippet: queries-results
        let request = tx.query(User.self).where(\.lastName == "Bluth")
        let count = try request.count()               // counts keys: decodes no record
        let ids = try request.ids()                   // primary keys, in result order
        let exists = try request.exists()
        let firstTwo = try request.first(2)
        try request.forEach { user in print(user.firstName) }   // streamed: one record at a time
        // end snippet: queries-results
        check(count == 3 && ids == [1, 3, 4] && exists && firstTwo.map(\.id) == [1, 3])

        // snippet: queries-nil-order
        let ascending = try tx.query(User.self).sorted(by: \.luckyNumber).all().map(\.luckyNumber)
        // [nil, 2, 7, 13]: nil first ascending, last descending; ties by primary key
        // end snippet: queries-nil-order
        check(ascending == [nil, 2, 7, 13])

        // snippet: queries-explain
        let plan = try tx.query(User.self).where("lastName ==[cd] %@ AND luckyNumber > 5", "bluth").explain()
        print(plan)                                    // one line: access path → later steps
        print(plan.tree())                             // step by step, with row estimates
        let (ran, steps) = try tx.query(User.self).where(\.luckyNumber > 5).analyze()
        print(ran.tree(steps))                         // with actual rows and times
        // end snippet: queries-explain
    }
    // snippet: queries-errors
    do {
        _ = try store.read { tx in try tx.query(User.self, "lastNmae == 'Bluth'").all() }
    } catch let error as StrataError where error.code == .unknownField {
        print(error.message)   // unknown field 'lastNmae' in User (did you mean 'lastName'?) at column 1
    }
    // end snippet: queries-errors
}
