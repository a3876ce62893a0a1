import Foundation
import Strata

func observation(path: String) async throws {
    let store = try Store(path: path)
    try await store.write { tx in try tx.upsert(User(id: 1, firstName: "George", lastName: "Bluth", luckyNumber: 13)) }
    // snippet: observation-query
    var deliveries = 0
    for try await bluths in store.observe(User.self, { $0.where(\.lastName == "Bluth").sorted(by: \.firstName) }) {
        print(bluths.map(\.firstName))   // ["George"] at once, then ["George", "Gob"] after the commit below
        deliveries += 1
        if deliveries == 2 { break }     // leaving the loop ends the observation
        try await store.write { tx in try tx.insert(User(id: 2, firstName: "Gob", lastName: "Bluth")) }
    }
    // end snippet: observation-query
    check(deliveries == 2)

    // snippet: observation-others
    for try await george in store.observe(User.self, key: 1) { print(george?.luckyNumber as Any); break }
    for try await count in store.observeCount(User.self, { $0.where(\.luckyNumber == nil) }) { print(count); break }
    let total = store.observe(entities: ["User"]) { tx in try tx.query(User.self).sum(\.luckyNumber) }
    for try await sum in total { print(sum); break }
    // end snippet: observation-others

    // snippet: observation-sections
    let sections = store.observeSections(User.self, by: \.lastName, { try $0.sorted(by: "lastName,firstName") })
    for try await change in sections {
        for section in change.sections { print(section.key, section.records.map(\.firstName)) }
        print(change.inserted)           // the first delivery inserts every row: [[0, 0], [0, 1]]
        break
    }
    // end snippet: observation-sections
}
