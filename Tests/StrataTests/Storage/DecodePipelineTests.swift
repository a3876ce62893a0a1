import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A query's results are decoded on a second thread while the query still finds them
/// (`DecodePipeline`): at every size around its chunk and start thresholds, and past the batch
/// where it hands over to `BatchDecoder`, results must be those of one thread, in order; a
/// corrupt record is named; a query stopped by a throw leaves the next one unaffected.
@Suite struct DecodePipelineTests {
    static var chunk: Int { DecodePipeline<User>.chunkSize }
    static var startAt: Int { chunk * DecodePipeline<User>.startAfter }

    static let sizes = [0, 1, chunk - 1, chunk, chunk + 1, startAt - 1, startAt, startAt + 1, 100,
                        BatchDecoder<User>.batchSize - 1, BatchDecoder<User>.batchSize,
                        BatchDecoder<User>.batchSize + 1, BatchDecoder<User>.batchSize * 2 + 5]

    @Test func everySizeComesBackInOrder() throws {
        let (store, dir) = try makeStore()
        _ = dir
        let total = Self.sizes.max()!
        try store.write { tx in try tx.upsert((1...total).map { User.sample(Int64($0)) }) }
        try store.read { tx in
            for size in Self.sizes {
                // Ascending and descending key order, through the query path (not a plain scan).
                let ascending = try tx.query(User.self, "id <= %@", size).all()
                #expect(ascending.map(\.id) == (0..<size).map { Int64($0 + 1) }, "size \(size)")
                #expect(ascending == (0..<size).map { User.sample(Int64($0 + 1)) }, "size \(size)")
                let descending = try tx.query(User.self, "id <= %@", size).sorted(by: \.id, .descending).all()
                #expect(descending.map(\.id) == (0..<size).reversed().map { Int64($0 + 1) }, "size \(size)")
                var streamed: [Int64] = []
                try tx.query(User.self, "id <= %@", size).forEach { streamed.append($0.id) }
                #expect(streamed == ascending.map(\.id), "size \(size)")
            }
        }
    }

