import Foundation
import Strata

func replicating(_ store: Store) async throws {
    defer { try? FileManager.default.removeItem(atPath: "replica.strata") }
    // snippet: change-feed
    try store.enableChangeLog(retention: .commits(100_000))   // kept in the store: every writer logs from now on
    try await store.write { tx in try tx.upsert(User(id: 7, firstName: "Lindsay", lastName: "Fünke", tags: [], createdDate: .now)) }
    for try await commit in store.changes(after: 0) {         // the log replayed, then followed as commits arrive
        for change in commit.changes { print(commit.sequence, change.operation, change.entity) }
        break
    }
    try store.backup(to: "replica.strata")                   // a replica starts as a backup…
    let replica = try Store(path: "replica.strata")
    try await store.write { tx in try tx.delete(User.self, key: 7) }
    try replica.replicate(from: store)                       // …and follows the log after it; programs cannot write to it
    // end snippet: change-feed
    // snippet: typed-changes
    for try await change in store.changes(of: User.self, after: 0) {   // one record type, decoded
        print(change.operation, change.key as Any, change.record?.firstName ?? "deleted")
        break
    }
    // end snippet: typed-changes
}
