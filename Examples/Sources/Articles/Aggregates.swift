import Foundation
import Strata

func aggregates(path: String) throws {
    let store = try Store(path: path)
    try store.write { tx in
        try tx.upsert([
            User(id: 1, firstName: "George", lastName: "Bluth", luckyNumber: 13),
            User(id: 2, firstName: "Lindsay", lastName: "Fünke", luckyNumber: 7),
            User(id: 3, firstName: "Buster", lastName: "Bluth", luckyNumber: nil),
            User(id: 4, firstName: "Gob", lastName: "Bluth", luckyNumber: 2),
        ])
    }
    try store.read { tx in
        // snippet: aggregates-single
        let bluths = tx.query(User.self).where(\.lastName == "Bluth")
        let total = try bluths.sum(\.luckyNumber)             // 15: nil is skipped, as in SQL
        let smallest = try bluths.min(\.luckyNumber)          // Optional(2)
        let mean = try bluths.average(\.luckyNumber)          // Optional(7.5)
        let names = try tx.query(User.self).distinct(\.lastName)   // ["Bluth", "Fünke"]
        // end snippet: aggregates-single
        check(total == 15 && smallest == 2 && mean == 7.5 && names == ["Bluth", "Fünke"], "\(total) \(String(describing: smallest)) \(String(describing: mean)) \(names)")

        // snippet: aggregates-group
        let families = try tx.query(User.self)
            .group(by: \.lastName, aggregating: .sum(\.luckyNumber), .max(\.luckyNumber))
            .having { $0.count > 1 }
        for family in families {
            print(family.key, family.count, family.sum(\.luckyNumber) ?? .null)   // Bluth 3 int(15)
        }
        // end snippet: aggregates-group
        check(families.map(\.key) == ["Bluth"] && families.first?.count == 3)
        check(families.first?.sum(\.luckyNumber) == .int(15) && families.first?.max(\.luckyNumber) == .int(13))

        // snippet: aggregates-untyped
        let byName = try tx.query(User.self).group(by: "lastName", aggregating: .average("luckyNumber"))
        print(byName.group(for: .string("Fünke"))?[.average("luckyNumber")] ?? .null)   // double(7.0)
        // end snippet: aggregates-untyped
        check(byName.group(for: .string("Fünke"))?[.average("luckyNumber")] == .double(7))
    }
}
