import Foundation
import TestSupport
import Testing
@testable import Strata

/// Stored bytes are untrusted: every malformed input must throw a StrataError, never crash or hang.
struct RecordCodecCorruptionTests {
    func valid() throws -> ([UInt8], FieldTable) {
        var fields = FieldTable()
        let bytes = try CodecHarness.encode(CodecEverything(), fields: &fields)
        return (bytes, fields)
    }

    @Test func everyTruncationThrowsCorruptRecord() throws {
        let (bytes, fields) = try valid()
        for length in 0..<bytes.count {
            let error = try #require(throws: StrataError.self) {
                try CodecHarness.decode(CodecEverything.self, Array(bytes[..<length]), fields: fields)
            }
            #expect(error.code == .corruptRecord, "truncated to \(length) bytes: \(error)")
        }
    }

    @Test func trailingBytesAreCorrupt() throws {
        let (bytes, fields) = try valid()
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(CodecEverything.self, bytes + [0x00], fields: fields) }
        #expect(error.code == .corruptRecord)
        #expect(error.message.contains("byte \(bytes.count)"))
    }

    @Test func randomByteFlipsThrowOrDecodeButNeverCrash() throws {
        let (bytes, fields) = try valid()
        var random = SeededGenerator(seed: 0x5EED)
        var thrown = 0
        for _ in 0..<5_000 {
            var corrupted = bytes
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                corrupted[Int.random(in: 0..<corrupted.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try CodecHarness.decode(CodecEverything.self, corrupted, fields: fields)
            } catch {
                thrown += 1
            }
        }
        #expect(thrown > 0)
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededGenerator(seed: 42)
        let fields = FieldTable(names: [1: "a", 2: "b"])
        struct Small: Codable { var a: [String: [Int?]]?; var b: CodecShape? }
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? CodecHarness.decode(Small.self, [0xA2, 0x01] + bytes, fields: fields)
            _ = try? CodecHarness.decode(Small.self, bytes, fields: fields)
        }
    }

    @Test(arguments: [
        [0x9B, 0x10, 0, 0, 0, 0, 0, 0, 0] as [UInt8],   // array claiming 2^60 items
        [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        [0x7B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], // text of 2^63-1 bytes
        [0x5A, 0xFF, 0xFF, 0xFF, 0xFF],                    // byte string of 4 GiB
        [0xBB, 0x10, 0, 0, 0, 0, 0, 0, 0],                 // map of 2^60 entries
        [0x9F, 0x01, 0xFF],                                // indefinite array
        [0x1C],                                            // reserved additional information
    ])
    func hugeOrInvalidClaimedLengthsFailCleanly(_ payload: [UInt8]) throws {
        struct Box: Codable { var a: [Int]?; var b: String?; var c: Data?; var d: [String: Int]? }
        for id: UInt8 in 1...4 {
            let bytes: [UInt8] = [0xA1, id] + payload
            let error = try #require(throws: StrataError.self) {
                try CodecHarness.decode(Box.self, bytes, fields: FieldTable(names: [1: "a", 2: "b", 3: "c", 4: "d"]))
            }
            #expect(error.code == .corruptRecord || error.code == .typeMismatch)
        }
    }

    @Test func notCBORAtAllIsCorrupt() throws {
        let bytes = Array("{\"name\": \"json\"}".utf8)
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(CodecUser.self, bytes, fields: FieldTable()) }
        #expect(error.code == .corruptRecord || error.code == .typeMismatch)
        let empty = try #require(throws: StrataError.self) { try CodecHarness.decode(CodecUser.self, [], fields: FieldTable()) }
        #expect(empty.code == .corruptRecord)
        #expect(empty.message.contains("byte 0"))
    }

    @Test func invalidUTF8IsCorrupt() throws {
        struct Box: Codable { var s: String }
        let bytes: [UInt8] = [0xA1, 0x01, 0x62, 0xC3, 0x28]
        let error = try #require(throws: StrataError.self) { try CodecHarness.decode(Box.self, bytes, fields: FieldTable(names: [1: "s"])) }
        #expect(error.code == .corruptRecord)
        #expect(error.message.contains("byte 2"))
    }

    @Test func nestingDeeperThanTheLimitIsRefusedWithoutCrashing() throws {
        // A recursive type fed 2,000 nested single-item arrays.
        let depth = 2_000
        let bytes: [UInt8] = [0xA1, 0x01] + Array(repeating: 0x81, count: depth) + [0x80]
        let error = try #require(throws: StrataError.self) {
            try CodecHarness.decode(CodecTree.self, bytes, fields: FieldTable(names: [1: "children"]))
        }
        #expect(error.code == .corruptRecord)
        #expect(error.message.contains("deeper"))
    }

    @Test func reasonablyDeepNestingDecodes() throws {
        var tree = CodecTree(children: [])
        for _ in 0..<100 { tree = CodecTree(children: [CodecNode(children: tree.children)]) }
        #expect(try CodecHarness.roundTrip(tree) == tree)
    }
}

struct CodecTree: Codable, Equatable { var children: [CodecNode] }
struct CodecNode: Codable, Equatable {
    var children: [CodecNode]
    init(children: [CodecNode]) { self.children = children }
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var children: [CodecNode] = []
        while !container.isAtEnd { children.append(try container.decode(CodecNode.self)) }
        self.children = children
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for child in children { try container.encode(child) }
    }
}
