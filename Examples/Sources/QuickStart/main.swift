import Foundation
import Strata

struct User: Record, Equatable {    // Record = Codable + Sendable + a primary key
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String?
    var luckyNumber: Int?
    var tags: [String]
    var createdDate: Date
    static let primaryKey = \User.id
}

func quickStart() async throws {
    let store = try Store(path: "app.strata")          // one line; creates the directory, sane defaults
    try await store.write { tx in                      // one atomic, durable transaction, on the writer thread
        try tx.insert(User(id: 1, firstName: "Jimmy", lastName: "James", luckyNumber: 3, tags: [], createdDate: .now))
        try tx.upsert([                                // insert or replace by primary key
            User(id: 2, firstName: "Doogie", lastName: "Howser", luckyNumber: 7, tags: ["md"], createdDate: .now),
            User(id: 3, firstName: "George", lastName: "Bluth", luckyNumber: 13, tags: ["vip"], createdDate: .now),
        ])
    }
    let jimmy = try await store.read { tx in try tx.get(User.self, key: 1) }   // nil when absent
    let count = try await store.read { tx in try tx.count(User.self) }
    try await store.write { tx in try tx.delete(User.self, key: 1) }
    print(jimmy?.firstName ?? "none", count)
}

try await quickStart()
