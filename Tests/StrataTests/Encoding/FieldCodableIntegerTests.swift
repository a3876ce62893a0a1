import Foundation
import Testing
@testable import Strata

/// Every integer width at its extremes, written by `FieldWriter` (the generic integer overload a
/// `FieldCodable` type calls) and by `Codable`: both store the same bytes, and each reads back what
/// the other wrote, so no width is truncated on either path.
struct EveryWidth: Codable, Equatable, Sendable, FieldCodable {
    var int8: Int8, int16: Int16, int32: Int32, int64: Int64, int: Int, int128: Int128
    var uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64, uint: UInt, uint128: UInt128

    static let minimums = EveryWidth(int8: .min, int16: .min, int32: .min, int64: .min, int: .min, int128: .min,
                                     uint8: .min, uint16: .min, uint32: .min, uint64: .min, uint: .min, uint128: .min)
    static let maximums = EveryWidth(int8: .max, int16: .max, int32: .max, int64: .max, int: .max, int128: .max,
                                     uint8: .max, uint16: .max, uint32: .max, uint64: .max, uint: .max, uint128: .max)
    /// Values just past 64 bits, the case a truncation to 64 bits reads back as 5 or -5.
    static let past64Bits = EveryWidth(int8: -1, int16: 1, int32: -1, int64: 1, int: -1,
                                       int128: -((Int128(1) << 70) + 5),
                                       uint8: 1, uint16: 1, uint32: 1, uint64: 1, uint: 1, uint128: (UInt128(1) << 70) + 5)

    func encodeFields(to fields: inout FieldWriter) throws {
        fields.encode(int8, forKey: CodingKeys.int8)
        fields.encode(int16, forKey: CodingKeys.int16)
        fields.encode(int32, forKey: CodingKeys.int32)
        fields.encode(int64, forKey: CodingKeys.int64)
        fields.encode(int, forKey: CodingKeys.int)
        fields.encode(int128, forKey: CodingKeys.int128)
        fields.encode(uint8, forKey: CodingKeys.uint8)
        fields.encode(uint16, forKey: CodingKeys.uint16)
        fields.encode(uint32, forKey: CodingKeys.uint32)
        fields.encode(uint64, forKey: CodingKeys.uint64)
        fields.encode(uint, forKey: CodingKeys.uint)
        fields.encode(uint128, forKey: CodingKeys.uint128)
    }

    init(int8: Int8, int16: Int16, int32: Int32, int64: Int64, int: Int, int128: Int128,
         uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64, uint: UInt, uint128: UInt128) {
        (self.int8, self.int16, self.int32, self.int64, self.int, self.int128) = (int8, int16, int32, int64, int, int128)
        (self.uint8, self.uint16, self.uint32, self.uint64, self.uint, self.uint128) = (uint8, uint16, uint32, uint64, uint, uint128)
    }

    init(fields: inout FieldReader) throws {
        int8 = try fields.decode(Int8.self, forKey: CodingKeys.int8)
        int16 = try fields.decode(Int16.self, forKey: CodingKeys.int16)
        int32 = try fields.decode(Int32.self, forKey: CodingKeys.int32)
        int64 = try fields.decode(Int64.self, forKey: CodingKeys.int64)
        int = try fields.decode(Int.self, forKey: CodingKeys.int)
        int128 = try fields.decode(Int128.self, forKey: CodingKeys.int128)
        uint8 = try fields.decode(UInt8.self, forKey: CodingKeys.uint8)
        uint16 = try fields.decode(UInt16.self, forKey: CodingKeys.uint16)
        uint32 = try fields.decode(UInt32.self, forKey: CodingKeys.uint32)
        uint64 = try fields.decode(UInt64.self, forKey: CodingKeys.uint64)
        uint = try fields.decode(UInt.self, forKey: CodingKeys.uint)
        uint128 = try fields.decode(UInt128.self, forKey: CodingKeys.uint128)
    }
}

struct FieldCodableIntegerTests {
    static let cases = [EveryWidth.minimums, EveryWidth.maximums, EveryWidth.past64Bits]

    @Test(arguments: cases)
    func everyWidthAtItsExtremesIsStoredAsCodableStoresIt(_ value: EveryWidth) throws {
        var codableFields = FieldTable()
        let codable = try CodecHarness.encodeWithCodable(value, fields: &codableFields)
        var fieldFields = FieldTable()
        let direct = try CodecHarness.encode(value, fields: &fieldFields)
        #expect(direct == codable)
        #expect(fieldFields == codableFields)
    }

    @Test(arguments: cases)
    func everyWidthAtItsExtremesReadsBackThroughBothDecoders(_ value: EveryWidth) throws {
        var fields = FieldTable()
        let direct = try CodecHarness.encode(value, fields: &fields)
        #expect(try CodecHarness.decode(EveryWidth.self, direct, fields: fields) == value)
        #expect(try CodecHarness.decodeWithCodable(EveryWidth.self, direct, fields: fields) == value)
        let codable = try CodecHarness.encodeWithCodable(value, fields: &fields)
        #expect(try CodecHarness.decode(EveryWidth.self, codable, fields: fields) == value)
        #expect(try CodecHarness.decodeWithCodable(EveryWidth.self, codable, fields: fields) == value)
    }
}
