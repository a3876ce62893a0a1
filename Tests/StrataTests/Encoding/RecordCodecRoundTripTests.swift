import Foundation
import Testing
@testable import Strata

struct RecordCodecRoundTripTests {
    @Test func everySupportedTypeRoundTrips() throws {
        let value = CodecEverything()
        #expect(try CodecHarness.roundTrip(value) == value)
    }

    @Test func typicalRecordRoundTripsWithAndWithoutOptional() throws {
        for i in 1...4 {
            #expect(try CodecHarness.roundTrip(CodecUser.sample(i)) == CodecUser.sample(i))
        }
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -4_294_967_297, -65_537, -257, -25, -24, -1, 0, 23, 24, 255, 256, 65_535, 65_536, 4_294_967_296, Int64.max])
    func integersRoundTripAtEveryHeadWidth(_ value: Int64) throws {
        struct Box: Codable, Equatable { var v: Int64 }
        #expect(try CodecHarness.roundTrip(Box(v: value)) == Box(v: value))
    }

    @Test func extremeUnsignedIntegersRoundTrip() throws {
        struct Box: Codable, Equatable { var a: UInt64; var b: UInt; var c: UInt8 }
        let value = Box(a: .max, b: .max, c: .max)
        #expect(try CodecHarness.roundTrip(value) == value)
    }

    @Test func nanAndInfinitiesRoundTrip() throws {
        struct Box: Codable { var d: Double; var f: Float; var inf: Double; var negInf: Float }
        let decoded = try CodecHarness.roundTrip(Box(d: .nan, f: .nan, inf: .infinity, negInf: -.infinity))
        #expect(decoded.d.isNaN)
        #expect(decoded.f.isNaN)
        #expect(decoded.inf == .infinity)
        #expect(decoded.negInf == -.infinity)
    }

    @Test func unicodeAndEmptyStringsRoundTrip() throws {
        struct Box: Codable, Equatable { var texts: [String]; var single: String }
        let value = Box(texts: ["", "naïve", "日本語", "👩‍👩‍👧", "\u{0}\u{1}", String(repeating: "x", count: 70_000)], single: "")
        #expect(try CodecHarness.roundTrip(value) == value)
    }

    @Test func wholeAndFractionalDatesRoundTrip() throws {
        struct Box: Codable, Equatable { var dates: [Date] }
        let value = Box(dates: [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000),
                                Date(timeIntervalSince1970: -1.5), Date(timeIntervalSince1970: 1_700_000_000.25),
                                Date.distantPast, Date.distantFuture])
        #expect(try CodecHarness.roundTrip(value) == value)
    }

    @Test func reencodingADecodedDateGivesTheSameBytes() throws {
        struct Box: Codable { var date: Date }
        var fields = FieldTable()
        let first = try CodecHarness.encode(Box(date: Date(timeIntervalSinceReferenceDate: 785_000_000.123_456_7)), fields: &fields)
        let decoded = try CodecHarness.decode(Box.self, first, fields: fields)
        let second = try CodecHarness.encode(decoded, fields: &fields)
        #expect(first == second)
    }

    @Test func explicitNilIsWrittenAsNullAndReadAsNil() throws {
        struct Explicit: Codable, Equatable {
            var value: Int?
            enum CodingKeys: String, CodingKey { case value }
            init(value: Int?) { self.value = value }
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Int.self, forKey: .value)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(value, forKey: .value)
            }
        }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Explicit(value: nil), fields: &fields)
        #expect(bytes == [0xA1, 0x01, 0xF6])
        #expect(try CodecHarness.decode(Explicit.self, bytes, fields: fields) == Explicit(value: nil))
    }

    @Test func synthesizedCodingOmitsNilFields() throws {
        struct Box: Codable { var a: Int?; var b: Int }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Box(a: nil, b: 5), fields: &fields)
        #expect(bytes == [0xA1, 0x01, 0x05])
        #expect(fields.id(for: "b") == 1)
    }

    @Test func recordIsAMapKeyedByFieldIdsWithTextKeysInside() throws {
        struct Inner: Codable { var x: Int }
        struct Outer: Codable { var name: String; var inner: Inner }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Outer(name: "a", inner: Inner(x: 1)), fields: &fields)
        // {1: "a", 2: {"x": 1}}
        #expect(bytes == [0xA2, 0x01, 0x61, 0x61, 0x02, 0xA1, 0x61, 0x78, 0x01])
        #expect(fields.entries.map(\.name) == ["name", "inner"])
    }

    @Test func specialTypesUseTheirCBORTags() throws {
        struct Box: Codable { var u: UUID; var d: Date; var l: URL; var b: Data }
        var fields = FieldTable()
        let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        let bytes = try CodecHarness.encode(Box(u: uuid, d: Date(timeIntervalSince1970: 10), l: URL(string: "a:b")!, b: Data([7])), fields: &fields)
        let expected: [UInt8] = [0xA4,
                                 0x01, 0xD8, 0x25, 0x50, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                 0x02, 0xC1, 0x0A,
                                 0x03, 0xD8, 0x20, 0x63, 0x61, 0x3A, 0x62,
                                 0x04, 0x41, 0x07]
        #expect(bytes == expected)
    }

    @Test func mapsWithTwentyFourOrMoreEntriesGetLongerHeads() throws {
        var big: [String: Int] = [:]
        for i in 0..<300 { big["k\(i)"] = i }
        struct Box: Codable, Equatable { var big: [String: Int]; var list: [Int] }
        let value = Box(big: big, list: Array(0..<1000))
        #expect(try CodecHarness.roundTrip(value) == value)
    }

    @Test func encodingIsDeterministicForDictionariesAndSets() throws {
        struct Box: Codable { var d: [String: Int]; var s: Set<Int>; var i: [Int: String] }
        var fields = FieldTable()
        var reference: [UInt8]?
        for attempt in 0..<20 {
            // Dictionaries built in different orders and capacities iterate differently.
            var d: [String: Int] = [:]
            var s = Set<Int>(minimumCapacity: attempt * 10)
            var i: [Int: String] = [:]
            let keys = (0..<40).shuffled()
            for k in keys { d["key\(k)"] = k; s.insert(k); i[k] = "\(k)" }
            let bytes = try CodecHarness.encode(Box(d: d, s: s, i: i), fields: &fields)
            if let reference { #expect(bytes == reference) } else { reference = bytes }
        }
    }

    @Test func sameValueGivesSameBytes() throws {
        var fields = FieldTable()
        let first = try CodecHarness.encode(CodecEverything(), fields: &fields)
        let second = try CodecHarness.encode(CodecEverything(), fields: &fields)
        #expect(first == second)
    }

    @Test func fieldTableGrowsOnlyWhenEncodingSucceeds() throws {
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodecAnyKey.self)
                try container.encode(1, forKey: CodecAnyKey(stringValue: "newField"))
                throw EncodingError.invalidValue(1, .init(codingPath: [], debugDescription: "nope"))
            }
        }
        var fields = FieldTable()
        #expect(throws: StrataError.self) { try CodecHarness.encode(Failing(), fields: &fields) }
        #expect(fields.count == 0)
    }

    @Test func topLevelValueThatIsNotAStructIsRefused() throws {
        var fields = FieldTable()
        let error = try #require(throws: StrataError.self) { try CodecHarness.encode([1, 2, 3], fields: &fields) }
        #expect(error.code == .invalidValue)
        #expect(error.entity == "Test")
    }

    @Test func classHierarchyWithSuperEncoderRoundTrips() throws {
        let value = CodecChild(name: "kid", age: 4)
        let decoded = try CodecHarness.roundTrip(value)
        #expect(decoded.name == "kid" && decoded.age == 4)
    }

    @Test func decimalRoundTripsLosslessly() throws {
        struct Box: Codable, Equatable { var values: [Decimal] }
        let value = Box(values: [Decimal(string: "0.1")!, Decimal(string: "-99999999999999999999999999999999999999")!, 0, Decimal(string: "1e-30")!])
        #expect(try CodecHarness.roundTrip(value) == value)
    }
}

struct CodecAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

class CodecParent: Codable, @unchecked Sendable {
    var name: String
    init(name: String) { self.name = name }
}

// Test fixture: immutable after creation.
final class CodecChild: CodecParent, @unchecked Sendable {
    var age: Int
    enum CodingKeys: String, CodingKey { case age }
    init(name: String, age: Int) {
        self.age = age
        super.init(name: name)
    }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        age = try container.decode(Int.self, forKey: .age)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(age, forKey: .age)
        try super.encode(to: container.superEncoder())
    }
}
