import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A user with an index, for replicas to rebuild.
private struct Subscriber: Record, Equatable {
    var id: Int64
    var name: String
    var city: String?
    static let primaryKey = \Subscriber.id
    static let indexes: [IndexDefinition<Subscriber>] = [.index(\.name, collation: .caseAndDiacriticInsensitive)]
}

/// The same entity later in its life: a new field, a new index.
private struct SubscriberV2: Record, Equatable {
    static let entityName = "Subscriber"
    var id: Int64
    var name: String
    var city: String?
    var score: Int?
    static let primaryKey = \SubscriberV2.id
    static let indexes: [IndexDefinition<SubscriberV2>] = [.index(\.name, collation: .caseAndDiacriticInsensitive), .index(\.score)]
}

/// Replicas follow a primary's change log: the same records, byte for byte, their own indexes,
/// writes from programs refused, a feed replayed without harm.
@Suite struct ReplicaTests {
    let dir: TemporaryDirectory
    let primary: Store
    let replica: Store

    init() throws {
        (primary, dir) = try makeStore()
        try primary.enableChangeLog()
        replica = try Store(path: dir.path("replica"))
    }

    /// Every record of every entity as (entity, key, bytes), in key order.
    func contents(_ store: Store) throws -> [String] {
        try store.read { tx in
            try tx.catalogEntityNames().sorted().flatMap { entity in
                let context = try #require(try tx.context(named: entity))
                return try tx.raw.withCursor(context.records) { cursor in
                    var rows: [String] = []
                    var more = try cursor.first()
                    while more { rows.append("\(entity) \(cursor.key) \(cursor.value)"); more = try cursor.next() }
                    return rows
                }
            }
        }
    }

    func fill() throws {
        try primary.write { tx in
            try tx.insert((1...50).map { Subscriber(id: $0, name: "Name \($0)", city: $0.isMultiple(of: 2) ? "Berlin" : nil) })
            try tx.insert(User.sample(1))
        }
        try primary.write { tx in
            try tx.upsert(Subscriber(id: 3, name: "Fünke", city: "Bern"))
            try tx.delete(Subscriber.self, key: 4)
        }
    }

    @Test func aReplicaHoldsThePrimarysRecordsAndBuildsItsOwnIndexes() throws {
        try fill()
        #expect(try replica.replicate(from: primary) == 2)
        #expect(try contents(replica) == contents(primary))
        #expect(try replica.replicaPosition() == 2)
        try replica.read { tx throws in
            #expect(try tx.verifyIndexes(entity: "Subscriber").problems.isEmpty)
            let found = try tx.query(Subscriber.self).where("name ==[cd] 'funke'").using(index: "name[cd]")
            #expect(try found.explain().description.hasPrefix("IndexScan"))
            #expect(try found.all().map(\.id) == [3])
        }
        // Later commits, a new field and a new index, a delete of everything.
        try primary.write { tx in try tx.upsert(SubscriberV2(id: 5, name: "Five", city: nil, score: 9)) }
        try primary.write { tx in try tx.deleteAll(User.self) }
        #expect(try replica.replicate(from: primary) == 4)
        #expect(try contents(replica) == contents(primary))
        try replica.read { tx throws in
            #expect(try tx.verifyIndexes(entity: "Subscriber").problems.isEmpty)
            #expect(try tx.query(SubscriberV2.self).where(\.score == 9).using(index: "score").all().map(\.id) == [5])
            #expect(try tx.count(User.self) == 0)
        }
    }

