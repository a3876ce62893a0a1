import Foundation
import Strata

struct User: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String?
    var luckyNumber: Int?
    var tags: [String]
    var createdDate: Date
    static let primaryKey = \User.id
}

func quickStart(_ store: Store, _ jimmy: User) async throws {
    // snippet: async-calls
    try await store.write { tx in try tx.upsert(jimmy) }            // runs on the store's writer thread
    let bluths = try await store.read { tx in try tx.query(User.self).where(\.lastName == "Bluth").all() }
    // end snippet: async-calls
    print(bluths.count)
}

let store = try Store(path: "app.strata")
try await quickStart(store, User(id: 1, firstName: "Jimmy", lastName: "James", tags: [], createdDate: .now))