    @Test func aCorruptRecordFoundAfterTheHelperStartedIsNamed() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx in try tx.upsert((1...200).map { User.sample(Int64($0)) }) }
        for bad in [Int64(2), Int64(Self.startAt + 3), 150] {
            try store.write { tx in
                let context = try #require(try tx.context(for: User.self))
                try tx.raw.put([0xFF, 0x00], forKey: bad.orderedKey, in: context.records)
            }
            let error = try #require(throws: StrataError.self) {
                try store.read { tx in try tx.query(User.self, "id <= 180").all() }
            }
            #expect(error.code == .corruptRecord)
            #expect(error.message.contains("\(bad)"), "\(error.message)")
            try store.write { tx in try tx.upsert(User.sample(bad)) }
        }
        #expect(try store.read { tx in try tx.query(User.self, "id <= 180").all().count } == 180)
    }

    @Test func aQueryStoppedByAThrowLeavesTheNextOneWhole() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx in try tx.upsert((1...500).map { User.sample(Int64($0)) }) }
        struct Stop: Error {}
        for stopAt in [1, Self.startAt + 1, 300] {
            var visited = 0
            #expect(throws: Stop.self) {
                try store.read { tx in
                    try tx.query(User.self, "id <= 400").forEach { _ in
                        visited += 1
                        if visited == stopAt { throw Stop() }
                    }
                }
            }
            #expect(visited == stopAt)
            #expect(try store.read { tx in try tx.query(User.self, "id > 100").all().map(\.id) } == (101...500).map(Int64.init))
        }
    }

    @Test func theHelperReturnsWhenThePipelineFinishesOrIsCancelled() throws {
        var fields = FieldTable()
        let records = try (1...Int64(Self.startAt + 20)).map { id in (id.orderedKey, try CodecHarness.encode(User.sample(id), fields: &fields)) }
        let executor = DecodeExecutor(threads: 1)
        for cancels in [false, true] {
            let pipeline = DecodePipeline<User>(fields: fields, entity: "User", executor: executor)
            for (key, bytes) in records { pipeline.append(key: key, value: bytes) }
            if cancels {
                pipeline.cancel()
            } else {
                var decoded = try pipeline.finish(describeKey: { _ in "" })
                var ids: [Int64] = []
                _ = decoded.forEach { ids.append($0.id); return true }
                #expect(ids == records.indices.map { Int64($0 + 1) })
            }
            // The helper job must end (or be taken back): it must not be left waiting.
            let deadline = Date().addingTimeInterval(10)
            while pipeline.helperIsRunning && Date() < deadline { usleep(1_000) }
            #expect(!pipeline.helperIsRunning, cancels ? "after cancel()" : "after finish")
        }
    }

    /// With no worker (an executor of no threads, as on one CPU), records are decoded as they are
    /// appended, from arrays and from spans alike: every size comes back in order, drained and
    /// appended again, and the first corrupt record is named, whatever follows it.
    @Test(arguments: [0, 1, 7, 8, 9, 100, 300])
    func withoutWorkersRecordsAreDecodedAsAppended(count: Int) throws {
        var fields = FieldTable()
        let records = try (0..<Int64(count)).map { id in (id.orderedKey, try CodecHarness.encode(User.sample(id + 1), fields: &fields)) }
        let executor = DecodeExecutor(threads: 0)
        let pipeline = DecodePipeline<User>(fields: fields, entity: "User", executor: executor)
        var ids: [Int64] = []
        for (position, (key, bytes)) in records.enumerated() {
            if position.isMultiple(of: 2) {
                pipeline.append(key: key, value: bytes)
            } else {
                bytes.withUnsafeBufferPointer { buffer in pipeline.append(key: key, value: buffer.span) }
            }
            if pipeline.count == 50 { try pipeline.drain(describeKey: { _ in "" }) { ids.append($0.id) } }
        }
        #expect(pipeline.decodesAsAppended == (count % 50 != 0))
        try pipeline.drain(describeKey: { _ in "" }) { ids.append($0.id) }
        #expect(ids == (0..<Int64(count)).map { $0 + 1 })
        #expect(!pipeline.helperIsRunning)

        guard count > 1 else { return }
        let bad = count / 2
        let corrupt = DecodePipeline<User>(fields: fields, entity: "User", executor: executor)
        for (position, (key, bytes)) in records.enumerated() {
            corrupt.append(key: key, value: position == bad || position == count - 1 ? [0xFF, 0x00] : bytes)
        }
        let error = try #require(throws: StrataError.self) {
            _ = try corrupt.finish(describeKey: { key in "record \(key)" })
        }
        #expect(error.code == .corruptRecord)
        #expect(error.message.contains("record \(records[bad].0)"), "\(error.message)")
    }

    /// With workers, a pipeline told to expect few records decodes them as they are appended (no
    /// hand-off); told to expect many, or nothing, it hands chunks over; after a drain it expects
    /// nothing again, so a query that finds more than it expected gives the rest to the workers.
    @Test(arguments: [(nil, 40, false), (100, 40, true), (256, 300, true), (257, 40, false), (10_000, 40, false)] as [(Int?, Int, Bool)])
    func fewExpectedRecordsAreDecodedAsAppendedThoughWorkersCouldTakeThem(expected: Int?, count: Int, decodedHere: Bool) throws {
        var fields = FieldTable()
        let records = try (0..<Int64(count)).map { id in (id.orderedKey, try CodecHarness.encode(User.sample(id + 1), fields: &fields)) }
        let executor = DecodeExecutor(threads: 1)
        let pipeline = DecodePipeline<User>(fields: fields, entity: "User", executor: executor, expectedCount: expected)
        for (key, bytes) in records { pipeline.append(key: key, value: bytes) }
        #expect(pipeline.decodesAsAppended == decodedHere)
        var ids: [Int64] = []
        try pipeline.drain(describeKey: { _ in "" }) { ids.append($0.id) }
        #expect(ids == (0..<Int64(count)).map { $0 + 1 })
        for (key, bytes) in records.prefix(8) { pipeline.append(key: key, value: bytes) }
        #expect(!pipeline.decodesAsAppended, "a drain forgets the expectation")
        try pipeline.drain(describeKey: { _ in "" }) { ids.append($0.id) }
        #expect(ids.count == count + min(8, count))
    }
}
