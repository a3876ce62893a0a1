import Foundation
import TestSupport
import Testing
@testable import Strata

/// `FieldCodable` records must store exactly what their `Codable` conformance stores, and read what
/// it stored, with the same errors for the same bad input.
struct FieldCodableTests {
    @Test(arguments: 1...4)
    func userBytesAreThoseOfCodable(_ i: Int) throws {
        var codableFields = FieldTable()
        let codable = try CodecHarness.encodeWithCodable(FieldUser.sample(i), fields: &codableFields)
        var fieldFields = FieldTable()
        let direct = try CodecHarness.encode(FieldUser.sample(i), fields: &fieldFields)
        #expect(direct == codable)
        #expect(fieldFields == codableFields)
        // And the Codable-only twin with the same shape stores the same bytes too.
        var twinFields = FieldTable()
        #expect(try CodecHarness.encode(CodecUser.sample(i), fields: &twinFields) == direct)
    }

    @Test func everyOtherKindOfValueGivesTheBytesOfCodable() throws {
        var fields = FieldTable()
        let codable = try CodecHarness.encodeWithCodable(FieldEverything(), fields: &fields)
        var fieldFields = FieldTable()
        #expect(try CodecHarness.encode(FieldEverything(), fields: &fieldFields) == codable)
        #expect(try CodecHarness.decode(FieldEverything.self, codable, fields: fields) == FieldEverything())
    }

    @Test(arguments: 1...4)
    func eachPathReadsWhatTheOtherWrote(_ i: Int) throws {
        var fields = FieldTable()
        let bytes = try CodecHarness.encodeWithCodable(FieldUser.sample(i), fields: &fields)
        #expect(try CodecHarness.decode(FieldUser.self, bytes, fields: fields) == FieldUser.sample(i))
        let direct = try CodecHarness.encode(FieldUser.sample(i), fields: &fields)
        #expect(try CodecHarness.decodeWithCodable(FieldUser.self, direct, fields: fields) == FieldUser.sample(i))
    }

    @Test func newFieldNamesGetIdsAfterTheKnownOnes() throws {
        var fields = FieldTable(names: [1: "id", 7: "email"])
        _ = try CodecHarness.encode(FieldUser.sample(), fields: &fields)
        #expect(fields.id(for: "id") == 1)
        #expect(fields.id(for: "email") == 7)
        #expect(fields.id(for: "firstName") == 8)
        #expect(fields.count == 11)
    }

    @Test func unknownAndLargeFieldIdsAreSkippedAndFound() throws {
        // Ids far beyond the reader's direct table, and a stored id the type does not know.
        var names: [Int: String] = [500: "unknown"]
        let user = FieldUser.sample()
        for (offset, name) in ["id", "firstName", "lastName", "email", "luckyNumber", "city", "score", "active",
                               "tags", "createdAt", "updatedAt"].enumerated() {
            names[offset % 2 == 0 ? offset + 1 : 100 + offset] = name
        }
        var fields = FieldTable(names: names)
        let bytes = try CodecHarness.encode(user, fields: &fields)
        let withUnknown = [0xA0 | (bytes[0] & 0x1F) + 1] + Array(bytes.dropFirst()) + [0x19, 0x01, 0xF4, 0x63] + Array("old".utf8)
        #expect(try CodecHarness.decode(FieldUser.self, withUnknown, fields: fields) == user)
        #expect(try CodecHarness.decodeWithCodable(FieldUser.self, withUnknown, fields: fields) == user)
    }

    @Test func missingRequiredFieldNamesEntityFieldAndKey() throws {
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(FieldUser.sample(), fields: &fields)
        // The catalog knows the stored "email" id under another name: the record has no "email".
        var names = Dictionary(uniqueKeysWithValues: fields.entries.map { ($0.id, $0.name) })
        names[try #require(fields.id(for: "email"))] = "mail"
        let renamed = FieldTable(names: names)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(FieldUser.self, bytes, fields: renamed) }
        let codable = try #require(throws: StrataError.self) { try CodecHarness.decodeWithCodable(FieldUser.self, bytes, fields: renamed) }
        #expect(error.code == .missingField)
        #expect(error.field == "email")
        #expect(error.message == codable.message)
    }