    @Test func programsCannotWriteToAReplica() async throws {
        try fill()
        try replica.replicate(from: primary)
        let error = #expect(throws: StrataError.self) { try replica.write { tx in try tx.insert(User.sample(9)) } }
        #expect(error?.code == .readOnlyReplica)
        await #expect(throws: StrataError.self) { try await replica.write { tx in try tx.insert(User.sample(9)) } }
        #expect(throws: StrataError.self) {
            try replica.importJSON(Data(#"[{"id": 9, "name": "x"}]"#.utf8), as: Subscriber.self)
        }
        #expect(throws: StrataError.self) { try replica.enableChangeLog() }
        #expect(try contents(replica) == contents(primary))
    }

    @Test func aStoreOpenedAsAReplicaReadsAndObservesButRefusesWrites() async throws {
        try fill()
        let opened = try Store(path: dir.path("opened"), configuration: .replica)
        let error = await #expect(throws: StrataError.self) { try await opened.write { tx in try tx.insert(User.sample(9)) } }
        #expect(error?.code == .readOnlyReplica && error?.message.contains("opened as a replica") == true)
        try opened.replicate(from: primary)   // the applier writes
        #expect(try await opened.read { tx in try tx.count(Subscriber.self) } == 49)
        var observed: [Int] = []
        for try await users in opened.observe(User.self, { $0 }) {
            observed.append(users.count)
            break
        }
        #expect(observed == [1])
    }

    @Test func aFeedAppliedTwiceChangesNothingAndAGapIsRefused() throws {
        try fill()
        let commits = try primary.read { tx in try tx.loggedCommits(after: 0) }
        #expect(try replica.applyChanges(commits) == 2)
        #expect(try replica.applyChanges(commits) == 2)
        #expect(try replica.applyChanges([commits[0]]) == 2)
        #expect(try contents(replica) == contents(primary))
        try primary.write { tx in try tx.insert(User.sample(2)) }
        try primary.write { tx in try tx.insert(User.sample(3)) }
        let later = try primary.read { tx in try tx.loggedCommits(after: 3) }
        let error = #expect(throws: StrataError.self) { try replica.applyChanges(later) }
        #expect(error?.code == .changesPruned && error?.message.contains("from commit 2 to 4") == true)
        #expect(try replica.replicaPosition() == 2)
    }

    @Test func aDamagedChangeLeavesTheReplicaAtItsLastCommit() throws {
        try fill()
        try replica.replicate(from: primary)
        try primary.write { tx in try tx.insert(User.sample(2)) }
        var commit = try #require(try primary.read { tx in try tx.loggedCommits(after: 2) }.first)
        let change = try #require(commit.changes.first)
        commit = LoggedCommit(sequence: commit.sequence, time: commit.time,
                              changes: [LoggedChange(entity: change.entity, operation: .insert, key: change.key, bytes: [0xA1, 0x01])],
                              origin: commit.origin)
        let error = #expect(throws: StrataError.self) { try replica.applyChanges([commit]) }
        #expect(error?.code == .corruptRecord)
        #expect(try replica.replicaPosition() == 2)
        #expect(try replica.read { tx in try tx.get(User.self, key: 2) } == nil)
    }

    /// What the record walk (`RecordCursor`, through `StoredRecord.check`) refuses in a replicated
    /// record: cut short, bytes after the map, a key that is no field id, no map, nothing.
    @Test(arguments: [[0xA1, 0x01], [0xA0, 0x00], [0xA1, 0x60, 0x01], [0x01], [], [0xBF, 0xFF]] as [[UInt8]])
    func aRecordThatIsNotOneWholeMapOfFieldIdsIsRefusedNamingCommitAndKey(bytes: [UInt8]) throws {
        try fill()
        try replica.replicate(from: primary)
        try primary.write { tx in try tx.insert(User.sample(2)) }
        var commit = try #require(try primary.read { tx in try tx.loggedCommits(after: 2) }.first)
        let change = try #require(commit.changes.first)
        commit = LoggedCommit(sequence: commit.sequence, time: commit.time,
                              changes: [LoggedChange(entity: change.entity, operation: .insert, key: change.key, bytes: bytes)],
                              origin: commit.origin)
        let error = try #require(throws: StrataError.self) { try replica.applyChanges([commit]) }
        #expect(error.code == .corruptRecord && error.entity == "User" && error.key == "2", "\(error)")
        #expect(error.message.hasPrefix("commit 3: "), "\(error.message)")
        #expect(try replica.replicaPosition() == 2)
        #expect(try replica.read { tx in try tx.get(User.self, key: 2) } == nil)
    }

    @Test func aBackupOfThePrimaryStartsAReplicaAtTheCommitItCopied() throws {
        try fill()
        let copy = dir.path("backup")
        try primary.backup(to: copy)
        try primary.write { tx in try tx.insert(User.sample(2)) }
        let fromBackup = try Store(path: copy)
        #expect(try fromBackup.replicate(from: primary) == 3)
        #expect(try contents(fromBackup) == contents(primary))
        #expect(try fromBackup.read { tx in try tx.changeLogRetention() } == nil)   // the copied log is dropped
    }
}
