import Foundation
import Testing
@testable import Strata

/// Records written by one version of a type and read by another.
struct RecordCodecEvolutionTests {
    struct PersonV1: Codable, Equatable { var name: String; var age: Int; var nickname: String }
    struct PersonAdded: Codable, Equatable { var name: String; var age: Int; var nickname: String; var email: String? }
    struct PersonRemoved: Codable, Equatable { var name: String; var nickname: String }
    struct PersonRequired: Codable { var name: String; var age: Int; var nickname: String; var email: String }
    struct PersonRetyped: Codable { var name: String; var age: String; var nickname: String }
    struct PersonReordered: Codable, Equatable { var nickname: String; var age: Int; var name: String }

    let v1 = PersonV1(name: "Grace", age: 85, nickname: "Amazing")

    func stored() throws -> ([UInt8], FieldTable) {
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(v1, fields: &fields, entity: "Person")
        return (bytes, fields)
    }

    @Test func missingOptionalFieldDecodesAsNil() throws {
        var (bytes, fields) = try stored()
        fields.assign("email")  // known to the catalog but absent from this record
        let decoded = try CodecHarness.decode(PersonAdded.self, bytes, fields: fields)
        #expect(decoded == PersonAdded(name: "Grace", age: 85, nickname: "Amazing", email: nil))
        let (_, original) = try stored()
        #expect(try CodecHarness.decode(PersonAdded.self, bytes, fields: original).email == nil)
    }

    @Test func removedFieldIsIgnored() throws {
        let (bytes, fields) = try stored()
        #expect(try CodecHarness.decode(PersonRemoved.self, bytes, fields: fields) == PersonRemoved(name: "Grace", nickname: "Amazing"))
    }

    @Test func unknownFieldIdIsSkipped() throws {
        let (bytes, _) = try stored()
        // A reader whose catalog lacks id 2 ("age"), as after a newer writer added it.
        let table = FieldTable(names: [1: "name", 3: "nickname"])
        #expect(try CodecHarness.decode(PersonRemoved.self, bytes, fields: table) == PersonRemoved(name: "Grace", nickname: "Amazing"))
    }

    @Test func fieldsReadInAnyOrder() throws {
        let (bytes, fields) = try stored()
        #expect(try CodecHarness.decode(PersonReordered.self, bytes, fields: fields) == PersonReordered(nickname: "Amazing", age: 85, name: "Grace"))
    }

