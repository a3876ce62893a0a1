import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// A replica follows one store and one run of its change log: another store, a restarted log, a
/// primary restored from an older backup and a log that does not hold the records are refused,
/// naming what differs, and nothing is applied; a replica of such a store is seeded from a copy.
@Suite struct ReplicaSourceTests {
    let dir: TemporaryDirectory
    let primary: Store
    let replica: Store

    init() throws {
        (primary, dir) = try makeStore()
        try primary.enableChangeLog()
        try primary.write { tx in try tx.insert((1...5).map { User.sample($0) }) }
        try primary.write { tx in try tx.delete(User.self, key: 5) }
        replica = try Store(path: dir.path("replica"))
        #expect(try replica.replicate(from: primary) == 2)
    }

    func userIDs(_ store: Store) throws -> [Int64] {
        try store.read { tx in try tx.query(User.self).all().map(\.id) }
    }

    /// A store with its own log and more commits than the primary.
    func otherStore(_ name: String) throws -> Store {
        let other = try Store(path: dir.path(name))
        try other.enableChangeLog()
        for id in Int64(100)...105 { try other.write { tx in try tx.insert(User.sample(id)) } }
        return other
    }

    @Test func everyStoreHasAnIdentityThatItsBackupKeepsAndItsLogAnEpoch() throws {
        let identity = try #require(try primary.read { tx in try tx.storeIdentity() })
        let origin = try #require(try primary.read { tx in try tx.changeLogOrigin() })
        #expect(origin.store == identity && origin.beganEmpty)
        try primary.backup(to: dir.path("copy"))
        #expect(try Store(path: dir.path("copy")).read { tx in try tx.changeLogOrigin() } == origin)
        #expect(try otherStore("other").read { tx in try tx.storeIdentity() } != identity)
        // The replica is a store of its own.
        #expect(try replica.read { tx in try tx.storeIdentity() } != identity)
        #expect(try replica.read { tx in try tx.changeLogOrigin() } == nil)
    }

    @Test func aReplicaRefusesAnotherStoreWithMoreCommits() throws {
        let other = try otherStore("other")
        let error = #expect(throws: StrataError.self) { try replica.replicate(from: other) }
        #expect(error?.code == .replicaSourceMismatch && error?.message.contains("it is another store") == true, "\(String(describing: error))")
        // By feed too, and with no commit to apply.
        let commits = try other.read { tx in try tx.loggedCommits(after: 0) }
        #expect(throws: StrataError.self) { try replica.applyChanges(commits) }
        #expect(try replica.replicaPosition() == 2)
        #expect(try userIDs(replica) == [1, 2, 3, 4])
    }

    @Test func aReplicaRefusesItsPrimaryAfterTheLogRestarted() throws {
        try primary.disableChangeLog()
        try primary.enableChangeLog()
        for id in Int64(10)...12 { try primary.write { tx in try tx.insert(User.sample(id)) } }
        let error = #expect(throws: StrataError.self) { try replica.replicate(from: primary) }
        #expect(error?.code == .replicaSourceMismatch && error?.message.contains("restarted") == true, "\(String(describing: error))")
        #expect(try replica.replicaPosition() == 2)
    }

    @Test func aReplicaRefusesAPrimaryRestoredFromAnOlderBackup() throws {
        let backup = dir.path("backup")
        try primary.backup(to: backup)   // at commit 2
        try primary.write { tx in try tx.insert(User.sample(6)) }
        try primary.write { tx in try tx.insert(User.sample(7)) }
        #expect(try replica.replicate(from: primary) == 4)
        // The backup, written again: its log ends before the replica's position, then it differs there.
        let restored = try Store(path: backup)
        try restored.write { tx in try tx.insert(User.sample(8)) }
        let behind = #expect(throws: StrataError.self) { try replica.replicate(from: restored) }
        #expect(behind?.code == .replicaSourceMismatch && behind?.message.contains("ends at commit 3, before commit 4") == true,
                "\(String(describing: behind))")
        try restored.write { tx in try tx.insert(User.sample(9)) }
        try restored.write { tx in try tx.insert(User.sample(10)) }
        let differs = #expect(throws: StrataError.self) { try replica.replicate(from: restored) }
        #expect(differs?.code == .replicaSourceMismatch && differs?.message.contains("is not the commit 4") == true, "\(String(describing: differs))")
        let commits = try restored.read { tx in try tx.loggedCommits(after: 3) }
        #expect(throws: StrataError.self) { try replica.applyChanges(commits) }   // the feed holds commit 4 again
        #expect(try replica.replicaPosition() == 4)
        #expect(try userIDs(replica) == [1, 2, 3, 4, 6, 7])
    }

    @Test func aStoreWhoseRecordsPredateItsLogIsRefusedAndSeededFromACopy() throws {
        let (older, olderDir) = try makeStore()
        try older.write { tx in try tx.insert((1...30).map { User.sample($0) }) }
        try older.backup(to: olderDir.path("before-log"))   // a backup taken before the log was on
        try older.enableChangeLog()
        try older.write { tx in try tx.delete(User.self, key: 10) }
        #expect(try older.read { tx in try tx.changeLogOrigin()?.beganEmpty } == false)
        let empty = try Store(path: olderDir.path("empty"))
        let error = #expect(throws: StrataError.self) { try empty.replicate(from: older) }
        #expect(error?.code == .changesPruned && error?.message.contains("already held records") == true, "\(String(describing: error))")
        let fromOldBackup = try Store(path: olderDir.path("before-log"))
        #expect(throws: StrataError.self) { try fromOldBackup.replicate(from: older) }
        #expect(try fromOldBackup.read { tx in try tx.count(User.self) } == 30)
        // Seeded, it holds every record and follows.
        let seeded = try Store.seedReplica(of: older, at: olderDir.path("seeded"))
        #expect(try seeded.replicaPosition() == 1)
        try older.write { tx in try tx.delete(User.self, key: 11) }
        #expect(try seeded.replicate(from: older) == 2)
        #expect(try userIDs(seeded) == userIDs(older))
        #expect(try userIDs(seeded).count == 28)
    }
}
