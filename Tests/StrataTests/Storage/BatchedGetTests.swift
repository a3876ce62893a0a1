import Foundation
import Testing
import TestSupport
@testable import Strata

/// `get(_:keys:)`: lookups on the calling thread, decoding through the decode pipeline, in segments
/// of `BatchDecoder.batchSize`; the result follows the order of the keys given.
@Suite struct BatchedGetTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// Sizes around the pipeline's hand-over threshold and across more than one segment.
    @Test(arguments: [1, DecodePipeline<User>.chunkSize * DecodePipeline<User>.startAfter + 1, 2_047, 2_048, 2_049, 5_000])
    func recordsComeBackInTheOrderOfTheKeysWithMissingOnesSkipped(_ count: Int) throws {
        let users = (1...Int64(count)).map { User.sample($0, "First\($0)", "Last\($0 % 97)", lucky: $0 % 5 == 0 ? nil : Int($0 % 100)) }
        try store.write { tx in try tx.upsert(users) }
        var generator = SeededGenerator(seed: UInt64(count))
        var keys = users.map(\.id)
        keys.shuffle(using: &generator)
        // Absent keys (0, negatives, past the end) and repeated keys, spread through the list.
        for position in stride(from: 0, to: keys.count, by: 7) { keys.insert(-Int64(position) - 1, at: position) }
        for position in stride(from: 3, to: keys.count, by: 11) { keys.insert(keys[position - 3], at: position) }
        keys.append(Int64(count) + 1)
        keys.append(0)
        let expected = keys.compactMap { key in key >= 1 && key <= Int64(count) ? users[Int(key) - 1] : nil }
        let read = try store.read { tx in try tx.get(User.self, keys: keys) }
        #expect(read.count == expected.count)
        #expect(read == expected)
    }

    @Test func stringKeysAndALazySequenceOfKeys() throws {
        let tags = (0..<3_000).map { Tag(name: "tag-\($0)", uses: $0) }
        try store.write { tx in try tx.upsert(tags) }
        let names = (0..<3_100).reversed().lazy.map { "tag-\($0)" }
        let read = try store.read { tx in try tx.get(Tag.self, keys: names) }
        #expect(read == tags.reversed())
        #expect(try store.read { tx in try tx.get(Tag.self, keys: ["tag-5", "nope", "tag-5", ""]) } == [tags[5], tags[5]])
    }

    /// A key LMDB cannot hold fails the call with a typed error naming it; the pipeline's helper
    /// (already decoding the records found before it) stops, and the store reads on.
    @Test func aKeyOverTheSizeLimitThrowsAndStopsTheHelper() throws {
        let tags = (0..<1_000).map { Tag(name: "tag-\($0)", uses: $0) }
        try store.write { tx in try tx.upsert(tags) }
        let names = tags.map(\.name) + [String(repeating: "x", count: 600)] + ["tag-1"]
        let error = try #require(throws: StrataError.self) { try store.read { tx in try tx.get(Tag.self, keys: names) } }
        #expect(error.code == .invalidValue)
        #expect(error.entity == "Tag")
        #expect(error.message.contains("LMDB keys are limited"), "\(error)")
        #expect(try store.read { tx in try tx.get(Tag.self, keys: names.dropLast(2)) } == tags)
    }

    @Test func anUnknownEntityGivesNoRecords() throws {
        #expect(try store.read { tx in try tx.get(User.self, keys: [1, 2, 3]) }.isEmpty)
    }
}
