import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A record type with a field of each stored kind, written by Swift (so the catalog holds no
/// description and both users of the sampler read the stored records).
private struct Kinds: Record {
    var id: Int64
    var text: String
    var stamp: String          // text that looks like a date: a string
    var when: Date
    var token: UUID
    var link: URL
    var blob: Data
    var wide: Int128           // bignums beyond 64 bits, plain integers below
    var ratio: Double
    var flag: Bool
    var tags: [String]
    var empty: [Int]
    var place: CodecAddress    // a nested map: any
    var counts: [String: Int]  // the same CBOR as a struct: any
    var note: String?          // nil in every third record
    var late: Int?             // set from record 70 on only
    static let primaryKey = \Kinds.id

    static func sample(_ id: Int64) -> Kinds {
        Kinds(id: id, text: "t\(id)", stamp: "2021-01-01T00:00:00Z", when: Date(timeIntervalSince1970: Double(id)),
              token: UUID(), link: URL(string: "https://example.com/\(id)")!, blob: Data([UInt8(id % 256)]),
              wide: id.isMultiple(of: 2) ? Int128.max - Int128(id) : Int128(id), ratio: Double(id) / 3, flag: id.isMultiple(of: 2),
              tags: ["a", "b"], empty: [], place: CodecAddress(street: "s", city: "c", zip: nil), counts: ["k\(id)": Int(id)],
              note: id.isMultiple(of: 3) ? nil : "n", late: id >= 70 ? Int(id) : nil)
    }
}

/// The one sampler of stored field types (`StoredFieldSample`): exact CBOR kinds, the optional
/// flags, the sample size each caller gives, and the query layer's type check and inspection's
/// descriptions agreeing whenever they read the same records.
@Suite struct StoredFieldSampleTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...100).map(Kinds.sample)) }
    }

    static let exact: [String: FieldType] = [
        "id": .integer, "text": .string, "stamp": .string, "when": .date, "token": .uuid, "link": .url, "blob": .data,
        "wide": .integer, "ratio": .double, "flag": .bool, "tags": .array(.string), "empty": .array(.any), "place": .any,
        "counts": .any, "note": .string, "late": .integer,
    ]

    @Test func eachFieldIsTypedByTheExactKindOfItsStoredValues() throws {
        let sample = try store.read { tx in
            try StoredFieldSample(try #require(try tx.context(named: "Kinds")), in: tx, records: 1_000)
        }
        #expect(sample.records == 100)
        #expect(sample.fields.mapValues(\.type) == Self.exact.mapValues { $0 })
        // A record lacks `note` or holds null in it; `late`, once seen, is in every record after (its
        // description makes it optional for the records before, `firstSeenIn`).
        #expect(sample.fields.filter(\.value.isOptional).keys.sorted() == ["note"])
        #expect(sample.fields["late"]?.firstSeenIn == 69 && sample.fields["note"]?.firstSeenIn == 0)
    }

    @Test func theTypeCheckAndTheDescriptionAgreeOnTheSameRecordsAndReadAsManyAsTheirCallerSays() throws {
        try store.read { tx in
            let context = try #require(try tx.context(named: "Kinds"))
            let checked = try #require(FieldTypes.sampled(context, in: tx)).description
            // The type check reads 64 records: `late` is not seen, and so left unchecked (any).
            #expect(StoredFieldSample.typeCheckRecords == 64)
            #expect(checked.field("late")?.type == .any)
            // A description of the same 64 records gives every field the type the check gives it.
            let described = try tx.entityDescription(named: "Kinds", sampleLimit: StoredFieldSample.typeCheckRecords)
            #expect(described.field("late") == nil, "a field no sampled record has is left out")
            for field in described.fields {
                #expect(checked.field(field.name)?.type == field.type, "\(field.name)")
            }
            // The default reads all 100: `late` is an optional integer; the key and the fields every record holds are required.
            let full = try tx.entityDescription(named: "Kinds")
            #expect(Dictionary(uniqueKeysWithValues: full.fields.map { ($0.name, $0.type) }) == Self.exact)
            #expect(full.fields.filter(\.isOptional).map(\.name).sorted() == ["late", "note"])
        }
    }

    @Test func aRemovedFieldIsLeftOut() throws {
        try store.write { tx in try tx.removeField("blob", from: "Kinds") }
        let described = try store.read { tx in try tx.entityDescription(named: "Kinds") }
        #expect(described.field("blob") == nil && described.fields.count == Self.exact.count - 1)
        #expect(!described.fields.contains { FieldTable.isRemoved($0.name) })
    }

    @Test func aStringThatLooksLikeADateComparesAsAString() throws {
        let count = try store.read { tx in try tx.query(entity: "Kinds").where(#"stamp == "2021-01-01T00:00:00Z""#, arguments: []).count() }
        #expect(count == 100)
        let error = try #require(throws: StrataError.self) {
            try store.read { tx in try tx.query(entity: "Kinds").where("blob == 5", arguments: []).count() }
        }
        #expect(error.code == .invalidQuery && error.field == "blob", "\(error)")
    }

    /// Cut short, a field id the entity's table lacks (255), a nested map with an array for a key.
    @Test(arguments: [[0xA2, 0x01, 0x01], [0xA1, 0x18, 0xFF, 0x01], [0xA1, 0x01, 0xA1, 0x80, 0x01]] as [[UInt8]])
    func aCorruptRecordIsACorruptRecordErrorNamingEntityAndKey(bytes: [UInt8]) throws {
        try store.environment.write { txn in
            let db = try #require(try txn.openDatabase("records/Kinds"))
            try txn.put(bytes, forKey: Int64(5).orderedKey, in: db)
        }
        let error = try #require(throws: StrataError.self) { try store.read { tx in try tx.entityDescription(named: "Kinds") } }
        #expect(error.code == .corruptRecord && error.entity == "Kinds" && error.key == "5", "\(error)")
        #expect(try store.read { tx in FieldTypes.sampled(try #require(try tx.context(named: "Kinds")), in: tx) } == nil)
    }
}
