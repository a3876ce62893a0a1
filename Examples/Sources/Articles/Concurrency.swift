import Foundation
import Strata

// snippet: concurrency-sync
func nightlyReport(_ store: Store) throws -> Int {          // synchronous code: the calling thread runs it
    try store.read { tx in try tx.query(User.self).where(\.luckyNumber == nil).count() }
}
// end snippet: concurrency-sync

// snippet: concurrency-async
func refresh(_ store: Store, with user: User) async throws -> [User] {
    try await store.write { tx in try tx.upsert(user) }                 // on the store's writer thread
    return try await store.read { tx in try tx.query(User.self).all() }   // on a background thread
}
// end snippet: concurrency-async

func concurrency(path: String) async throws {
    let store = try Store(path: path)
    let users = try await refresh(store, with: User(id: 1, firstName: "Ann", lastName: "Veal"))
    let unlucky = try nightlyReport(store)
    check(users.count == 1 && unlucky == 1)
    // snippet: concurrency-tasks
    try await withThrowingTaskGroup(of: Int.self) { group in
        for id in Int64(10)..<Int64(20) {
            group.addTask {                                    // writes queue in call order, one at a time
                try await store.write { tx in try tx.insert(User(id: id, firstName: "N\(id)", lastName: "Many")) }
                return try await store.read { tx in try tx.count(User.self) }   // reads run side by side
            }
        }
        for try await _ in group {}
    }
    // end snippet: concurrency-tasks
    check(try await store.read { tx in try tx.count(User.self) } == 11)
    // snippet: concurrency-cancel
    let task = Task {
        try await store.write { tx in try tx.deleteAll(User.self) }
    }
    task.cancel()                        // before it starts: skipped, CancellationError; after: it finishes whole
    _ = await task.result
    // end snippet: concurrency-cancel
}