    @Test func missingRequiredFieldThrowsMissingFieldNamingEntityFieldAndKey() throws {
        let (bytes, fields) = try stored()
        let error = try #require(throws: StrataError.self) {
            try CodecHarness.decode(PersonRequired.self, bytes, fields: fields, entity: "Person", key: "42")
        }
        #expect(error.code == .missingField)
        #expect(error.entity == "Person")
        #expect(error.field == "email")
        #expect(error.key == "42")
        #expect(error.message.contains("Person") && error.message.contains("email") && error.message.contains("42"))
    }

    @Test func changedFieldTypeThrowsTypeMismatchNamingEntityFieldAndKey() throws {
        let (bytes, fields) = try stored()
        let error = try #require(throws: StrataError.self) {
            try CodecHarness.decode(PersonRetyped.self, bytes, fields: fields, entity: "Person", key: "42")
        }
        #expect(error.code == .typeMismatch)
        #expect(error.field == "age")
        #expect(error.key == "42")
        #expect(error.message.contains("Person 42"))
        #expect(error.message.contains("85"))      // what is stored
        #expect(error.message.contains("String"))  // what was expected
    }

    @Test func nestedMismatchNamesTheFieldPath() throws {
        struct Before: Codable { var address: CodecAddress }
        struct WrongAddress: Codable { var street: String; var city: Int }
        struct After: Codable { var address: WrongAddress }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Before(address: CodecAddress(street: "s", city: "Paris")), fields: &fields)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(After.self, bytes, fields: fields, entity: "Shop", key: "7") }
        #expect(error.code == .typeMismatch)
        #expect(error.field == "address.city")
        #expect(error.message.contains("address.city") && error.message.contains("Paris") && error.message.contains("Int"))
    }

    @Test func arrayElementMismatchNamesTheIndex() throws {
        struct Before: Codable { var values: [String] }
        struct After: Codable { var values: [Int] }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Before(values: ["1", "two"]), fields: &fields)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(After.self, bytes, fields: fields) }
        #expect(error.code == .typeMismatch)
        #expect(error.field == "values[0]")
    }

    struct Wide: Codable { var small: Int; var fraction: Double; var big: Int; var negative: Int }
    struct Narrow: Codable { var small: UInt8; var fraction: Double; var big: Int; var negative: Int }
    struct FractionToInt: Codable { var small: Int; var fraction: Int; var big: Int; var negative: Int }
    struct NegativeToUnsigned: Codable { var small: Int; var fraction: Double; var big: Int; var negative: UInt }

    @Test func valuesThatDoNotFitTheNewTypeThrowTypeMismatch() throws {
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Wide(small: 300, fraction: 1.5, big: 1 << 40, negative: -1), fields: &fields)
        for attempt in [
            { _ = try CodecHarness.decode(Narrow.self, bytes, fields: fields) },
            { _ = try CodecHarness.decode(FractionToInt.self, bytes, fields: fields) },
            { _ = try CodecHarness.decode(NegativeToUnsigned.self, bytes, fields: fields) },
        ] as [() throws -> Void] {
            let error = try #require(throws: StrataError.self, performing: attempt)
            #expect(error.code == .typeMismatch)
        }
    }

    @Test func numbersWidenWhereTheValueFitsExactly() throws {
        struct Before: Codable { var a: Int; var b: Float; var c: Double; var d: UInt8 }
        struct After: Codable { var a: Double; var b: Double; var c: Int; var d: Int64 }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Before(a: 12, b: 0.5, c: 3.0, d: 200), fields: &fields)
        let after = try CodecHarness.decode(After.self, bytes, fields: fields)
        #expect(after.a == 12 && after.b == 0.5 && after.c == 3 && after.d == 200)
    }

    @Test func halfPrecisionFloatsDecode() throws {
        struct Box: Codable { var values: [Double] }
        // {1: [1.0, -2.5, 65504.0, inf, 5.96e-8 (smallest subnormal)]} with float16 heads.
        let bytes: [UInt8] = [0xA1, 0x01, 0x85, 0xF9, 0x3C, 0x00, 0xF9, 0xC1, 0x00, 0xF9, 0x7B, 0xFF, 0xF9, 0x7C, 0x00, 0xF9, 0x00, 0x01]
        let box = try CodecHarness.decode(Box.self, bytes, fields: FieldTable(names: [1: "values"]))
        #expect(box.values == [1.0, -2.5, 65504.0, .infinity, 0x1p-24])
    }

    @Test func enumRawValueNoLongerKnownWrapsDecodingErrorAsCause() throws {
        struct Before: Codable { var status: String }
        struct After: Codable { var status: CodecStatus }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Before(status: "archived"), fields: &fields)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(After.self, bytes, fields: fields, entity: "Account", key: "9") }
        #expect(error.code == .typeMismatch)
        #expect(error.cause is DecodingError)
        #expect(error.field == "status")
        #expect(error.entity == "Account" && error.key == "9")
    }

    @Test func typeThrowingItsOwnErrorIsWrapped() throws {
        struct Picky: Codable {
            var value: Int
            init(value: Int) { self.value = value }
            init(from decoder: any Decoder) throws {
                struct Refused: Error {}
                _ = decoder
                throw Refused()
            }
        }
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(Picky(value: 1), fields: &fields)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(Picky.self, bytes, fields: fields) }
        #expect(error.cause != nil)
    }
}
