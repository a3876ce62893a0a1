import Foundation
import Strata

/// The Quick start's calls in synchronous code.
func syncCalls(_ store: Store, _ jimmy: User) throws {
    // snippet: sync-calls
    try store.write { tx in try tx.upsert(jimmy) }            // blocks this thread until it commits
    let bluths = try store.read { tx in try tx.query(User.self).where(\.lastName == "Bluth").all() }
    // end snippet: sync-calls
    print(bluths.count)
}