    @Test func changedTypeThrowsTheMismatchCodableThrows() throws {
        var fields = FieldTable()
        let bytes = try replacing(text: "Ada", with: [0x05], in: CodecHarness.encode(FieldUser.sample(), fields: &fields))
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(FieldUser.self, bytes, fields: fields) }
        let codable = try #require(throws: StrataError.self) { try CodecHarness.decodeWithCodable(FieldUser.self, bytes, fields: fields) }
        #expect(error.code == .typeMismatch)
        #expect(error.field == "firstName")
        #expect(error.message == codable.message)
    }

    /// `bytes` with the text item holding `text` replaced by the item `item`.
    func replacing(text: String, with item: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        let encoded = [0x60 | UInt8(text.utf8.count)] + Array(text.utf8)
        let start = try #require(bytes.indices.first { Array(bytes[$0..<min($0 + encoded.count, bytes.count)]) == encoded })
        var bytes = bytes
        bytes.replaceSubrange(start..<(start + encoded.count), with: item)
        return bytes
    }

    @Test func nestedMismatchNamesTheFieldPath() throws {
        var fields = FieldTable()
        let bytes = try replacing(text: "Springfield", with: [0x0B], in: CodecHarness.encode(FieldEverything(), fields: &fields))
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(FieldEverything.self, bytes, fields: fields) }
        #expect(error.code == .typeMismatch)
        #expect(error.field == "address.city")
    }

    @Test func everyTruncationThrowsCorruptRecord() throws {
        var fields = FieldTable()
        let user = try CodecHarness.encode(FieldUser.sample(), fields: &fields)
        let everything = try CodecHarness.encode(FieldEverything(), fields: &fields)
        let cases: [([UInt8], ([UInt8]) throws -> Void)] = [
            (user, { _ = try CodecHarness.decode(FieldUser.self, $0, fields: fields) }),
            (everything, { _ = try CodecHarness.decode(FieldEverything.self, $0, fields: fields) }),
        ]
        for (bytes, decode) in cases {
            for length in 0..<bytes.count {
                let error = try #require(throws: StrataError.self) { try decode(Array(bytes[..<length])) }
                #expect(error.code == .corruptRecord, "truncated to \(length) bytes: \(error)")
            }
            let trailing = try #require(throws: StrataError.self) { try decode(bytes + [0]) }
            #expect(trailing.code == .corruptRecord)
            #expect(trailing.message.contains("byte \(bytes.count)"))
        }
    }

    @Test func randomByteFlipsThrowOrDecodeButNeverCrash() throws {
        var fields = FieldTable()
        let user = try CodecHarness.encode(FieldUser.sample(), fields: &fields)
        let everything = try CodecHarness.encode(FieldEverything(), fields: &fields)
        var random = SeededGenerator(seed: 0xF1E1D)
        var thrown = 0
        for round in 0..<5_000 {
            var corrupted = round % 2 == 0 ? user : everything
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                corrupted[Int.random(in: 0..<corrupted.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try CodecHarness.decode(FieldUser.self, corrupted, fields: fields)
                _ = try CodecHarness.decode(FieldEverything.self, corrupted, fields: fields)
            } catch let error as StrataError {
                #expect([.corruptRecord, .typeMismatch, .missingField].contains(error.code))
                thrown += 1
            }
        }
        #expect(thrown > 0)
    }

    @Test func ownErrorsOfTheTypeAreWrapped() throws {
        struct Picky: Codable, FieldCodable {
            var id: Int64
            init(id: Int64) { self.id = id }
            func encodeFields(to fields: inout FieldWriter) throws { fields.encode(id, forKey: CodingKeys.id) }
            init(fields: inout FieldReader) throws {
                id = try fields.decode(Int64.self, forKey: CodingKeys.id)
                throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.id], debugDescription: "odd id"))
            }
        }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Picky(id: 3), fields: &fields)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(Picky.self, bytes, fields: fields) }
        #expect(error.code == .typeMismatch)
        #expect(error.field == "id")
        #expect(error.cause is DecodingError)
    }

    /// A record whose `FieldCodable` fields differ from its `Codable` ones, to tell which one wrote it.
    struct WrittenByFields: Codable, FieldCodable {
        enum Extra: String, CodingKey { case via }
        var id: Int64
        func encodeFields(to fields: inout FieldWriter) throws {
            fields.encode(id, forKey: CodingKeys.id)
            fields.encode("fields", forKey: Extra.via)
        }
        init(id: Int64) { self.id = id }
        init(fields: inout FieldReader) throws { id = try fields.decode(Int64.self, forKey: CodingKeys.id) }
    }

    /// An encoder made for one type keeps that type's conformance; a value of another type is
    /// encoded by its own type's, never through the fields of the type the encoder was made for.
    @Test func anEncoderMadeForOneTypeEncodesAnotherByItsOwnConformance() throws {
        func names(_ bytes: [UInt8], _ fields: FieldTable) throws -> Set<String> {
            Set(try StoredRecord(key: [0], bytes: bytes, fields: fields, entity: "Test").fields.map(\.key))
        }
        var fields = FieldTable()
        let made = RecordEncoder(for: WrittenByFields.self)
        #expect(made.isMade(for: WrittenByFields.self) && !made.isMade(for: CodecUser.self))
        let own = try made.encode(WrittenByFields(id: 1), fields: &fields, entity: "Test")
        #expect(try names(own, fields) == ["id", "via"])

        var userFields = FieldTable()
        let user = try made.encode(CodecUser.sample(1), fields: &userFields, entity: "Test")
        var codableFields = FieldTable()
        #expect(user == (try CodecHarness.encodeWithCodable(CodecUser.sample(1), fields: &codableFields)))

        var otherFields = FieldTable()
        let other = try RecordEncoder(for: CodecUser.self).encode(WrittenByFields(id: 2), fields: &otherFields, entity: "Test")
        #expect(try names(other, otherFields) == ["id", "via"])
    }
}
