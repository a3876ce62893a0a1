import Foundation
import Synchronization
import LMDB
import Testing
import TestSupport
@testable import Strata

@Suite struct ImportBehaviorTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    let berlinAndParis = membersJSON([
        (1, "Gob", "Bluth", "Berlin"), (2, "Lindsay", "Fünke", "Paris"), (3, "Tobias", "Fünke", "Berlin"),
        (4, "Buster", "Bluth", "Paris"), (5, "Lucille", "Bluth", "Berlin"),
    ])

    @Test func absentKeysKeepStoredFieldsAndNullClearsOptionalOnes() throws {
        try store.importJSON(berlinAndParis, as: Member.self)
        let report = try store.importJSON(Data(#"[{"id": 1, "city": null}, {"id": 2, "lucky_number": 40}]"#.utf8), as: Member.self)
        #expect(report.updated == 2)
        let gob = try #require(try store.read { tx in try tx.get(Member.self, key: 1) })
        #expect(gob.firstName == "Gob" && gob.lastName == "Bluth" && gob.luckyNumber == 1 && gob.city == nil)
        #expect(try store.read { tx in try tx.get(Member.self, key: 2) }?.luckyNumber == 40)
        #expect(try store.read { tx in try tx.query(Member.self).where(\.luckyNumber == 40).ids() } == [2])
        #expect(try store.indexesConsistent())
    }

    @Test func reimportingTheSamePayloadChangesNothing() throws {
        let first = try store.importJSON(berlinAndParis, as: Member.self)
        #expect((first.inserted, first.updated, first.unchanged, first.records) == (5, 0, 0, 5))
        let second = try store.importJSON(berlinAndParis, as: Member.self)
        #expect((second.inserted, second.updated, second.unchanged) == (0, 0, 5))
        #expect(second.description.hasPrefix("inserted 0 · updated 0 · unchanged 5 · deleted 0 · skipped 0"))
        #expect(try store.indexesConsistent())
    }

    @Test func theLastOccurrenceOfADuplicateKeyWins() throws {
        let json = #"[{"id": 1, "first_name": "A", "last_name": "x"}, {"id": 2, "first_name": "B", "last_name": "y"}, {"id": 1, "first_name": "C", "last_name": "z"}]"#
        let report = try store.importJSON(Data(json.utf8), as: Member.self)
        #expect((report.inserted, report.duplicates, report.duplicateKeys) == (2, 1, ["1"]))
        #expect(report.description.contains("1 duplicate keys, last occurrence won (1)"))
        #expect(try store.members().map(\.firstName) == ["C", "B"])
        #expect(try store.read { tx in try tx.query(Member.self).where("lastName == 'x'").count() } == 0)
        #expect(try store.indexesConsistent())
    }

    /// The seen-keys database takes keys in ascending order at its end and others by search:
    /// duplicates and a sync's deletions come out the same either way, and across batches.
    @Test func duplicatesAndMissingKeysAreFoundInAndOutOfKeyOrder() throws {
        func payload(_ ids: [Int]) -> Data { membersJSON(ids.map { ($0, "F\($0)", "L\($0)", "Berlin") }) }
        let ordered = try store.importJSON(payload([1, 2, 3, 3, 4]), as: Member.self)
        #expect((ordered.inserted, ordered.duplicates, ordered.duplicateKeys) == (4, 1, ["3"]))
        let shuffled = try store.importJSON(payload([5, 6, 2, 7, 6, 5, 8, 2]), as: Member.self)
        #expect((shuffled.inserted, shuffled.unchanged, shuffled.duplicates, shuffled.duplicateKeys) == (4, 1, 3, ["6", "5", "2"]))
        let batched = try store.importJSON(payload([9, 10, 11, 9, 12, 10]), as: Member.self, options: ImportOptions(batchSize: 2))
        #expect((batched.inserted, batched.duplicates, batched.duplicateKeys) == (4, 2, ["9", "10"]))
        let syncOrdered = try store.importJSON(payload([2, 4, 6]), as: Member.self, options: ImportOptions(mode: .sync))
        #expect((syncOrdered.unchanged, syncOrdered.deleted) == (3, 9))
        let syncShuffled = try store.importJSON(payload([6, 2, 6]), as: Member.self, options: ImportOptions(mode: .sync))
        #expect((syncShuffled.unchanged, syncShuffled.duplicates, syncShuffled.deleted) == (2, 1, 1))
        #expect(try store.members().map(\.remoteID) == [2, 6])
        #expect(try store.indexesConsistent())
    }

    @Test func syncDeletesWhatThePayloadLacksOnlyInsideItsScope() throws {
        try store.importJSON(berlinAndParis, as: Member.self)
        let page = membersJSON([(1, "Gob", "Bluth", "Berlin"), (6, "Ann", "Veal", "Berlin")])
        let report = try store.importJSON(page, as: Member.self, options: ImportOptions(mode: .sync(scope: "city == %@", "Berlin")))
        #expect((report.inserted, report.unchanged, report.deleted) == (1, 1, 2))
        #expect(try store.members().map(\.remoteID) == [1, 2, 4, 6])   // Paris untouched
        #expect(try store.indexesConsistent())

        let all = try store.importJSON(page, as: Member.self, options: ImportOptions(mode: .sync))
        #expect(all.deleted == 2)
        #expect(try store.members().map(\.remoteID) == [1, 6])
        #expect(try store.indexesConsistent())
    }

    @Test func operationsCanBeTurnedOffOneByOne() throws {
        try store.importJSON(berlinAndParis, as: Member.self)
        let payload = Data(#"[{"id": 1, "first_name": "Changed"}, {"id": 9, "first_name": "New", "last_name": "N"}]"#.utf8)
        let noInsert = try store.importJSON(payload, as: Member.self, options: ImportOptions(mode: .sync, insertsNew: false, deletesMissing: false))
        #expect((noInsert.updated, noInsert.notInserted, noInsert.notDeleted, noInsert.deleted) == (1, 1, 4, 0))
        #expect(try store.members().count == 5)
        let noUpdate = try store.importJSON(Data(#"[{"id": 2, "first_name": "X"}]"#.utf8), as: Member.self,
                                            options: ImportOptions(updatesExisting: false))
        #expect((noUpdate.updated, noUpdate.notUpdated) == (0, 1))
        #expect(try store.read { tx in try tx.get(Member.self, key: 2) }?.firstName == "Lindsay")
        #expect(noInsert.description.contains("left alone: 1 new, 0 changed, 4 missing"))
    }

    @Test func aDryRunReportsWithoutWriting() throws {
        try store.importJSON(berlinAndParis, as: Member.self)
        let page = membersJSON([(1, "Gob", "Bluth", "Berlin"), (6, "Ann", "Veal", "Berlin")])
        let dry = try store.importJSON(page, as: Member.self, options: ImportOptions(mode: .sync, dryRun: true))
        #expect((dry.inserted, dry.unchanged, dry.deleted, dry.dryRun, dry.transactions) == (1, 1, 4, true, 0))
        #expect(dry.description.contains("dry run, nothing written"))
        #expect(try store.members().count == 5)
        let real = try store.importJSON(page, as: Member.self, options: ImportOptions(mode: .sync))
        #expect((real.inserted, real.unchanged, real.deleted) == (dry.inserted, dry.unchanged, dry.deleted))
    }

    @Test func skippedRecordsAreListedAndTheRestIsImported() throws {
        let json = #"[{"id": 1, "first_name": "a", "last_name": "b"}, {"id": 2, "lucky_number": "seven", "first_name": "a", "last_name": "b"},"#
            + #" {"id": 3, "first_name": "a", "last_name": "b", "email": "x@y"}, {"id": 4, "first_name": "a", "last_name": "b", "email": "x@y"}]"#
        let report = try store.importJSON(Data(json.utf8), as: Member.self, options: ImportOptions(onError: .skip))
        #expect((report.inserted, report.skipped) == (2, 2))
        #expect(report.failures.map(\.record) == [2, 4])
        #expect(report.failures.map(\.code) == [.invalidRecord, .uniqueViolation])
        #expect(report.description.contains(#"skipped 2 (record 2: 'lucky_number' is "seven", expected an integer; record 4: "#))
        #expect(try store.members().map(\.remoteID) == [1, 3])
        #expect(try store.indexesConsistent())
    }

    @Test func uniqueViolationsAbortTheWholeImport() throws {
        let json = #"[{"id": 1, "first_name": "a", "last_name": "b", "email": "x@y"}, {"id": 2, "first_name": "a", "last_name": "b", "email": "x@y"}]"#
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data(json.utf8), as: Member.self) }
        #expect(error.code == .uniqueViolation)
        #expect(error.record == 2)
        #expect(try store.members().isEmpty)
    }

    @Test func malformedJSONWritesNothingAndSaysWhere() throws {
        try store.importJSON(berlinAndParis, as: Member.self)
        let bad = Data("[{\"id\": 1, \"first_name\": \"Changed\"},\n {\"id\": 7,}]".utf8)
        let error = try #require(throws: StrataError.self) { try store.importJSON(bad, as: Member.self, options: ImportOptions(onError: .skip)) }
        #expect(error.code == .malformedJSON)
        #expect(error.position?.line == 2)
        #expect(try store.read { tx in try tx.get(Member.self, key: 1) }?.firstName == "Gob")
        #expect(try store.indexesConsistent())
    }

    /// By name: Swift Testing renders its arguments, which would take minutes for 70 MiB of bytes.
    static let malformedPayloads: [String: [UInt8]] = {
        let changed = Array(#"[{"id": 1, "first_name": "Changed", "last_name": "x"}, "#.utf8)
        var invalidUTF8 = Array(#"[{"id": 1, "first_name": "Ch"#.utf8)
        invalidUTF8 += [0xFF, 0xFE]
        invalidUTF8 += Array(#""}]"#.utf8)
        let deep: [UInt8] = changed + Array(#"{"id": 2, "tags": "#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let long: [UInt8] = changed + Array(#"{"id": 2, "first_name": ""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 70 << 20)
        return [
            "truncated": changed + Array(#"{"id": 2, "first"#.utf8),
            "invalid UTF-8": invalidUTF8,
            "trailing comma": changed.dropLast(2) + Array(",]".utf8),
            "deep nesting": deep,
            "long string": long,
        ]
    }()

    @Test(arguments: ["truncated", "invalid UTF-8", "trailing comma", "deep nesting", "long string"])
    func malformedPayloadsChangeNothing(name: String) throws {
        let payload = try #require(Self.malformedPayloads[name])
        try store.importJSON(berlinAndParis, as: Member.self)
        let before = try store.members()
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data(payload), as: Member.self) }
        #expect(error.code == .malformedJSON, "\(name): \(error)")
        #expect(error.position != nil)
        #expect(try store.members() == before)
        #expect(try store.indexesConsistent())
    }

    @Test func rootKeysAndSingleObjects() throws {
        let wrapped = Data(#"{"page": 1, "users": [{"id": 1, "first_name": "a", "last_name": "b"}], "total": 1}"#.utf8)
        #expect(try store.importJSON(wrapped, as: Member.self, options: ImportOptions(rootKey: "users")).inserted == 1)
        #expect(try store.importJSON(Data(#"{"id": 2, "first_name": "a", "last_name": "b"}"#.utf8), as: Member.self).inserted == 1)
        #expect(try store.members().count == 2)
    }

    @Test func batchesCommitEveryNRecordsAndStopAtAFailure() throws {
        let records = (1...10).map { (id: $0, first: "F\($0)", last: "L", city: "C") }
        let report = try store.importJSON(membersJSON(records), as: Member.self, options: ImportOptions(mode: .sync, batchSize: 3))
        #expect((report.inserted, report.transactions) == (10, 4))
        // A second payload of new keys fails at its 8th record: its first two batches stay committed.
        let more = (11...20).map { (id: $0, first: "F\($0)", last: "L", city: "C") }
        var text = String(decoding: membersJSON(more), as: UTF8.self)
        text = text.replacingOccurrences(of: #""id": 18, "first_name": "F18""#, with: #""id": 18, "first_name": null"#)
        let error = try #require(throws: StrataError.self) {
            try store.importJSON(Data(text.utf8), as: Member.self, options: ImportOptions(batchSize: 3))
        }
        #expect(error.record == 8)
        #expect(try store.members().map(\.remoteID) == Array(1...16))
        #expect(try store.indexesConsistent())
    }

    @Test func anEarlyFailureStopsTheReaderOfALargeInput() throws {
        var records = (1...40_000).map { (id: $0, first: "F", last: "L", city: "C") }
        records[10].first = "dup"
        var text = String(decoding: membersJSON(records), as: UTF8.self)
        text = text.replacingOccurrences(of: #""id": 11, "first_name": "dup""#, with: #""id": 11, "first_name": null"#)
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data(text.utf8), as: Member.self) }
        #expect(error.record == 11)
        #expect(try store.members().isEmpty)
        // The store is free for the next writer: the reader thread has stopped.
        #expect(try store.importJSON(berlinAndParis, as: Member.self).inserted == 5)
    }

    @Test func progressIsReportedByBytes() throws {
        let records = (1...25_000).map { (id: $0, first: "F", last: "L", city: "C") }
        let seen = ConditionLock<[ImportProgress]>([])
        try store.importJSON(membersJSON(records), as: Member.self, options: ImportOptions(progress: { p in seen.withLock { $0.append(p) } }))
        let reports = seen.withLock { $0 }
        #expect(reports.map(\.recordsRead) == [10_000, 20_000, 25_000])
        #expect(reports.last?.fractionCompleted == 1)
        #expect(reports.map(\.bytesRead) == reports.map(\.bytesRead).sorted())
    }

    @Test func filesAndAsyncByteSequencesImportLikeData() async throws {
        let url = URL(fileURLWithPath: dir.path("members.json"))
        try berlinAndParis.write(to: url)
        #expect(try await store.importJSON(contentsOf: url, as: Member.self).inserted == 5)
        let stream = AsyncStream<UInt8> { continuation in
            for byte in membersJSON([(7, "Ann", "Veal", "Berlin")]) { continuation.yield(byte) }
            continuation.finish()
        }
        #expect(try await store.importJSON(bytes: stream, as: Member.self).inserted == 1)
        #expect(try store.members().count == 6)
        let missing = try #require(throws: StrataError.self) {
            try store.importJSON(contentsOf: URL(fileURLWithPath: dir.path("nope.json")), as: Member.self)
        }
        #expect(missing.code == .invalidPath && missing.message.contains("nope.json"))
    }
}



@Suite struct DateIndexRoundTripTests {
    @Test func fractionalDatesKeepIndexesConsistentAcrossTypedAndImportedWrites() throws {
        let (store, dir) = try makeStore()
        _ = dir
        var member = Member(1, "Gob", "Bluth")
        member.createdDate = Date(timeIntervalSinceReferenceDate: 721_692_800.123_456_789)
        try store.write { tx in try tx.insert(member) }
        member.firstName = "George"
        try store.write { tx in try tx.upsert(member) }
        #expect(try store.indexesConsistent())
        #expect(try store.read { tx in try tx.query(Member.self).where(\.createdDate == member.createdDate).ids() } == [1])
        try store.importJSON(Data(#"{"id": 1, "first_name": "Oscar"}"#.utf8), as: Member.self)
        #expect(try store.indexesConsistent())
        try store.write { tx in try tx.delete(Member.self, key: 1) }
        #expect(try store.indexesConsistent())
    }
}
