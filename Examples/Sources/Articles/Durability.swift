import Foundation
import Strata

func durability(path: String, directory: URL) throws {
    let store = try Store(path: path)
    // snippet: durability-modes
    try store.write { tx in try tx.upsert(User(id: 1, firstName: "Ann", lastName: "Veal")) }   // synced before it returns
    for batch in 0..<10 {
        try store.write(durability: .deferred) { tx in                  // no fsync at this commit
            try tx.upsert((1...100).map { User(id: Int64(batch * 100 + $0), firstName: "B", lastName: "Bulk") })
        }
    }
    try store.flush()                                                   // one sync for all ten
    // end snippet: durability-modes
    check(try store.read { tx in try tx.count(User.self) } == 1000)

    // snippet: durability-savepoint
    try store.write { tx in
        try tx.upsert(User(id: 2000, firstName: "Kept", lastName: "Veal"))
        _ = try? tx.savepoint { inner in                                // a nested transaction
            try inner.insert(User(id: 2001, firstName: "Gone", lastName: "Veal"))
            try inner.insert(User(id: 2000, firstName: "Duplicate", lastName: "Veal"))   // throws: undoes 2001 only
        }
    }
    // end snippet: durability-savepoint
    try store.read { tx in check(try tx.exists(User.self, key: 2000) && !tx.exists(User.self, key: 2001)) }

    // snippet: durability-check
    let backup = directory.appendingPathComponent("backup.strata").path
    try store.backup(to: backup, compact: true)                         // whole or not at all
    let pages = try Store.checkPages(at: backup)                        // every page's structure, before opening
    let copy = try Store(path: backup)
    let indexes = try copy.read { tx in try tx.verifyIndexes(entity: "User") }
    print(pages, indexes.isConsistent)
    // end snippet: durability-check
    check(indexes.isConsistent)
}
