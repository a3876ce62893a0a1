import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A record with one indexed and one unindexed text field, to show what `verifyIndexes` can see.
private struct ScopedMember: Record, Equatable {
    var id: Int64
    var nickname: String
    var surname: String
    static let primaryKey = \ScopedMember.id
    static let indexes: [IndexDefinition<ScopedMember>] = [.index(\.surname)]
}

/// What `verify` detects and what it cannot: LMDB keeps no checksums and neither does the record
/// format, so a flipped byte that still spells a valid value of the field's type is data, not
/// damage. The README's Reliability section and docs/reliability.md say the same; these tests keep it true.
@Suite struct VerifyScopeTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert([ScopedMember(id: 1, nickname: "Jimmy", surname: "James"),
                           ScopedMember(id: 2, nickname: "Lucy", surname: "Bluth")])
        }
    }

    /// Replaces the first occurrence of `old` in record `key`'s stored bytes with `new` (same length).
    func flip(_ key: Int64, _ old: String, to new: String) throws {
        try store.environment.write { txn in
            let db = try #require(try txn.openDatabase("records/ScopedMember"))
            var bytes = try #require(try txn.value(forKey: key.orderedKey, in: db))
            let needle = Array(old.utf8)
            let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle })
            bytes.replaceSubrange(at..<at + needle.count, with: Array(new.utf8))
            try txn.put(bytes, forKey: key.orderedKey, in: db)
        }
    }

    func verify() throws -> IndexVerification {
        try store.read { tx in try tx.verifyIndexes(entity: "ScopedMember") }
    }

    @Test func aFlipInsideAnIndexedValueIsAnIndexMismatch() throws {
        try flip(1, "James", to: "Jamez")
        let result = try verify()
        #expect(!result.isConsistent)
        #expect(result.problems.contains { $0.contains("surname") || $0.contains("index") })
    }

    @Test func aFlipThatBreaksTheEncodingIsAnUndecodableRecord() throws {
        // The text header 0x65 ("a string of 5 bytes") becomes 0x7F (an indefinite-length string
        // with no break), which no reader accepts.
        try store.environment.write { txn in
            let db = try #require(try txn.openDatabase("records/ScopedMember"))
            var bytes = try #require(try txn.value(forKey: Int64(2).orderedKey, in: db))
            let at = try #require(bytes.firstIndex(of: 0x64))   // "Lucy": text of 4 bytes
            bytes[at] = 0x7F
            try txn.put(bytes, forKey: Int64(2).orderedKey, in: db)
        }
        let result = try verify()
        #expect(result.problems.contains { $0.contains("does not decode") })
    }

    @Test func aFlipThatSpellsAnotherValidValueOfAnUnindexedFieldIsNotDetected() throws {
        // The documented limit: without checksums, "Jimmy" → "Jimmz" is a valid record.
        try flip(1, "Jimmy", to: "Jimmz")
        #expect(try verify().isConsistent)
        #expect(try store.read { tx in try tx.get(ScopedMember.self, key: 1) }?.nickname == "Jimmz")
    }
}
