import Foundation
import Testing
@testable import Strata

/// `FieldReader` reads the forms Strata writes on a fast path and everything else through the
/// general reads: both must give what `Codable` gives, at every boundary between them.
struct FieldReaderFastPathTests {
    static let texts = ["", "a", String(repeating: "x", count: 23), String(repeating: "y", count: 24),
                        String(repeating: "z", count: 255), String(repeating: "w", count: 256),
                        "héllo", "Zoë Ångström 🌍", String(repeating: "é", count: 200)]
    static let integers: [Int?] = [nil, 0, 1, 23, 24, 255, 256, 65_535, 65_536, 1 << 32, Int.max, -1, -24, -25, -256, -65_537, Int.min]
    static let doubles: [Double] = [0, -0.0, 1, -1, 97.5, 1e300, -1e-300, .infinity, -.infinity, 0x1p63, -0x1p63]
    static let dates: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000),
                                Date(timeIntervalSince1970: 1_700_000_000.25), Date(timeIntervalSince1970: -86_400),
                                Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: 0x1p62)]

    static func users() -> [FieldUser] {
        var users: [FieldUser] = []
        for (i, text) in texts.enumerated() {
            var user = FieldUser.sample(i)
            user.firstName = text
            user.email = text + "@example.com"
            user.city = String(text.reversed())
            user.tags = i.isMultiple(of: 2) ? Array(repeating: text, count: i) : (0..<(20 + i)).map { "\(text)\($0)" }
            users.append(user)
        }
        for (i, integer) in integers.enumerated() {
            var user = FieldUser.sample(i)
            user.luckyNumber = integer
            user.id = Int64(integer ?? 7)
            user.active = i.isMultiple(of: 2)
            users.append(user)
        }
        for (i, double) in doubles.enumerated() {
            var user = FieldUser.sample(i)
            user.score = double
            user.createdAt = dates[i % dates.count]
            user.updatedAt = dates[(i + 1) % dates.count]
            users.append(user)
        }
        return users
    }

    @Test func everyBoundaryReadsBackAsCodableReadsIt() throws {
        for user in Self.users() {
            var fields = FieldTable()
            let bytes = try CodecHarness.encode(user, fields: &fields)
            let direct = try CodecHarness.decode(FieldUser.self, bytes, fields: fields)
            #expect(direct == user)
            #expect(try CodecHarness.decodeWithCodable(FieldUser.self, bytes, fields: fields) == direct)
        }
    }

    @Test func otherStoredFormsOfTheSameValuesAreRead() throws {
        // What another writer (cbor2, an older schema) may store: a Double as an integer or float32,
        // a date without its tag or as float16, an explicit null for an optional, a long head for a
        // short text.
        var fields = FieldTable()
        let user = FieldUser.sample(1)
        var bytes = try CodecHarness.encode(user, fields: &fields)
        bytes = try replacing(item: [0xFB] + bits(97.5), with: [0xFA] + bits32(97.5), in: bytes)
        bytes = try replacing(item: [0x63] + Array("Ada".utf8), with: [0x78, 0x03] + Array("Ada".utf8), in: bytes)
        bytes = try replacing(item: [try #require(fields.id(for: "luckyNumber")).cborKey, 0x01],
                              with: [try #require(fields.id(for: "luckyNumber")).cborKey, 0xF6], in: bytes)
        var expected = user
        expected.luckyNumber = nil
        #expect(try CodecHarness.decode(FieldUser.self, bytes, fields: fields) == expected)
        #expect(try CodecHarness.decodeWithCodable(FieldUser.self, bytes, fields: fields) == expected)

        var integerScore = user
        integerScore.score = 97
        var scoreBytes = try CodecHarness.encode(integerScore, fields: &fields)
        scoreBytes = try replacing(item: [0xFB] + bits(97), with: [0x18, 97], in: scoreBytes)
        #expect(try CodecHarness.decode(FieldUser.self, scoreBytes, fields: fields) == integerScore)
    }

    @Test func invalidUTF8AndOversizedLengthsStillFail() throws {
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(FieldUser.sample(1), fields: &fields)
        let invalid = try replacing(item: [0x63] + Array("Ada".utf8), with: [0x63, 0x41, 0xC3, 0x28], in: bytes)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(FieldUser.self, invalid, fields: fields) }
        #expect(error.code == .corruptRecord)
        #expect(error.field == "firstName")
        let long = try replacing(item: [0x63] + Array("Ada".utf8), with: [0x78, 0xFF] + Array("Ada".utf8), in: bytes)
        let tooLong = try #require(throws: StrataError.self) { try CodecHarness.decode(FieldUser.self, long, fields: fields) }
        #expect(tooLong.code == .corruptRecord)
    }

    func bits(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init) }
    func bits32(_ value: Float) -> [UInt8] { withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init) }

    /// `bytes` with the first occurrence of `item` replaced by `replacement`.
    func replacing(item: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        let start = try #require((0..<bytes.count).first { Array(bytes[$0..<min($0 + item.count, bytes.count)]) == item })
        var bytes = bytes
        bytes.replaceSubrange(start..<(start + item.count), with: replacement)
        return bytes
    }
}

private extension Int {
    /// A field id below 24 as its one-byte CBOR key.
    var cborKey: UInt8 { UInt8(self) }
}
