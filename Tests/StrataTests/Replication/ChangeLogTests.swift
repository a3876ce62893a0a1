import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// The change log: one entry per commit that changed records, written in the commit's own
/// transaction, pruned by its retention in bounded steps, read by sequence.
@Suite struct ChangeLogTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    func commits(after sequence: UInt64 = 0) throws -> [LoggedCommit] {
        try store.read { tx in try tx.loggedCommits(after: sequence, limit: 10_000) }
    }

    /// The records' changes of `commit`, without its schema entries.
    func records(_ commit: LoggedCommit) -> [LoggedChange] { commit.changes.filter { $0.operation != .schema } }

    func stored(_ id: Int64) throws -> [UInt8]? {
        try store.read { tx in
            let context = try #require(try tx.context(named: "User"))
            return try tx.raw.value(forKey: id.orderedKey, in: context.records)
        }
    }

    @Test func aStoreKeepsNoLogUntilAskedTo() throws {
        try store.write { tx in try tx.insert(User.sample(1)) }
        #expect(try store.read { tx in try tx.changeLogRange() } == nil)
        #expect(try store.read { tx in try tx.changeLogRetention() } == nil)
        let error = #expect(throws: StrataError.self) { try commits() }
        #expect(error?.code == .notFound && error?.message.contains("keeps no change log") == true)
    }

    @Test func everyCommitThatChangesRecordsIsOneEntryWithItsChangesInOrder() throws {
        try store.enableChangeLog()
        try store.write { tx in try tx.insert([User.sample(1), User.sample(2)]) }
        try store.write { tx in
            #expect(try tx.upsert(User.sample(1, "Jim")) == .updated)
            #expect(try tx.upsert(User.sample(2)) == .unchanged)   // not rewritten, not logged
            try tx.delete(User.self, key: 2)
        }
        try store.write { _ in }                                    // changes nothing: no sequence
        try store.write { tx in try tx.deleteAll(User.self) }
        let log = try commits()
        #expect(log.map(\.sequence) == [1, 2, 3])
        #expect(log[0].changes.map(\.operation) == [.insert, .insert, .schema])   // the new entity's catalog entry last
        #expect(log[1].changes.map(\.operation) == [.update, .delete])
        #expect(log[2].changes.map(\.operation) == [.deleteAll])
        #expect(log[2].changes[0].key.isEmpty && log[2].changes[0].entity == "User")
        #expect(log[1].changes[0].key == Int64(1).orderedKey && log[1].changes[1].bytes == nil)
        // The logged bytes are the stored bytes: a replica writes them as they are.
        try store.write { tx in try tx.insert(User.sample(7)) }
        #expect(try commits(after: 3).first?.changes.first?.bytes == stored(7))
        let entry = try #require(log[0].changes.last?.bytes)
        #expect(try EntitySchema(catalogEntry: entry).name == "User")
        #expect(try store.read { tx in try tx.changeLogRange() } == 1...4)
        #expect(try commits(after: 2).map(\.sequence) == [3, 4])
        #expect(try store.read { tx in try tx.loggedCommits(after: 0, limit: 2) }.map(\.sequence) == [1, 2])
    }

    @Test func readingAfterTheLargestSequenceFindsNothingInsteadOfOverflowing() throws {
        try store.enableChangeLog()
        try store.write { tx in try tx.insert(User.sample(1)) }
        #expect(try commits(after: .max).isEmpty)
        #expect(try commits(after: .max - 1).isEmpty)
    }

    /// A reader that acknowledges the largest sequence lets every earlier commit go; the next
    /// commit's pruning stopped the process (`sequence + 1` overflowed).
    @Test func acknowledgingTheLargestSequencePrunesWithoutOverflowing() throws {
        try store.enableChangeLog(retention: .acknowledged)
        try store.registerChangeReader("replica", at: 0)
        for id in 1...3 { try store.write { tx in try tx.insert(User.sample(Int64(id))) } }
        try store.acknowledgeChanges(through: .max, reader: "replica")
        try store.write { tx in try tx.insert(User.sample(4)) }
        #expect(try store.read { tx in try tx.changeLogRange() } == 4...4)
    }

    @Test func theLogCommitsAndRollsBackWithTheData() throws {
        try store.enableChangeLog()
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try store.write { tx in try tx.insert(User.sample(1)); throw Failure() }
        }
        #expect(try store.read { tx in try tx.changeLogRange() } == nil)
        try store.write { tx in
            try tx.insert(User.sample(1))
            _ = try? tx.savepoint { child in try child.insert(User.sample(2)); throw Failure() }
            try tx.savepoint { child in try child.insert(User.sample(3)) }
        }
        let log = try commits()
        #expect(log.count == 1)
        #expect(records(log[0]).map(\.key) == [Int64(1).orderedKey, Int64(3).orderedKey])
    }

    @Test func importsAndUntypedWritesAreLoggedToo() throws {
        try store.enableChangeLog()
        let json = #"[{"id": 1, "first_name": "A", "last_name": "B", "created_date": 1700000000}, {"id": 2, "first_name": "C", "last_name": "D", "created_date": 1700000000}]"#
        try store.importJSON(Data(json.utf8), as: User.self)
        try store.write { tx in _ = try tx.delete(entity: "User", key: .int(1)) }
        let log = try commits()
        #expect(log.map { records($0).map(\.operation) } == [[.insert, .insert], [.delete]])
        #expect(log[0].changes[1].bytes == (try stored(2)))
    }

    @Test func aRetentionByCountKeepsTheLastCommitsAndSaysWhenAPositionIsGone() throws {
        try store.enableChangeLog(retention: .commits(3))
        for id in 1...10 { try store.write { tx in try tx.insert(User.sample(Int64(id))) } }
        #expect(try store.read { tx in try tx.changeLogRange() } == 8...10)
        #expect(try commits(after: 7).map(\.sequence) == [8, 9, 10])
        #expect(try commits(after: 10).isEmpty)
        let error = #expect(throws: StrataError.self) { try commits(after: 2) }
        #expect(error?.code == .changesPruned && error?.message.contains("commits 8 through 10") == true, "\(String(describing: error))")
    }

    @Test func aRetentionByAgePrunesCommitsWhoseHeadersAreOlder() throws {
        try store.enableChangeLog(retention: .seconds(3600))
        for id in 1...4 { try store.write { tx in try tx.insert(User.sample(Int64(id))) } }
        // Make commits 1 and 2 two hours old.
        try store.write { tx in
            let database = try #require(try tx.raw.openDatabase(ChangeLogFormat.databaseName))
            for sequence: UInt64 in [1, 2] {
                try tx.raw.put(ChangeLogFormat.header(time: Date().addingTimeInterval(-7200)),
                               forKey: ChangeLogFormat.key(sequence, 0), in: database)
            }
        }
        try store.write { tx in try tx.insert(User.sample(5)) }
        #expect(try store.read { tx in try tx.changeLogRange() } == 3...5)
    }

    @Test func anAcknowledgedRetentionKeepsWhatAReaderHasNotApplied() throws {
        try store.enableChangeLog(retention: .acknowledged)
        try store.registerChangeReader("replica", at: 0)
        for id in 1...5 { try store.write { tx in try tx.insert(User.sample(Int64(id))) } }
        #expect(try store.read { tx in try tx.changeLogRange() } == 1...5)
        try store.acknowledgeChanges(through: 3, reader: "replica")
        #expect(try store.changeReaders() == ["replica": 3])
        try store.write { tx in try tx.insert(User.sample(6)) }
        #expect(try store.read { tx in try tx.changeLogRange() } == 4...6)
        try store.removeChangeReader("replica")
        #expect(try store.changeReaders().isEmpty)
    }

    @Test func pruningABacklogTakesBoundedStepsAndReadersSeeOnlyWholeCommits() throws {
        try store.enableChangeLog(retention: .commits(1))
        let many = ChangeLogWriter.pruneStep + 1_000
        try store.write { tx in try tx.insert((1...many).map { User.sample(Int64($0)) }) }
        try store.write { tx in try tx.insert(User.sample(Int64(many + 1))) }
        // One step deleted the first commit's header and most of its changes, not all of them.
        let left = try store.read { tx in
            try tx.raw.withCursor(try #require(try tx.raw.openDatabase(ChangeLogFormat.databaseName))) { cursor in
                var count = 0
                var more = try cursor.first()
                while more { count += 1; more = try cursor.next() }
                return count
            }
        }
        #expect(left == (many + 2) + 2 - ChangeLogWriter.pruneStep)   // both commits (the first with its schema entry and header), less one step
        #expect(try store.read { tx in try tx.changeLogRange() } == 2...2)
        #expect(try commits(after: 1).map(\.sequence) == [2])
        try store.write { tx in try tx.insert(User.sample(Int64(many + 2))) }
        #expect(try store.read { tx in try tx.changeLogRange() } == 3...3)
    }

    @Test func everyStoreOnThePathLogsOnceOneEnabledIt() throws {
        let other = try Store(path: store.path)
        try store.enableChangeLog()
        try other.write { tx in try tx.insert(User.sample(1)) }
        #expect(try commits().count == 1)
        var configuration = Store.Configuration()
        configuration.changeLog = .commits(5)
        let configured = try Store(path: store.path, configuration: configuration)
        #expect(try configured.read { tx in try tx.changeLogRetention() } == .commits(5))
        try store.disableChangeLog()
        try other.write { tx in try tx.insert(User.sample(2)) }
        #expect(throws: StrataError.self) { try commits() }
    }

    @Test func theFeedReplaysTheLogThenFollowsNewCommits() async throws {
        try store.enableChangeLog()
        try await store.write { tx in try tx.insert(User.sample(1)) }
        try await store.write { tx in try tx.insert(User.sample(2)) }
        let store = self.store
        let reader = Task {
            var seen: [UInt64] = []
            for try await commit in store.changes(after: 0) {
                seen.append(commit.sequence)
                if seen.count == 4 { break }
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(50))
        try await store.write { tx in try tx.insert(User.sample(3)) }
        try await store.write { tx in try tx.delete(User.self, key: 1) }
        #expect(try await reader.value == [1, 2, 3, 4])
    }

    @Test func theTypedFeedDecodesRecordsAndKeys() async throws {
        try store.enableChangeLog()
        try await store.write { tx in try tx.insert([User.sample(1), User.sample(2)]); try tx.insert(Tag(name: "x", uses: 1)) }
        try await store.write { tx in try tx.delete(User.self, key: 1) }
        var changes: [TypedChange<User>] = []
        for try await change in store.changes(of: User.self, after: 0) {
            changes.append(change)
            if changes.count == 3 { break }
        }
        #expect(changes.map(\.operation) == [.insert, .insert, .delete])
        #expect(changes.map(\.key) == [1, 2, 1])
        #expect(changes[1].record == User.sample(2) && changes[2].record == nil)
        #expect(changes.map(\.sequence) == [1, 1, 2])
    }

    @Test func aFeedFromAPrunedPositionThrows() async throws {
        try store.enableChangeLog(retention: .commits(1))
        for id in 1...3 { try await store.write { tx in try tx.insert(User.sample(Int64(id))) } }
        await #expect(throws: StrataError.self) {
            for try await _ in store.changes(after: 0) {}
        }
    }
}
