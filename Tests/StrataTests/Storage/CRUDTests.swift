import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat

@Suite struct CRUDTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    @Test func insertedRecordsReadBackEqual() throws {
                let jimmy = User.sample(1)
        try store.write { tx in try tx.insert(jimmy) }
        #expect(try store.read { tx in try tx.get(User.self, key: 1) } == jimmy)
    }

    @Test func getOfAMissingKeyIsNil() throws {
                #expect(try store.read { tx in try tx.get(User.self, key: 9) } == nil)
        try store.write { tx in try tx.insert(User.sample(1)) }
        #expect(try store.read { tx in try tx.get(User.self, key: 9) } == nil)
    }

    @Test func insertingAnExistingKeyThrowsDuplicateKey() throws {
                try store.write { tx in try tx.insert(User.sample(1)) }
        do {
            try store.write { tx in try tx.insert(User.sample(1, "Other")) }
            Issue.record("expected duplicateKey")
        } catch let error as StrataError {
            #expect(error.code == .duplicateKey)
            #expect(error.entity == "User")
            #expect(error.key == "1")
            #expect(error.message.contains("key 1"))
        }
        #expect(try store.read { tx in try tx.get(User.self, key: 1)?.firstName } == "Jimmy")
    }

    @Test func upsertInsertsReplacesAndSkipsUnchangedRecords() throws {
                let doogie = User.sample(2, "Doogie", "Howser"), george = User.sample(3, "George", "Bluth")
        try store.write { tx throws in
            #expect(try tx.upsert(doogie) == .inserted)
            #expect(try tx.upsert(doogie) == .unchanged)
            var older = doogie
            older.luckyNumber = nil
            #expect(try tx.upsert(older) == .updated)
            try tx.upsert([george, User.sample(4, "Michael", "Bluth")])
        }
        let all = try store.read { tx in try tx.all(User.self) }
        #expect(all.map(\.id) == [2, 3, 4])
        #expect(all[0].luckyNumber == nil)
    }

    @Test func updateReplacesAnExistingRecordAndRefusesAMissingOne() throws {
                try store.write { tx in try tx.insert(User.sample(1)) }
        var changed = User.sample(1)
        changed.lastName = "Changed"
        try store.write { tx throws in #expect(try tx.update(changed) == .updated) }
        #expect(try store.read { tx in try tx.get(User.self, key: 1)?.lastName } == "Changed")
        #expect {
            try store.write { tx in try tx.update(User.sample(5)) }
        } throws: { ($0 as? StrataError)?.code == .notFound }
    }

    @Test func deleteByKeyByRecordAndByKeys() throws {
                try store.write { tx in try tx.insert((1...6).map { User.sample($0) }) }
        try store.write { tx throws in
            #expect(try tx.delete(User.self, key: 1))
            #expect(try tx.delete(User.self, key: 1) == false)
            #expect(try tx.delete(User.sample(2)))
            #expect(try tx.delete(User.self, keys: [3, 4, 99]) == 2)
        }
        #expect(try store.read { tx in try tx.all(User.self).map(\.id) } == [5, 6])
        try store.write { tx throws in #expect(try tx.deleteAll(User.self) == 2) }
        #expect(try store.read { tx in try tx.count(User.self) } == 0)
    }

    @Test func countExistsFirstLastAndGetMany() throws {
                #expect(try store.read { tx in try tx.first(User.self) } == nil)
        #expect(try store.read { tx in try tx.last(User.self) } == nil)
        try store.write { tx in try tx.insert([Int64(30), -5, 7, 1000, 0].map { User.sample($0) }) }
        try store.read { tx throws in
            #expect(try tx.count(User.self) == 5)
            #expect(try tx.exists(User.self, key: 7))
            #expect(try tx.exists(User.self, key: 8) == false)
            #expect(try tx.first(User.self)?.id == -5)
            #expect(try tx.last(User.self)?.id == 1000)
            #expect(try tx.get(User.self, keys: [1000, 8, -5]).map(\.id) == [1000, -5])
        }
    }

    @Test func primaryKeyRangesFollowKeyOrder() throws {
                try store.write { tx in try tx.insert((-10...10).map { User.sample(Int64($0)) }) }
        try store.read { tx throws in
            #expect(try tx.all(User.self, in: -2...1).map(\.id) == [-2, -1, 0, 1])
            #expect(try tx.all(User.self, in: -2..<1).map(\.id) == [-2, -1, 0])
            #expect(try tx.all(User.self, in: 8...).map(\.id) == [8, 9, 10])
            #expect(try tx.all(User.self, in: ...(-9)).map(\.id) == [-10, -9])
            #expect(try tx.all(User.self, in: ..<(-9)).map(\.id) == [-10])
            #expect(try tx.all(User.self, in: 20...).isEmpty)
        }
    }

    @Test func stringKeysSortByCodePointAndPrefixesFirst() throws {
                let names = ["b", "a", "ab", "", "a\u{0}", "Z", "é"]
        try store.write { tx in try tx.insert(names.map { Tag(name: $0, uses: 1) }) }
        let stored = try store.read { tx in try tx.all(Tag.self).map(\.name) }
        #expect(stored == ["", "Z", "a", "a\u{0}", "ab", "b", "é"])
        #expect(try store.read { tx in try tx.all(Tag.self, in: "a"..<"b").map(\.name) } == ["a", "a\u{0}", "ab"])
    }

    @Test func everySupportedFieldTypeRoundTrips() throws {
                let value = Everything.sample()
        try store.write { tx in try tx.insert(value) }
        #expect(try store.read { tx in try tx.get(Everything.self, key: value.id) } == value)
    }

    @Test func forEachStreamsRecordsInKeyOrder() throws {
                try store.write { tx in try tx.insert((1...500).reversed().map { User.sample(Int64($0)) }) }
        var seen: [Int64] = []
        try store.read { tx in try tx.forEach(User.self) { seen.append($0.id) } }
        #expect(seen == Array(1...500))
    }

    @Test(arguments: [0, 1, 255, 256, 2047, 2048, 2049, 5000])
    func scansOfEverySizeReturnEveryRecordInKeyOrder(count: Int) throws {
        try store.write { tx in try tx.insert((0..<count).reversed().map { User.sample(Int64($0) - 100) }) }
        let ids = try store.read { tx in try tx.all(User.self).map(\.id) }
        #expect(ids == (0..<count).map { Int64($0) - 100 })
        var streamed = 0
        try store.read { tx in try tx.forEach(User.self) { user in
            #expect(user.id == Int64(streamed) - 100)
            streamed += 1
        } }
        #expect(streamed == count)
        if count > 10 {
            #expect(try store.read { tx in try tx.all(User.self, in: 0..<Int64(count - 110)).count } == count - 110)
        }
    }

    @Test func ascendingDescendingAndInterleavedKeysAllLandExactlyOnce() throws {
        // Ascending keys take the append path; the rest take the search path; both must agree.
        try store.write { tx throws in
            for id in stride(from: 0, to: 1000, by: 2) { try tx.insert(User.sample(Int64(id))) }      // ascending: appends
            for id in stride(from: 999, to: 0, by: -2) { try tx.insert(User.sample(Int64(id))) }      // descending: searches
            #expect(throws: StrataError.self) { try tx.insert(User.sample(998)) }
            #expect(try tx.upsert(User.sample(1000)) == .inserted)
            #expect(try tx.upsert(User.sample(500, "Changed")) == .updated)
            #expect(try tx.upsert(User.sample(500, "Changed")) == .unchanged)
        }
        let ids = try store.read { tx in try tx.all(User.self).map(\.id) }
        #expect(ids == Array(0...1000))
    }

    @Test func anAppendRolledBackInASavepointLeavesNoTraceAndLaterWritesSucceed() throws {
        try store.write { tx throws in
            try tx.insert((1...100).map { User.sample(Int64($0)) })
            _ = try? tx.savepoint { nested in
                try nested.insert(User.sample(200))
                throw StrataError(.invalidValue, "roll back")
            }
            try tx.insert(User.sample(150))
            try tx.insert(User.sample(300))
            try tx.insert(User.sample(250))
            #expect(throws: StrataError.self) { try tx.insert(User.sample(150)) }
        }
        try store.write { tx throws in
            try tx.insert(User.sample(200))
            #expect(try tx.exists(User.self, key: 200))
        }
        #expect(try store.read { tx in try tx.count(User.self) } == 104)
    }
}

/// Point reads find their records by every key kind: integer keys, encoded on the stack by
/// ``PrimaryKeyEncoder``'s fast path (its bytes are tested in StrataFormatTests), and string keys.
@Suite struct PointReadKeyTests {
    static let values: [Int64] = [0, 1, -1, 23, 24, 255, 256, -256, 1 << 32, -(1 << 32), .max, .min, .max - 1, .min + 1]

    @Test func pointReadsFindEveryIntegerAndStringKey() throws {
        let (store, dir) = try makeStore()
        _ = dir
        let users = Self.values.map { User.sample($0) }
        try store.write { tx throws in
            try tx.upsert(users)
            try tx.upsert([Tag(name: "a", uses: 1), Tag(name: String(repeating: "b", count: 300), uses: 2)])
        }
        try store.read { tx throws in
            for user in users { #expect(try tx.get(User.self, key: user.id) == user) }
            #expect(try tx.get(User.self, key: 2) == nil)
            #expect(try tx.get(Tag.self, key: "a")?.uses == 1)
            #expect(try tx.get(Tag.self, key: String(repeating: "b", count: 300))?.uses == 2)
            #expect(try tx.get(Tag.self, key: "c") == nil)
        }
    }
}
