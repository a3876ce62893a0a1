import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

@Suite struct TransactionTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    struct Boom: Error {}

    @Test func aThrowInsideWriteRollsEverythingBack() throws {
        try store.write { tx in try tx.insert(User.sample(1)) }
        #expect(throws: Boom.self) {
            try store.write { tx throws in
                try tx.insert(User.sample(2))
                try tx.delete(User.self, key: 1)
                try tx.insert(Tag(name: "new entity", uses: 1))
                throw Boom()
            }
        }
        try store.read { tx throws in
            #expect(try tx.all(User.self).map(\.id) == [1])
            #expect(try tx.count(Tag.self) == 0)
        }
        // The entity created by the rolled-back transaction is created again cleanly.
        try store.write { tx in try tx.insert(Tag(name: "again", uses: 2)) }
        #expect(try store.read { tx in try tx.all(Tag.self).map(\.name) } == ["again"])
    }

    @Test func aWriteReadsItsOwnWrites() throws {
        try store.write { tx throws in
            try tx.insert(User.sample(1))
            #expect(try tx.get(User.self, key: 1) != nil)
            #expect(try tx.count(User.self) == 1)
        }
    }

    @Test func aFailedSavepointUndoesOnlyItsOwnWrites() throws {
        try store.write { tx throws in
            try tx.insert(User.sample(1))
            #expect(throws: StrataError.self) {
                try tx.savepoint { nested in
                    try nested.insert(User.sample(2))
                    try nested.insert(Tag(name: "inside", uses: 0))
                    try nested.insert(User.sample(1))   // duplicate: the savepoint fails
                }
            }
            try tx.savepoint { nested in try nested.insert(User.sample(3)) }
        }
        try store.read { tx throws in
            #expect(try tx.all(User.self).map(\.id) == [1, 3])
            #expect(try tx.count(Tag.self) == 0)
        }
    }

    @Test func readersKeepTheirSnapshotWhileAWriterCommits() async throws {
        try await store.write { tx in try tx.insert(User.sample(1)) }
        let store = self.store
        let inReader = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        async let observed: (Int, Int, String?) = store.read { tx throws in
            let before = try tx.count(User.self)
            inReader.signal()
            writerDone.wait()
            return (before, try tx.count(User.self), try tx.get(User.self, key: 1)?.lastName)
        }
        await Task.detached { inReader.wait() }.value
        try await store.write { tx throws in
            try tx.insert(User.sample(2))
            try tx.upsert(User.sample(1, "Jimmy", "Changed"))
        }
        writerDone.signal()
        let (before, after, name) = try await observed
        #expect(before == 1 && after == 1 && name == "James")
        #expect(try await store.read { tx in try tx.count(User.self) } == 2)
    }

    @Test func manyConcurrentReadersAndOneWriterSeeConsistentSnapshots() async throws {
        // Every write moves one unit between two records; every snapshot must see the same total.
        try await store.write { tx throws in
            try tx.insert(Tag(name: "a", uses: 1000))
            try tx.insert(Tag(name: "b", uses: 0))
        }
        let store = self.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<200 {
                    try await store.write { tx throws in
                        var a = try tx.get(Tag.self, key: "a")!, b = try tx.get(Tag.self, key: "b")!
                        a.uses -= 1; b.uses += 1
                        try tx.update(a); try tx.update(b)
                    }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 {
                        let total = try await store.read { tx in try tx.all(Tag.self).reduce(0) { $0 + $1.uses } }
                        #expect(total == 1000)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.read { tx in try tx.get(Tag.self, key: "b")?.uses } == 200)
    }

    @Test func theMapGrowsPastItsInitialSizeWithoutUserAction() throws {
        let (small, smallDir) = try makeStore { $0.initialMapSize = 1 << 20 }
        let before = small.mapSize
        let text = String(repeating: "x", count: 2000)
        try small.write { tx throws in
            for i in 0..<5_000 { try tx.insert(User(id: Int64(i), firstName: text, lastName: "L", luckyNumber: i, createdDate: .now)) }
        }
        for round in 0..<3 {
            try small.write { tx throws in
                for i in 0..<2_000 { try tx.insert(User(id: Int64(10_000 * (round + 1) + i), firstName: text, lastName: text, luckyNumber: nil, createdDate: .now)) }
            }
        }
        #expect(small.mapSize > before)
        #expect(try small.read { tx in try tx.count(User.self) } == 11_000)
        withExtendedLifetime(smallDir) {}
    }

    @Test func deferredWritesAreVisibleAndFlushable() throws {
        try store.write(durability: .deferred) { tx in try tx.insert(User.sample(1)) }
        try store.flush()
        #expect(try store.read { tx in try tx.exists(User.self, key: 1) })
    }

    @Test func twoStoresOnOnePathShareOneEnvironment() throws {
        let other = try Store(path: store.path)
        #expect(other.environment === store.environment)
        try other.write { tx in try tx.insert(User.sample(5)) }
        #expect(try store.read { tx in try tx.get(User.self, key: 5) } != nil)
    }

    @Test func recordsSurviveReopening() throws {
        let dir = try TemporaryDirectory("reopen")
        do {
            let store = try Store(path: dir.path("s"))
            try store.write { tx in try tx.insert([User.sample(1), User.sample(2)]) }
        }
        let reopened = try Store(path: dir.path("s"))
        #expect(try reopened.read { tx in try tx.all(User.self) } == [User.sample(1), User.sample(2)])
    }

    @Test func asyncWritesAndReadsDoNotBlockTheCaller() async throws {
        try await store.write { tx in try tx.insert(User.sample(1)) }
        let count = try await store.read { tx in try tx.count(User.self) }
        #expect(count == 1)
        await #expect(throws: Boom.self) {
            try await store.write { tx in try tx.insert(User.sample(2)); throw Boom() }
        }
        #expect(try await store.read { tx in try tx.count(User.self) } == 1)
    }
}
