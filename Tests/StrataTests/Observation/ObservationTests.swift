import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataObservation

@Suite struct ObservationTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.upsert([User.sample(1, "George", "Bluth", lucky: 13), User.sample(2, "Jimmy", "James", lucky: 3)]) }
    }

    @Test func theFirstValueComesAtOnceThenOnePerChangingCommit() async throws {
        let observation = store.observe(User.self) { try $0.where("lastName == %@", "Bluth").sorted(by: "luckyNumber desc") }
        var values = observation.makeAsyncIterator()
        #expect(try await values.next()?.map(\.id) == [1])
        // A commit whose records neither were in the result nor match is not even read.
        try await store.write { tx in try tx.upsert(User.sample(3, "Ron", "Swanson", lucky: 11)) }
        try await store.write { tx in try tx.upsert(User.sample(4, "Michael", "Bluth", lucky: 20)) }
        #expect(try await values.next()?.map(\.id) == [4, 1])
        #expect(observation.reads() == 2)
        // Leaving the result is a change too.
        try await store.write { tx in try tx.delete(User.self, key: 1) }
        #expect(try await values.next()?.map(\.id) == [4])
        try await store.write { tx in try tx.update(User.sample(4, "Michael", "Bluth", lucky: 21)) }
        #expect(try await values.next()?.map(\.luckyNumber) == [21])
    }

    @Test func commitsToOtherEntitiesAreNotRead() async throws {
        let observation = store.observe(Tag.self, key: "swift")
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == .some(nil))
        try await store.write { tx in try tx.upsert(User.sample(5)) }
        try await store.write { tx in try tx.upsert(Tag(name: "other", uses: 1)) }
        try await store.write { tx in try tx.upsert(Tag(name: "swift", uses: 7)) }
        #expect(try await values.next() == .some(Tag(name: "swift", uses: 7)))
        #expect(observation.reads() == 2)
    }

    @Test func fastCommitsAreCoalesced() async throws {
        let observation = store.observeCount(User.self)
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == 2)
        for id in 10..<60 { try await store.write { tx in try tx.upsert(User.sample(Int64(id))) } }
        var received: [Int] = []
        while received.last != 52, let value = try await values.next() { received.append(value) }
        #expect(received.last == 52)
        #expect(received.count < 50, "\(received)")
        #expect(received == received.sorted())
    }

    @Test func countsAndAggregatesFollowTheirQueries() async throws {
        let bluths = store.observeCount(User.self) { try $0.where("lastName == 'Bluth'") }
        let total = store.observe(entities: ["User"]) { tx in try tx.query(User.self).sum(\.luckyNumber) }
        var counts = bluths.makeAsyncIterator(), sums = total.makeAsyncIterator()
        #expect(try await counts.next() == 1)
        #expect(try await sums.next() == 16)
        try await store.write { tx in try tx.upsert(User.sample(7, "Buster", "Bluth", lucky: 4)) }
        #expect(try await counts.next() == 2)
        #expect(try await sums.next() == 20)
    }

    @Test func importsAreNoticed() async throws {
        let observation = store.observeCount(User.self)
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == 2)
        try await store.importJSON(Data(#"[{"id": 30, "first_name": "Ann", "last_name": "Veal", "created_date": 0}]"#.utf8), as: User.self)
        #expect(try await values.next() == 3)
    }

    @Test func cancellingTheConsumerEndsTheObservation() async throws {
        let firstValue = TestSignal()
        let task = Task { [store] in
            var seen = 0
            for try await _ in store.observeCount(User.self) {
                seen += 1
                firstValue.fire()
            }
            return seen
        }
        await firstValue.wait()
        #expect(store.observers.isObserved)
        task.cancel()
        // The stream's termination handler unregisters the observer before the loop ends.
        #expect(try await task.value == 1)
        #expect(!store.observers.isObserved)
    }

    @Test(.enabled(if: Python.hasModules(["lmdb"]), "needs python3 with the lmdb module to write from another process"))
    func commitsOfAnotherProcessAreNoticed() async throws {
        let observation = store.observeCount(User.self)
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == 2)
        // Another process copies user 2 under key 99 (the key encoding of Int64 99).
        let script = """
            import lmdb, sys
            env = lmdb.open(sys.argv[1], max_dbs=64, subdir=True)
            records = env.open_db(b'records/User')
            with env.begin(write=True, db=records) as txn:
                value = txn.get(bytes([0x20, 0x80, 0, 0, 0, 0, 0, 0, 2]))
                txn.put(bytes([0x20, 0x80, 0, 0, 0, 0, 0, 0, 99]), value)
            """
        let result = try Python.run(script, arguments: [store.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(try await values.next() == 3)
    }
}
