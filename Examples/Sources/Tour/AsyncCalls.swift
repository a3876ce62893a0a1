import Foundation
import Strata

/// The Quick start's calls in async code.
func asyncCalls(_ store: Store, _ jimmy: User) async throws {
    // snippet: async-calls
    try await store.write { tx in try tx.upsert(jimmy) }            // runs on the store's writer thread
    let bluths = try await store.read { tx in try tx.query(User.self).where(\.lastName == "Bluth").all() }
    // end snippet: async-calls
    print(bluths.count)
}
