@_spi(Format) import StrataFormat

import Foundation
import TestSupport
import Testing
@testable import Strata

/// Property tests: for random pairs, a < b ⇔ key(a) < key(b), and every key reads back.
struct OrderedKeyTests {
    static let pairs = 4_000

    func less(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// Checks order agreement and round trip for `pairs` random pairs.
    func checkOrder<T: IndexableValue>(
        _ generate: (inout SeededGenerator) -> T, seed: UInt64, isLess: (T, T) -> Bool, isEqual: (T, T) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<Self.pairs {
            let a = generate(&random)
            let b = generate(&random)
            let ka = a.orderedKey
            let kb = b.orderedKey
            #expect(isLess(a, b) == less(ka, kb), "\(a) < \(b)", sourceLocation: sourceLocation)
            #expect(isEqual(a, b) == (ka == kb), "\(a) == \(b)", sourceLocation: sourceLocation)
            var position = 0
            let read = try T.readOrderedKey(from: ka, at: &position)
            #expect(isEqual(read, a) && position == ka.count, "round trip of \(a)", sourceLocation: sourceLocation)
        }
    }

    static func interestingInt64(_ random: inout SeededGenerator) -> Int64 {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return [Int64.min, .min + 1, -1, 0, 1, .max - 1, .max].randomElement(using: &random)!
        case 1: return Int64.random(in: -300...300, using: &random)
        default: return Int64(bitPattern: random.next())
        }
    }

    /// The byte comparison the catalog cache and the record writer's unchanged check use agrees
    /// with `==` on arrays of every length, equal or differing anywhere.
    @Test func byteEqualityAgreesWithArrayEquality() {
        var random = SystemRandomNumberGenerator()
        for length in [0, 1, 7, 8, 15, 16, 31, 200, 1_000] {
            let a = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(OrderedKey.equal(a, a))
            #expect(!OrderedKey.equal(a, a + [0]))
            for position in Set([0, length / 2, length - 1]) where length > 0 {
                var b = a
                b[position] &+= 1
                #expect(!OrderedKey.equal(a, b) && a != b)
            }
        }
        #expect(OrderedKey.equal([], []))
    }

    @Test func int64KeysOrderLikeValues() throws {
        try checkOrder(Self.interestingInt64, seed: 1, isLess: <, isEqual: ==)
    }

    @Test func uint64KeysOrderLikeValuesAcrossTheInt64Boundary() throws {
        try checkOrder({ r -> UInt64 in
            Bool.random(using: &r) ? UInt64.random(in: UInt64(Int64.max) - 5...UInt64(Int64.max) + 5, using: &r) : r.next()
        }, seed: 2, isLess: <, isEqual: ==)
    }

    /// Random 128-bit values around every width boundary: the 64-bit tags and the wide ones
    /// (`0x1F` below Int64.min, `0x22` above UInt64.max) order as the values do, across tags.
    @Test func int128AndUInt128KeysOrderLikeValuesAcrossEveryBoundary() throws {
        let boundaries: [Int128] = [.min, Int128(Int64.min), 0, Int128(Int64.max), Int128(UInt64.max), .max]
        func near(_ r: inout SeededGenerator) -> Int128 {
            let base = boundaries.randomElement(using: &r)!
            let offset = Int128(Int64.random(in: -3...3, using: &r))
            return base.addingReportingOverflow(offset).overflow ? base : base + offset
        }
        try checkOrder({ r -> Int128 in
            Bool.random(using: &r) ? near(&r) : Int128(bitPattern: UInt128(r.next()) << 64 | UInt128(r.next()))
        }, seed: 3, isLess: <, isEqual: ==)
        try checkOrder({ r -> UInt128 in
            Bool.random(using: &r) ? UInt128(near(&r).magnitude) : UInt128(r.next()) << UInt128(Int.random(in: 0...64, using: &r))
        }, seed: 4, isLess: <, isEqual: ==)
        // Across the two types: equal values, equal keys; a UInt128 above Int128.max sorts after Int128.max.
        var random = SeededGenerator(seed: 5)
        for _ in 0..<Self.pairs {
            let signed = near(&random)
            if let unsigned = UInt128(exactly: signed) { #expect(unsigned.orderedKey == signed.orderedKey) }
            #expect(less(signed.orderedKey, (UInt128(Int128.max) + 1 + UInt128(random.next())).orderedKey))
        }
    }

    @Test func integerWidthsShareOneEncoding() throws {
        #expect(Int32(5).orderedKey == Int64(5).orderedKey)
        #expect(UInt8(5).orderedKey == Int(5).orderedKey)
        #expect(Int8(-3).orderedKey == Int64(-3).orderedKey)
        #expect(Int16(-1).orderedKey.lexicographicallyPrecedes(UInt64.max.orderedKey))
        var position = 0
        #expect(try Int8.readOrderedKey(from: Int64(-3).orderedKey, at: &position) == -3)
        position = 0
        #expect(throws: StrataError.self) { try Int8.readOrderedKey(from: Int64(300).orderedKey, at: &position) }
        position = 0
        #expect(throws: StrataError.self) { try Int64.readOrderedKey(from: UInt64.max.orderedKey, at: &position) }
    }

    /// NaN last and equal to itself; -0.0 equal to +0.0.
    static func doubleLess(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN { return false }
        if b.isNaN { return true }
        return a < b
    }
    static func doubleEqual(_ a: Double, _ b: Double) -> Bool { (a.isNaN && b.isNaN) || a == b }

    static func interestingDouble(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return [0.0, -0.0, .nan, -.nan, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
                        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1, -1].randomElement(using: &random)!
        case 1: return Double(Int.random(in: -5...5, using: &random)) / 4
        default: return Double(bitPattern: random.next())
        }
    }

