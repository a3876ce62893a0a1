import Foundation
import Testing
import TestSupport
@_spi(Format) @testable import StrataFormat

/// The one primary-key encoder gives, for every key type, the bytes the storage-format article
/// (Strata.docc/StorageFormat.md, "Keys: order-preserving encodings") lays down, the same by its
/// typed entry points and by a key given as a query value; its integer fast path gives the general
/// path's bytes; and the order of encoded keys is the order of their values.
@Suite struct PrimaryKeyEncoderTests {
    /// Bytes from a hex text (spaces ignored).
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// A typed key with the bytes the article gives it, and the same key as a query value of a
    /// field kind (nil: the type has no query value of its own, as `Optional`).
    struct Case: CustomTestStringConvertible, Sendable {
        let key: any IndexableValue
        let value: QueryValue?
        let kind: ValueKind
        let expected: [UInt8]
        var testDescription: String { "\(key) as \(type(of: key))" }
    }

    static let uuid = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    static let cases: [Case] = [
        // 0x20: integers in Int64's range, 8 bytes big-endian, sign bit flipped; every width alike.
        Case(key: 0, value: .int(0), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 00")),
        Case(key: 1, value: .int(1), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 01")),
        Case(key: -1, value: .int(-1), kind: .integer, expected: hex("20 7F FF FF FF FF FF FF FF")),
        Case(key: 256, value: .int(256), kind: .integer, expected: hex("20 80 00 00 00 00 00 01 00")),
        Case(key: Int64.max, value: .int(.max), kind: .integer, expected: hex("20 FF FF FF FF FF FF FF FF")),
        Case(key: Int64.min, value: .int(.min), kind: .integer, expected: hex("20 00 00 00 00 00 00 00 00")),
        Case(key: Int32(5), value: .int(5), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 05")),
        Case(key: Int16(-2), value: .int(-2), kind: .integer, expected: hex("20 7F FF FF FF FF FF FF FE")),
        Case(key: Int8(7), value: .int(7), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 07")),
        Case(key: UInt(7), value: .uint(7), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 07")),
        Case(key: UInt8(255), value: .int(255), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 FF")),
        Case(key: UInt32.max, value: .uint(UInt64(UInt32.max)), kind: .integer, expected: hex("20 80 00 00 00 FF FF FF FF")),
        Case(key: Int128(5), value: .wideInt(WideInteger(5)), kind: .integer, expected: hex("20 80 00 00 00 00 00 00 05")),
        // 0x21: unsigned integers above Int64.max, 8 bytes big-endian.
        Case(key: UInt64.max, value: .uint(.max), kind: .integer, expected: hex("21 FF FF FF FF FF FF FF FF")),
        Case(key: UInt64(1) << 63, value: .uint(1 << 63), kind: .integer, expected: hex("21 80 00 00 00 00 00 00 00")),
        // 0x1F: integers below Int64.min, 16 bytes big-endian, sign bit flipped.
        Case(key: Int128.min, value: .wideInt(WideInteger(Int128.min)), kind: .integer,
             expected: hex("1F 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")),
        Case(key: Int128(Int64.min) - 1, value: .wideInt(WideInteger(Int128(Int64.min) - 1)), kind: .integer,
             expected: hex("1F 7F FF FF FF FF FF FF FF 7F FF FF FF FF FF FF FF")),
        // 0x22: integers above UInt64.max, 16 bytes big-endian.
        Case(key: UInt128(UInt64.max) + 1, value: .wideInt(WideInteger(UInt128(UInt64.max) + 1)), kind: .integer,
             expected: hex("22 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00")),
        Case(key: Int128.max, value: .wideInt(WideInteger(Int128.max)), kind: .integer,
             expected: hex("22 7F FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF")),
        Case(key: UInt128.max, value: .wideInt(WideInteger(UInt128.max)), kind: .integer,
             expected: hex("22 FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF")),
        // 0x50: UTF-8, 0x00 written as 0x00 0xFF, ended by 0x00 0x00.
        Case(key: "", value: .string(""), kind: .string, expected: hex("50 00 00")),
        Case(key: "ab", value: .string("ab"), kind: .string, expected: hex("50 61 62 00 00")),
        Case(key: "a\u{0}b", value: .string("a\u{0}b"), kind: .string, expected: hex("50 61 00 FF 62 00 00")),
        Case(key: "é", value: .string("é"), kind: .string, expected: hex("50 C3 A9 00 00")),
        // 0x60: a UUID's 16 bytes.
        Case(key: uuid, value: .uuid(uuid), kind: .uuid, expected: hex("60 00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF")),
        // 0x10: Bool, one byte.
        Case(key: true, value: .bool(true), kind: .bool, expected: hex("10 01")),
        Case(key: false, value: .bool(false), kind: .bool, expected: hex("10 00")),
        // 0x30: sign-flipped IEEE bits, -0.0 as +0.0; an integer in a double field is keyed as a double.
        Case(key: 1.0, value: .double(1), kind: .double, expected: hex("30 BF F0 00 00 00 00 00 00")),
        Case(key: -1.0, value: .double(-1), kind: .double, expected: hex("30 40 0F FF FF FF FF FF FF")),
        Case(key: -0.0, value: .double(-0.0), kind: .double, expected: hex("30 80 00 00 00 00 00 00 00")),
        Case(key: Float(1), value: .int(1), kind: .double, expected: hex("30 BF F0 00 00 00 00 00 00")),
        // 0x40: a date as the Double of its timeIntervalSinceReferenceDate.
        Case(key: Date(timeIntervalSinceReferenceDate: 0), value: .date(Date(timeIntervalSinceReferenceDate: 0)), kind: .date,
             expected: hex("40 80 00 00 00 00 00 00 00")),
        Case(key: Date(timeIntervalSinceReferenceDate: 1), value: .date(Date(timeIntervalSinceReferenceDate: 1)), kind: .date,
             expected: hex("40 BF F0 00 00 00 00 00 00")),
        // 0x00: nil.
        Case(key: Int?.none, value: .null, kind: .integer, expected: hex("00")),
        Case(key: Optional(Int64(1)), value: nil, kind: .integer, expected: hex("20 80 00 00 00 00 00 00 01")),
    ]

    static func typedBytes<K: IndexableValue>(_ key: K) -> [UInt8] { PrimaryKeyEncoder.encode(key) }

    static func appendedBytes<K: IndexableValue>(_ key: K) -> [UInt8] {
        var bytes: [UInt8] = [0xAB]
        PrimaryKeyEncoder.append(key, to: &bytes)
        return Array(bytes.dropFirst())
    }

    static func lentBytes<K: IndexableValue>(_ key: K) -> [UInt8] {
        var buffer: [UInt8] = [1, 2, 3]
        return PrimaryKeyEncoder.withBytes(of: key, buffer: &buffer) { Array($0) }
    }

    @Test(arguments: cases)
    func everyKeyTypeEncodesAsTheStorageFormatSays(_ test: Case) {
        #expect(Self.typedBytes(test.key) == test.expected)
        #expect(Self.appendedBytes(test.key) == test.expected)
        #expect(Self.lentBytes(test.key) == test.expected)
        #expect(PrimaryKeyEncoder.generalBytes(test.key) == test.expected)
        if let value = test.value {
            #expect(PrimaryKeyEncoder.encode(value, kind: test.kind) == test.expected)
            var compound: [UInt8] = [0xAB]
            #expect(PrimaryKeyEncoder.append(value, kind: test.kind, to: &compound))
            #expect(compound == [0xAB] + test.expected)
        }
    }

    @Test func aCompoundKeyIsItsPartsOneAfterAnother() {
        var key: [UInt8] = []
        #expect(PrimaryKeyEncoder.append(.string("DE"), kind: .string, to: &key))
        #expect(PrimaryKeyEncoder.append(.int(2021), kind: .integer, to: &key))
        #expect(key == Self.hex("50 44 45 00 00 20 80 00 00 00 00 00 07 E5"))
    }

    @Test func valuesWithoutAKeyAreRefused() {
        #expect(PrimaryKeyEncoder.encode(.list([.int(1)]), kind: .other) == nil)
        #expect(PrimaryKeyEncoder.encode(.data(Data([1])), kind: .other) == nil)
        var key: [UInt8] = [7]
        #expect(!PrimaryKeyEncoder.append(.list([]), kind: .other, to: &key))
        #expect(key == [7])
    }

    /// The fast path (Int64 and Int on the stack) against the general path, on the edges and on
    /// random values; other types take the general path.
    @Test func theIntegerFastPathGivesTheGeneralPathsBytes() {
        var random = SeededGenerator(seed: 31)
        let edges: [Int64] = [0, 1, -1, 23, 24, 255, 256, -256, 1 << 32, -(1 << 32), .max, .min, .max - 1, .min + 1]
        for value in edges + (0..<2_000).map({ _ in Int64.random(in: .min ... .max, using: &random) }) {
            let general = PrimaryKeyEncoder.generalBytes(value)
            #expect(Self.typedBytes(value) == general)
            #expect(Self.appendedBytes(value) == general)
            #expect(Self.lentBytes(value) == general)
            #expect(Self.typedBytes(Int(value)) == PrimaryKeyEncoder.generalBytes(Int(value)))
            #expect(Self.lentBytes(Int(value)) == general)
            #expect(PrimaryKeyEncoder.encode(.int(value), kind: .integer) == general)
        }
        #expect(PrimaryKeyEncoder.integerValue("1") == nil)
        #expect(PrimaryKeyEncoder.integerValue(Int32(1)) == nil)
        #expect(PrimaryKeyEncoder.integerValue(UInt64(1)) == nil)
        #expect(PrimaryKeyEncoder.integerValue(Int(-5)) == -5)
    }

    /// `a < b ⇔ enc(a) < enc(b)` and `a == b ⇔ enc(a) == enc(b)` over every pair of `values`.
    static func expectOrderKept<K: IndexableValue>(_ values: [K], _ less: (K, K) -> Bool, _ type: String) {
        let keys = values.map(typedBytes)
        var failures = 0
        for i in values.indices {
            for j in values.indices {
                let valueOrder = less(values[i], values[j]) ? -1 : (less(values[j], values[i]) ? 1 : 0)
                let keyOrder = keys[i].lexicographicallyPrecedes(keys[j]) ? -1 : (keys[i] == keys[j] ? 0 : 1)
                if valueOrder != keyOrder, failures < 5 {
                    failures += 1
                    Issue.record("\(type): \(values[i]) and \(values[j]) compare \(valueOrder), their keys \(keyOrder)")
                }
            }
        }
    }

    @Test func theOrderOfEncodedKeysIsTheOrderOfTheValues() {
        var random = SeededGenerator(seed: 2026)
        let count = 150
        let int64s = [Int64.min, -1, 0, 1, .max] + (0..<count).map { _ in Int64.random(in: .min ... .max, using: &random) }
            + (0..<count).map { _ in Int64.random(in: -300...300, using: &random) }
        Self.expectOrderKept(int64s, <, "Int64")
        Self.expectOrderKept(int64s.map { Int($0) }, <, "Int")
        Self.expectOrderKept(int64s.map { Int32(truncatingIfNeeded: $0) }, <, "Int32")
        let uint64s = [UInt64.min, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
            + (0..<count).map { _ in UInt64.random(in: .min ... .max, using: &random) }
        Self.expectOrderKept(uint64s, <, "UInt64")
        Self.expectOrderKept(uint64s.map { UInt($0) }, <, "UInt")
        let int128s = [Int128.min, Int128(Int64.min) - 1, Int128(Int64.min), 0, Int128(UInt64.max), Int128(UInt64.max) + 1, .max]
            + (0..<count).map { _ in Int128.random(in: .min ... .max, using: &random) }
            + (0..<count).map { _ in Int128(Int64.random(in: .min ... .max, using: &random)) }
        Self.expectOrderKept(int128s, <, "Int128")
        let uint128s = [UInt128.min, UInt128(UInt64.max), UInt128(UInt64.max) + 1, .max]
            + (0..<count).map { _ in UInt128.random(in: .min ... .max, using: &random) }
            + (0..<count).map { _ in UInt128(UInt64.random(in: .min ... .max, using: &random)) }
        Self.expectOrderKept(uint128s, <, "UInt128")
        // Strings in the order of their UTF-8 bytes, NUL and prefixes included.
        let alphabet: [Character] = ["\u{0}", "\u{1}", "a", "b", "z", "é", "\u{7F}", "中", "😀"]
        let strings = [""] + (0..<count).map { _ in
            String((0..<Int.random(in: 0...5, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        Self.expectOrderKept(strings, { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "String")
        let doubles = [-Double.infinity, -1, -0.0, 0, .leastNonzeroMagnitude, 1, .greatestFiniteMagnitude, .infinity]
            + (0..<count).map { _ in Double.random(in: -1e12...1e12, using: &random) }
        Self.expectOrderKept(doubles, <, "Double")
        let dates = (0..<count).map { _ in Date(timeIntervalSince1970: Double(Int64.random(in: -4_000_000_000...4_000_000_000, using: &random)) / 1000) }
        Self.expectOrderKept(dates, <, "Date")
        let uuids = (0..<count).map { _ in
            UUID(uuid: (UInt8.random(in: 0...3, using: &random), UInt8.random(in: 0...255, using: &random), 0, 0, 0, 0, 0, 0,
                        0, 0, 0, 0, 0, 0, 0, UInt8.random(in: 0...255, using: &random)))
        }
        func bytes(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }
        Self.expectOrderKept(uuids, { bytes($0).lexicographicallyPrecedes(bytes($1)) }, "UUID")
        Self.expectOrderKept([false, true, false], { !$0 && $1 }, "Bool")
        let optionals: [Int64?] = [nil, Int64.min, 0, nil, 5]
        Self.expectOrderKept(optionals, { a, b in a == nil ? b != nil : (b != nil && a! < b!) }, "Int64?")
    }
}
