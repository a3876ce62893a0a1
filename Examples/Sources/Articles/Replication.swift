import Foundation
import Strata

func replication(path: String, replicaPath: String) async throws {
    let primary = try Store(path: path)
    // snippet: replication-enable
    try primary.enableChangeLog(retention: .commits(100_000))   // kept in the catalog: every writer logs from now on
    try await primary.write { tx in try tx.upsert(User(id: 1, firstName: "Ann", lastName: "Veal")) }
    // end snippet: replication-enable

    // snippet: replication-feed
    for try await commit in primary.changes(after: 0) {         // the log replayed, then followed
        for change in commit.changes {
            print(commit.sequence, change.operation, change.entity)   // "1 insert User", then "1 schema User"
        }
        break
    }
    for try await change in primary.changes(of: User.self, after: 0) {   // one record type, decoded
        print(change.operation, change.key as Any, change.record?.firstName ?? "deleted")
        break
    }
    // end snippet: replication-feed

    // snippet: replication-replica
    try primary.backup(to: replicaPath)                          // a replica starts as a backup…
    let replica = try Store(path: replicaPath, configuration: .replica)
    try await primary.write { tx in try tx.upsert(User(id: 2, firstName: "Bob", lastName: "Loblaw")) }
    let position = try replica.replicate(from: primary)          // …and applies the log after it
    print(position)                                              // the last sequence applied
    // end snippet: replication-replica
    check(try await replica.read { tx in try tx.count(User.self) } == 2)

    // snippet: replication-read-only
    do {
        try await replica.write { tx in try tx.delete(User.self, key: 1) }
    } catch let error as StrataError where error.code == .readOnlyReplica {
        print(error.message)                                     // replicas take changes only from the log
    }
    // end snippet: replication-read-only

    // snippet: replication-readers
    try primary.registerChangeReader("search-indexer", at: 0)
    try primary.acknowledgeChanges(through: 2, reader: "search-indexer")   // with .acknowledged, prunable now
    print(try primary.changeReaders())                           // ["search-indexer": 2]
    // end snippet: replication-readers
}
