import Foundation
import Strata

// snippet: getting-started-record
struct User: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String?
    var luckyNumber: Int?
    var tags: [String] = []
    var createdDate: Date = .now
    static let primaryKey = \User.id
}
// end snippet: getting-started-record

func gettingStarted(path: String) throws {
    // snippet: getting-started-open
    let store = try Store(path: path)   // creates the directory and the store when missing
    // end snippet: getting-started-open

    // snippet: getting-started-write
    try store.write { tx in
        try tx.insert(User(id: 1, firstName: "Jimmy", lastName: "James", luckyNumber: 3))
        try tx.upsert([
            User(id: 2, firstName: "George", lastName: "Bluth", luckyNumber: 13),
            User(id: 3, firstName: "Lucille", lastName: "Bluth"),
        ])
    }
    // end snippet: getting-started-write

    // snippet: getting-started-read
    let (jimmy, bluths) = try store.read { tx in
        (try tx.get(User.self, key: 1),
         try tx.query(User.self).where(\.lastName == "Bluth").sorted(by: \.firstName).all())
    }
    print(jimmy?.firstName ?? "none", bluths.map(\.firstName))   // Jimmy ["George", "Lucille"]
    // end snippet: getting-started-read
    check(jimmy?.firstName == "Jimmy" && bluths.map(\.firstName) == ["George", "Lucille"])

    // snippet: getting-started-errors
    do {
        try store.write { tx in try tx.insert(User(id: 1, firstName: "Again", lastName: "James")) }
    } catch let error as StrataError where error.code == .duplicateKey {
        print(error.message)   // names the entity and the key; nothing was written
    }
    // end snippet: getting-started-errors
}