    @Test func doubleKeysOrderLikeValuesWithNaNLastAndSignedZerosEqual() throws {
        try checkOrder(Self.interestingDouble, seed: 3, isLess: Self.doubleLess, isEqual: Self.doubleEqual)
        #expect((-0.0).orderedKey == 0.0.orderedKey)
        #expect(Double.infinity.orderedKey.lexicographicallyPrecedes(Double.nan.orderedKey))
    }

    @Test func floatKeysMatchDoubleKeys() throws {
        try checkOrder({ r in Float(Self.interestingDouble(&r)) }, seed: 4,
                       isLess: { Self.doubleLess(Double($0), Double($1)) }, isEqual: { Self.doubleEqual(Double($0), Double($1)) })
        #expect(Float(1.5).orderedKey == Double(1.5).orderedKey)
    }

    static func interestingString(_ random: inout SeededGenerator) -> String {
        let alphabet: [Character] = ["\u{0}", "\u{1}", "a", "b", "z", "é", "\u{FF}", "日", "🌍", "\u{7F}"]
        let length = Int.random(in: 0...5, using: &random)
        return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    }

    /// Strings compare by their UTF-8 bytes (Unicode scalar order), which is the stored order.
    static func utf8Less(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }

    @Test func stringKeysOrderLikeUTF8WithNULsAndPrefixes() throws {
        try checkOrder(Self.interestingString, seed: 5, isLess: Self.utf8Less, isEqual: { Array($0.utf8) == Array($1.utf8) })
        #expect("".orderedKey.lexicographicallyPrecedes("\u{0}".orderedKey))
        #expect("a".orderedKey.lexicographicallyPrecedes("a\u{0}".orderedKey))
        #expect("a\u{0}".orderedKey.lexicographicallyPrecedes("a\u{0}\u{0}".orderedKey))
        #expect("a\u{0}\u{0}".orderedKey.lexicographicallyPrecedes("a\u{1}".orderedKey))
    }

    @Test func uuidKeysOrderLikeTheirBytes() throws {
        func bytes(_ u: UUID) -> [UInt8] {
            let t = u.uuid
            return [t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7, t.8, t.9, t.10, t.11, t.12, t.13, t.14, t.15]
        }
        try checkOrder({ r -> UUID in
            var b = (0..<16).map { _ in UInt8.random(in: 0...255, using: &r) }
            if Bool.random(using: &r) { b[0] = 0 }
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        }, seed: 6, isLess: { bytes($0).lexicographicallyPrecedes(bytes($1)) }, isEqual: ==)
    }

