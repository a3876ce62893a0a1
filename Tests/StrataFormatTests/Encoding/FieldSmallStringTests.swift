@_spi(Format) import StrataFormat
import Foundation
import Testing
@testable import StrataFormat

/// Short ASCII strings made in the small-string form directly (`FieldSmallString`) and the
/// reader's fast text path must equal what the standard library and the general path make.
struct FieldSmallStringTests {
    @Test func theLayoutCheckPassesOnThisPlatform() {
        // 64-bit little-endian: if this fails the fast path is off (slower, still correct).
        #expect(FieldSmallString.layoutHolds)
    }

    @Test func everyShortASCIIStringEqualsTheStandardLibrarysAndBehavesAsOne() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...FieldSmallString.capacity {
            for round in 0..<50 {
                let bytes: [UInt8] = (0..<length).map { index in
                    round == 0 ? 0x7F : round == 1 ? UInt8(index + 0x20) : UInt8.random(in: 0...0x7F, using: &generator)
                }
                let expected = String(decoding: bytes, as: UTF8.self)
                let made = bytes.withUnsafeBufferPointer { FieldSmallString.make($0) }
                #expect(made == expected)
                #expect(made.map { Array($0.utf8) } == bytes)
                #expect(made?.count == expected.count)
                #expect(made?.hashValue == expected.hashValue)
                #expect(made.map { $0 + "!" } == expected + "!")
                #expect(made.map { Set([$0, expected]).count } == 1)
            }
        }
    }

    @Test func aByteAbove127AnywhereDeclines() {
        for length in 1...FieldSmallString.capacity {
            for position in 0..<length {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes[position] = high
                    #expect(bytes.withUnsafeBufferPointer { FieldSmallString.make($0) } == nil)
                }
            }
        }
        let long = [UInt8](repeating: 0x61, count: 16)
        #expect(long.withUnsafeBufferPointer { FieldSmallString.make($0) } == nil)
    }

    @Test func theFastTextPathReadsWhatTheGeneralPathReads() throws {
        let samples = ["", "a", "é", "abc\u{7F}", "Zoë", "🌍", "exactly15bytes!", "sixteen bytes!!!", "a\u{0}b"]
            + (0...300).map { String(repeating: "q", count: $0) }
            + (1...20).map { String(repeating: "ab", count: $0) + "é" }
        for text in samples {
            var writer = CBORWriter(capacity: 16)
            writer.writeText(text)
            let reader = CBORReader(bytes: writer.bytes)
            var offset = 0
            let general = try reader.readString(at: &offset)
            #expect(general == text)
            if let (fast, end) = reader.fastString(at: 0) {
                #expect(fast == text)
                #expect(end == offset)
                #expect(text.utf8.allSatisfy { $0 < 0x80 })
            } else {
                // Declined: not ASCII, or too long for a one- or two-byte head.
                #expect(!text.utf8.allSatisfy { $0 < 0x80 } || text.utf8.count > 255)
            }
        }
    }

    @Test func truncatedAndInvalidShortTextsAreDeclined() {
        // A head announcing more bytes than remain, and invalid UTF-8 in a short text.
        #expect(CBORReader(bytes: [0x65, 0x61, 0x62]).fastString(at: 0) == nil)
        #expect(CBORReader(bytes: [0x63, 0x41, 0xC3, 0x28]).fastString(at: 0) == nil)
        #expect(CBORReader(bytes: [0x78]).fastString(at: 0) == nil)
        #expect(CBORReader(bytes: [0x82, 0x61, 0x61, 0x61, 0xFF]).fastStrings(at: 0) == nil)
        #expect(CBORReader(bytes: [0x82, 0x61, 0x61, 0x61, 0x62]).fastStrings(at: 0)?.value == ["a", "b"])
    }
}
