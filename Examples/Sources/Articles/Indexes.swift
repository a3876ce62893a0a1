import Foundation
import Strata

// snippet: indexes-declare
extension User {
    static let indexes: [IndexDefinition<User>] = [
        .index(\.lastName, collation: .caseAndDiacriticInsensitive),   // "Fünke" finds "funke"
        .index(\.luckyNumber),                                         // nil is indexed too, and sorts first
        .index(\.lastName, \.luckyNumber),                             // compound: equality, then range or order
        .unique(\.email),                                              // a second "a@b.c" throws .uniqueViolation
        .index(\.tags, multiValue: true),                              // one entry per element
    ]
}
// end snippet: indexes-declare

func indexes(path: String) throws {
    let store = try Store(path: path)
    try store.write { tx in
        try tx.insert([
            User(id: 1, firstName: "Tobias", lastName: "Fünke", email: "tobias@bluth.com", luckyNumber: 8, tags: ["actor"]),
            User(id: 2, firstName: "Maeby", lastName: "Funke", email: "maeby@bluth.com", luckyNumber: 2, tags: ["film", "actor"]),
            User(id: 3, firstName: "Buster", lastName: "Bluth", luckyNumber: nil),
        ])
        // Enough other records that reading an index beats reading them all.
        try tx.insert((100..<600).map { User(id: $0, firstName: "Extra", lastName: "Extra\($0)", luckyNumber: Int($0 % 50)) })
    }
    // snippet: indexes-unique
    do {
        try store.write { tx in try tx.insert(User(id: 4, firstName: "Copy", lastName: "Cat", email: "maeby@bluth.com")) }
    } catch let error as StrataError where error.code == .uniqueViolation {
        print(error.message)   // names the index and the value; the write rolled back
    }
    // end snippet: indexes-unique
    // snippet: indexes-explain
    try store.read { tx in
        let funkes = tx.query(User.self).where(.equal(\.lastName, "funke", .caseAndDiacriticInsensitive))
        print(try funkes.explain())     // the plan reads the [cd] index on lastName
        print(try funkes.count())       // 2: Fünke and Funke
        let actors = try tx.query(User.self, "ANY tags == 'actor'")
        print(try actors.explain())     // the plan reads the multi-value index on tags
    }
    // end snippet: indexes-explain
    try store.read { tx in
        let funkes = tx.query(User.self).where(.equal(\.lastName, "funke", .caseAndDiacriticInsensitive))
        check(try funkes.count() == 2)
        let plan = try funkes.explain().description
        check(plan.contains("IndexScan(User.lastName[cd]"), plan)
        let actors = try tx.query(User.self, "ANY tags == 'actor'")
        let actorsPlan = try actors.explain().description
        check(actorsPlan.contains("tags"), actorsPlan)
        check(try actors.count() == 2 && tx.count(User.self) == 503)
    }
}