    @Test func dateKeysOrderLikeDates() throws {
        // Dates as the store holds them: seconds since 1970 in a float64 (see `Date.appendOrderedKey`).
        try checkOrder({ r -> Date in
            let base = Double(Int.random(in: -3...3, using: &r)) * 1e9
            // Neighbouring doubles included: the encoding must not merge dates one ulp apart.
            return Date(timeIntervalSince1970: Bool.random(using: &r) ? base.nextUp : base + Double.random(in: -1e9...1e9, using: &r))
        }, seed: 7, isLess: <, isEqual: ==)
    }

    @Test func aDateAndItsStoredFormHaveOneKey() {
        var generator = SeededGenerator(seed: 17)
        for _ in 0..<10_000 {
            let date = Date(timeIntervalSinceReferenceDate: Double.random(in: -4e9...4e9, using: &generator))
            let stored = Date(timeIntervalSince1970: date.timeIntervalSince1970)
            #expect(date.orderedKey == stored.orderedKey)
            #expect(stored.orderedKey == Date(timeIntervalSince1970: stored.timeIntervalSince1970).orderedKey)
        }
    }

    @Test func boolKeysOrderFalseFirst() throws {
        try checkOrder({ r in Bool.random(using: &r) }, seed: 8, isLess: { !$0 && $1 }, isEqual: ==)
    }

    static func optionalLess<T>(_ a: T?, _ b: T?, _ less: (T, T) -> Bool) -> Bool {
        guard let b else { return false }
        guard let a else { return true }
        return less(a, b)
    }

    static func maybeInt(_ random: inout SeededGenerator) -> Int64? {
        Int.random(in: 0..<4, using: &random) == 0 ? nil : interestingInt64(&random)
    }

    static func maybeString(_ random: inout SeededGenerator) -> String? {
        Int.random(in: 0..<4, using: &random) == 0 ? nil : interestingString(&random)
    }

    @Test func optionalKeysPutNilFirst() throws {
        try checkOrder(Self.maybeInt, seed: 9, isLess: { a, b in Self.optionalLess(a, b, <) }, isEqual: ==)
        try checkOrder(Self.maybeString, seed: 10, isLess: { a, b in Self.optionalLess(a, b, Self.utf8Less) }, isEqual: ==)
        let nilString: String? = nil
        let nilInt: Int? = nil
        #expect(nilString.orderedKey.lexicographicallyPrecedes(Optional("").orderedKey))
        #expect(nilInt.orderedKey.lexicographicallyPrecedes(Optional(Int.min).orderedKey))
    }

    @Test func compoundKeysCompareComponentWise() throws {
        var random = SeededGenerator(seed: 11)
        func key(_ s: String, _ i: Int64) -> [UInt8] {
            var k: [UInt8] = []
            s.appendOrderedKey(to: &k)
            i.appendOrderedKey(to: &k)
            return k
        }
        for _ in 0..<Self.pairs {
            let (s1, i1) = (Self.interestingString(&random), Self.interestingInt64(&random))
            let (s2, i2) = (Self.interestingString(&random), Bool.random(using: &random) ? i1 : Self.interestingInt64(&random))
            let expected = Self.utf8Less(s1, s2) || (Array(s1.utf8) == Array(s2.utf8) && i1 < i2)
            let k1 = key(s1, i1)
            #expect(expected == less(k1, key(s2, i2)), "(\(s1), \(i1)) < (\(s2), \(i2))")
            var position = 0
            #expect(try String.readOrderedKey(from: k1, at: &position) == s1)
            #expect(try Int64.readOrderedKey(from: k1, at: &position) == i1)
            #expect(position == k1.count)
        }
    }

    @Test(arguments: [
        [] as [UInt8], [0x20, 1, 2], [0x50, 0x61], [0x50, 0x61, 0x00], [0x50, 0x00, 0x01], [0x60, 1, 2, 3],
        [0x30], [0x10, 0x02], [0x99, 0, 0, 0, 0, 0, 0, 0, 0], [0x50, 0xFF, 0x00, 0x00],
    ])
    func corruptKeysThrowCorruptRecord(_ bytes: [UInt8]) {
        func check<T: IndexableValue>(_: T.Type) {
            var position = 0
            do {
                _ = try T.readOrderedKey(from: bytes, at: &position)
                Issue.record("\(T.self) read \(bytes) without error")
            } catch {
                #expect(error.code == .corruptRecord)
            }
        }
        check(Int64.self)
        check(String.self)
        check(UUID.self)
        check(Double.self)
        check(Bool.self)
        check(Date.self)
    }
}
