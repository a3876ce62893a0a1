import Dispatch
import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataObservation

/// Which commits make an observation read again, counted: `fetches()` counts read transactions
/// opened for it, `reads()` the values read; `settled()` waits until every commit made so far has
/// been looked at, so the counts are final when compared (no sleeping). A test awaits a value only
/// after the counts showed that one was read.
@Suite struct ObservationSkipTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.upsert([IndexedUser.make(1, "Bluth", 13), IndexedUser.make(2, "James", 3), IndexedUser.make(3, "Veal", 25)])
        }
    }

    @Test func commitsOutsideTheObservedIndexRangeAreNotReevaluated() async throws {
        let observation = store.observe(IndexedUser.self) {
            try $0.where("luckyNumber >= 10 AND luckyNumber < 20").sorted(by: "luckyNumber")
        }
        var values = observation.makeAsyncIterator()
        #expect(try await values.next()?.map(\.id) == [1])
        await observation.settled()
        #expect(observation.fetches() == 1)

        // The same entity, outside the range: inserted, moved within the outside, deleted; and
        // another entity. None opens a read transaction.
        try await store.write { tx in try tx.upsert(IndexedUser.make(4, "Fünke", 30)) }
        try await store.write { tx in try tx.upsert(IndexedUser.make(2, "James", 4)) }
        try await store.write { tx in _ = try tx.delete(IndexedUser.self, key: 3) }
        try await store.write { tx in try tx.upsert(User.sample(9)) }
        await observation.settled()
        #expect(observation.fetches() == 1)
        #expect(observation.reads() == 1)

        // Into the range: read again and delivered.
        try await store.write { tx in try tx.upsert(IndexedUser.make(5, "Bluth", 15)) }
        await observation.settled()
        try #require(observation.reads() == 2)
        #expect(try await values.next()?.map(\.id) == [1, 5])

        // Out of the range, from inside it: the record was in the result, so it is read again.
        try await store.write { tx in try tx.upsert(IndexedUser.make(1, "Bluth", 40)) }
        await observation.settled()
        try #require(observation.reads() == 3)
        #expect(try await values.next()?.map(\.id) == [5])

        // Changed inside the range without changing the result's order: read, delivered.
        try await store.write { tx in try tx.upsert(IndexedUser.make(5, "Fünke", 15)) }
        await observation.settled()
        try #require(observation.reads() == 4)
        #expect(try await values.next()?.map(\.lastName) == ["Fünke"])
        #expect(observation.fetches() == 4)
    }

    @Test func aPageWithAnOffsetIsReadAgainWhenARecordBeforeItLeaves() async throws {
        try await store.write { tx in
            try tx.upsert([IndexedUser.make(4, "Fünke", 14), IndexedUser.make(5, "Bluth", 15), IndexedUser.make(6, "Bluth", 16)])
        }
        // Matching in luckyNumber order: 1 (13), 4 (14), 5 (15), 6 (16); the page skips one.
        let observation = store.observe(IndexedUser.self) {
            try $0.where("luckyNumber >= 10 AND luckyNumber < 20").sorted(by: "luckyNumber").offset(1).limit(2)
        }
        var values = observation.makeAsyncIterator()
        #expect(try await values.next()?.map(\.id) == [4, 5])
        // Record 1 is before the page: deleting it shifts the page.
        try await store.write { tx in _ = try tx.delete(IndexedUser.self, key: 1) }
        await observation.settled()
        try #require(observation.reads() == 2)
        #expect(try await values.next()?.map(\.id) == [5, 6])
        // Record 4, now before the page, leaves the range: the page shifts again.
        try await store.write { tx in try tx.upsert(IndexedUser.make(4, "Fünke", 40)) }
        await observation.settled()
        try #require(observation.reads() == 3)
        #expect(try await values.next()?.map(\.id) == [6])
    }

    /// A commit that arrives while a read is under way cannot be judged against that read's
    /// result, which is not known yet: it goes to the next read. (Judged against the result
    /// before, a record the running read picks up and the commit then moves out of the range
    /// would stay in the delivered value.)
    @Test func aCommitDuringAReadIsLeftToTheNextRead() async throws {
        let reading = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let calls = Events()
        // The judge before any read finds every commit of IndexedUser irrelevant: only the
        // driver's rule can make such a commit read again.
        let observation = store.observe(relevance: .byLastRead { changes in changes.touches("Tag") }) { _, _ -> Int? in
            calls.note("fetch")   // reads of one observation run one at a time
            let call = calls.all.count
            if call == 2 {
                reading.fire()
                release.wait()
            }
            return call
        }
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == 1)
        await observation.settled()
        try await store.write { tx in try tx.upsert(Tag(name: "swift", uses: 1)) }
        await reading.wait()
        // Read 2 is under way: this commit must be read after it.
        try await store.write { tx in try tx.upsert(IndexedUser.make(7, "Veal", 12)) }
        await store.observers.delivered()
        release.signal()
        await observation.settled()
        #expect(observation.fetches() == 3)
        // Once settled, the judge decides again: this commit is not read.
        try await store.write { tx in try tx.upsert(IndexedUser.make(8, "Veal", 12)) }
        await observation.settled()
        #expect(observation.fetches() == 3)
        #expect(try await values.next() == 3)
    }

    /// Observers of one condition share one object, which the center keeps while an observer
    /// holds it and drops once none does.
    @Test func aSharedConditionLivesAsLongAsAnObserverHoldsIt() {
        let entity = store.entityName(of: IndexedUser.self)
        func condition() -> ObservedCondition {
            store.observers.condition(entity: entity, predicate: .constant(false), fields: FieldTable())
        }
        var first: ObservedCondition? = condition()
        var second: ObservedCondition? = condition()
        #expect(first === second)
        weak let firstGone = first
        second = nil
        #expect(condition() === first)      // still held by `first`: kept and shared
        first = nil
        let third = condition()             // only the center held it: dropped, a new one made
        #expect(firstGone == nil)
        #expect(third !== firstGone)
    }

    /// The same rule in the commit pass, which judges query observers against their last result:
    /// while an observer's read is queued or under way, every commit is handed to it, whatever
    /// its last result and condition say.
    @Test func theCommitPassLeavesACommitDuringAReadToTheNextRead() async throws {
        let reading = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let calls = Events()
        let entity = store.entityName(of: IndexedUser.self)
        let result = ObservedResult(entity: entity, center: store.observers)
        // A condition no record matches, and a last result of record 7 only.
        let never = store.observers.condition(entity: entity, predicate: .constant(false), fields: FieldTable())
        let seven = IndexedUser.make(7, "Veal", 12).primaryKeyValue.orderedKey
        let observation = store.observe(relevance: .byCommit { _ in true }, interest: .query(result), result: result) { _, _ -> Int? in
            calls.note("fetch")
            let call = calls.all.count
            result.update(keys: [seven], condition: never)
            if call == 2 {
                reading.fire()
                release.wait()
            }
            return call
        }
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == 1)
        await observation.settled()
        // Neither in the result nor matching: not read.
        try await store.write { tx in try tx.upsert(IndexedUser.make(6, "Veal", 12)) }
        await observation.settled()
        #expect(observation.fetches() == 1)
        // In the result: read 2, which blocks.
        try await store.write { tx in try tx.upsert(IndexedUser.make(7, "Veal", 12)) }
        await reading.wait()
        // Read 2 is under way: this commit must be read after it.
        try await store.write { tx in try tx.upsert(IndexedUser.make(8, "Veal", 12)) }
        await store.observers.delivered()
        release.signal()
        await observation.settled()
        #expect(observation.fetches() == 3)
        // Once settled, the pass judges again: this commit is not read.
        try await store.write { tx in try tx.upsert(IndexedUser.make(9, "Veal", 12)) }
        await observation.settled()
        #expect(observation.fetches() == 3)
        #expect(try await values.next() == 3)
    }

    /// Many observers of a few conditions (the commit pass evaluates each condition once per
    /// commit): a commit is read only by the observers whose range it enters.
    @Test func observersOfOtherRangesAreNotReadForACommit() async throws {
        let low = store.observe(IndexedUser.self) { try $0.where("luckyNumber < 10") }
        let high = (0..<10).map { _ in store.observe(IndexedUser.self) { try $0.where("luckyNumber >= 20") } }
        var lowValues = low.makeAsyncIterator()
        var highValues = high.map { $0.makeAsyncIterator() }
        #expect(try await lowValues.next()?.map(\.id) == [2])
        for index in highValues.indices { #expect(try await highValues[index].next()?.map(\.id) == [3]) }

        try await store.write { tx in try tx.upsert(IndexedUser.make(4, "Fünke", 5)) }
        await low.settled()
        for observation in high { await observation.settled() }
        try #require(low.reads() == 2)
        #expect(high.map { $0.fetches() } == Array(repeating: 1, count: high.count))
        #expect(try await lowValues.next()?.map(\.id) == [2, 4])

        try await store.write { tx in try tx.upsert(IndexedUser.make(5, "Fünke", 25)) }
        await low.settled()
        for observation in high { await observation.settled() }
        #expect(low.fetches() == 2)
        try #require(high.map { $0.reads() } == Array(repeating: 2, count: high.count))
        for index in highValues.indices { #expect(try await highValues[index].next()?.map(\.id) == [3, 5]) }
    }

    /// An import notes its entity as changed (without keys) only when it writes: a re-import
    /// that changes nothing, and the related entities a payload does not nest, wake no observer.
    @Test func importsThatWriteNothingToAnEntityDoNotMakeItsObserversRead() async throws {
        try await store.importJSON(Data(NestedImportTests.kipuPayload.utf8), as: KipuUser.self,
                                   options: ImportOptions(related: [.record(KipuNote.self)]))
        let notes = store.observe(KipuNote.self) { $0 }
        var values = notes.makeAsyncIterator()
        #expect(try await values.next()?.count == 4)
        await notes.settled()
        #expect(notes.fetches() == 1)

        // The same payload again: nothing changes. Users without nested notes: only users change.
        try await store.importJSON(Data(NestedImportTests.kipuPayload.utf8), as: KipuUser.self,
                                   options: ImportOptions(related: [.record(KipuNote.self)]))
        try await store.importJSON(Data(#"[{"id": 9, "name": "Buster", "email": "b@x", "created_at": 0, "updated_at": 0}]"#.utf8),
                                   as: KipuUser.self, options: ImportOptions(related: [.record(KipuNote.self)]))
        await notes.settled()
        #expect(notes.fetches() == 1)

        // A payload that changes a note is noticed.
        try await store.importJSON(Data(#"{"id": 9, "notes": [{"id": 50, "text": "new", "created_at": 0, "updated_at": 0}]}"#.utf8),
                                   as: KipuUser.self, options: ImportOptions(related: [.record(KipuNote.self)]))
        await notes.settled()
        try #require(notes.fetches() == 2)
        #expect(try await values.next()?.map(\.id) == [0, 1, 2, 10, 50])
    }

    /// A count observer skips commits to other entities without a read, unless its condition
    /// goes through a relationship (which other entities' commits change).
    @Test func countObserversSkipOtherEntitiesUnlessTheirConditionIsRelated() async throws {
        try await store.importJSON(Data(NestedImportTests.kipuPayload.utf8), as: KipuUser.self,
                                   options: ImportOptions(related: [.record(KipuNote.self)]))
        let high = store.observeCount(IndexedUser.self) { try $0.where("luckyNumber > 10") }
        let diarists = store.observeCount(KipuUser.self) { try $0.where("ANY notes.text BEGINSWITH 'Shawn'") }
        var highValues = high.makeAsyncIterator(), diaristValues = diarists.makeAsyncIterator()
        #expect(try await highValues.next() == 2)
        #expect(try await diaristValues.next() == 1)
        await high.settled()
        await diarists.settled()
        #expect(high.fetches() == 1)
        #expect(diarists.fetches() == 1)

        // A note of Gob's now starts with "Shawn": only the relationship count reads, and changes.
        try await store.write { tx in
            try tx.upsert(KipuNote(id: 10, text: "Shawn's trick", createdDate: .now, updatedDate: .now, userID: 7))
        }
        await high.settled()
        await diarists.settled()
        #expect(high.fetches() == 1)
        try #require(diarists.fetches() == 2)
        #expect(try await diaristValues.next() == 2)

        // Its own entity: read, and delivered when the count changed.
        try await store.write { tx in try tx.upsert(IndexedUser.make(4, "Fünke", 30)) }
        await high.settled()
        try #require(high.fetches() == 2)
        #expect(try await highValues.next() == 3)
    }
}
