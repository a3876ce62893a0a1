import Foundation
import Testing
import TestSupport
@testable import Strata

/// The feed as JSON Lines: every member documented, read back into the same commits, and a
/// damaged line stops a replica with its line number at the last whole commit.
@Suite struct ChangeFeedLinesTests {
    let dir: TemporaryDirectory
    let primary: Store

    init() throws {
        (primary, dir) = try makeStore()
        try primary.enableChangeLog()
        try primary.write { tx in try tx.insert([User.sample(1, "Ann"), User.sample(2)]) }
        try primary.write { tx in try tx.upsert(User.sample(1, "Anne")); try tx.delete(User.self, key: 2) }
        try primary.write { tx in try tx.insert(Tag(name: "x", uses: 3)) }
    }

    func lines(jsonKeys: Bool = false) throws -> [UInt8] {
        try primary.read { tx in
            var output: [UInt8] = []
            for commit in try tx.loggedCommits(after: 0) { try ChangeFeedLines.append(commit, from: tx, jsonKeys: jsonKeys, to: &output) }
            return output
        }
    }

    func split(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    @Test func linesReadBackIntoTheSameCommits() throws {
        let commits = try primary.read { tx in try tx.loggedCommits(after: 0) }
        var reader = ChangeFeedLines.Reader()
        var read: [LoggedCommit] = []
        for line in split(try lines()) { if let commit = try reader.read(line: line) { read.append(commit) } }
        #expect(read.map(\.sequence) == commits.map(\.sequence))
        #expect(read.map(\.changes) == commits.map(\.changes))
        #expect(zip(read, commits).allSatisfy { abs($0.time.timeIntervalSince($1.time)) < 0.001 })
        #expect(!reader.isInsideCommit)
    }

    @Test func theCBORFormCarriesTheSameObjects() throws {
        let commits = try primary.read { tx in try tx.loggedCommits(after: 0) }
        let bytes = try primary.read { tx in
            var output: [UInt8] = []
            for commit in commits { try ChangeFeedLines.appendCBOR(commit, from: tx, to: &output) }
            return output
        }
        var reader = ChangeFeedLines.Reader()
        var read: [LoggedCommit] = []
        var start = 0
        while let end = ChangeFeedLines.cborItemEnd(in: bytes, from: start) {
            if let commit = try reader.read(cborItem: Array(bytes[start..<end])) { read.append(commit) }
            start = end
        }
        #expect(start == bytes.count)
        #expect(read.map(\.changes) == commits.map(\.changes))
        #expect(ChangeFeedLines.cborItemEnd(in: Array(bytes.prefix(10)), from: 0) == nil)   // a cut item is not whole
    }

    @Test func eachLineCarriesTheDocumentedMembers() throws {
        let all = split(try lines())
        let first = try #require(try JSONSerialization.jsonObject(with: Data(all[0])) as? [String: Any])
        #expect(Set(first.keys) == ["sequence", "time", "position", "changes", "entity", "operation", "key", "record", "storedKey", "stored", "origin"])
        let origin = try #require(try primary.read { tx in try tx.changeLogOrigin() })
        #expect((first["origin"] as? [String: Any])?["store"] as? String == origin.store)
        #expect((first["origin"] as? [String: Any])?["epoch"] as? String == origin.epoch)
        #expect((first["origin"] as? [String: Any])?["beganEmpty"] as? Bool == true)
        #expect(first["sequence"] as? Int == 1 && first["position"] as? Int == 1 && first["changes"] as? Int == 3)
        #expect(first["entity"] as? String == "User" && first["operation"] as? String == "insert" && first["key"] as? Int == 1)
        #expect((first["record"] as? [String: Any])?["firstName"] as? String == "Ann")
        let text = String(decoding: try lines(jsonKeys: true), as: UTF8.self)
        #expect(text.contains(#""first_name":"Anne""#) && text.contains(#""operation":"delete","key":2,"record":null"#), "\(text)")
        #expect(text.contains(#""operation":"schema""#))
    }

    @Test func aReplicaAppliesTheLinesAndStopsAtADamagedOne() throws {
        let replica = try Store(path: dir.path("replica"))
        var all = split(try lines())
        // Damage the second commit's last line: the first commit applies, the second does not.
        all[4] = Array(all[4].prefix(30))
        var reader = ChangeFeedLines.Reader()
        let error = #expect(throws: StrataError.self) {
            for line in all { if let commit = try reader.read(line: line) { try replica.applyChanges([commit]) } }
        }
        #expect(error?.message.contains("change feed line 5") == true, "\(String(describing: error))")
        #expect(try replica.replicaPosition() == 1)
        #expect(try replica.read { tx in try tx.get(User.self, key: 2) } == User.sample(2))

        // A line out of order is refused with its number too.
        var other = ChangeFeedLines.Reader()
        let lines = split(try self.lines())
        _ = try other.read(line: lines[0])
        let order = #expect(throws: StrataError.self) { try other.read(line: lines[4]) }
        #expect(order?.message.contains("change feed line 2") == true, "\(String(describing: order))")
    }
}
