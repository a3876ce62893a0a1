import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// A record with a long indexed string, binary and folded, alone and in a compound index.
struct LongKey: Record, Equatable {
    var id: Int64
    var text: String
    var n: Int
    static let primaryKey = \LongKey.id
    static var indexes: [IndexDefinition<LongKey>] {
        [.index(\.text), .index(\.text, collation: .caseAndDiacriticInsensitive), .index(\.text, \.n)]
    }
}

/// A record with a large payload.
struct Blob: Record, Equatable {
    var id: Int64
    var label: String
    var bytes: Data
    var text: String
    static let primaryKey = \Blob.id
    static var indexes: [IndexDefinition<Blob>] { [.index(\.label)] }
}

/// The edges of the storage engine: records larger than a page, index keys longer than LMDB's
/// key limit, a map that grows from 1 MiB to tens of MiB within one import, and a disk that fills.
@Suite struct LimitsTests {
    /// Values that differ only beyond Strata's 480-byte index key cut, right at it, and before it;
    /// plus short ones and case variants for the folded index.
    static func longTexts() -> [String] {
        let base = String(repeating: "k", count: 470)
        var texts: [String] = ["", "a", "k", base, "K" + base.dropFirst()]
        for length in [479, 480, 481, 482, 512, 2000] {
            for last in ["a", "b", "B", "z"] {
                texts.append(String(repeating: "k", count: length - 1) + last)
            }
        }
        for cut in [479, 480, 481, 600] {           // a difference at byte `cut`, then a long common tail
            for middle in ["a", "b"] {
                texts.append(String(repeating: "k", count: cut) + middle + String(repeating: "t", count: 300))
            }
        }
        texts.append(String(repeating: "k", count: 480) + "\u{0}" + "x")       // an escaped NUL right at the cut
        texts.append(String(repeating: "é", count: 300))                          // two-byte characters across the cut
        texts.append(String(repeating: "É", count: 300))
        return texts
    }

    @Test func queriesOnIndexKeysLongerThanLMDBsLimitAreExact() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let texts = Self.longTexts()
        let records = texts.enumerated().flatMap { index, text in
            (0..<2).map { LongKey(id: Int64(index * 2 + $0), text: text, n: $0 * 10 + index % 7) }
        }
        try store.write { tx throws in try tx.insert(records) }
        try store.read { tx throws in #expect(try tx.verifyIndexes(entity: "LongKey").isConsistent) }

        var random = SeededGenerator(seed: 480)
        var probes = texts
        let long = texts.filter { $0.utf8.count > 470 }
        probes += (0..<8).map { _ in String(long.randomElement(using: &random)!.prefix(480)) }       // the cut key itself
        probes += (0..<8).map { _ in String(long.randomElement(using: &random)!.prefix(479)) + "l" } // between stored values
        func brute(_ include: (LongKey) -> Bool) -> [Int64] { records.filter(include).map(\.id).sorted() }
        let hints: [String?] = [nil, "text"]
        for (number, probe) in probes.enumerated() {
            for hint in hints where hint == nil || number % 2 == 0 {
                func ids(_ format: String, _ arguments: any Sendable...) throws -> [Int64] {
                    try store.read { tx throws in
                        var query = try tx.query(LongKey.self).where(format, arguments: arguments)
                        if let hint { query = query.using(index: hint) }
                        return try query.ids().sorted()
                    }
                }
                let label = "probe of \(probe.utf8.count) bytes ending \(probe.suffix(3).debugDescription), hint \(hint ?? "none")"
                #expect(try ids("text == %@", probe) == brute { $0.text == probe }, "== \(label)")
                #expect(try ids("text < %@", probe) == brute { Array($0.text.utf8).lexicographicallyPrecedes(Array(probe.utf8)) }, "< \(label)")
                #expect(try ids("text >= %@", probe) == brute { !Array($0.text.utf8).lexicographicallyPrecedes(Array(probe.utf8)) }, ">= \(label)")
                #expect(try ids("text BEGINSWITH %@", probe) == brute { $0.text.utf8.starts(with: probe.utf8) }, "BEGINSWITH \(label)")
                #expect(try ids("text == %@ AND n >= 10", probe) == brute { $0.text == probe && $0.n >= 10 }, "compound \(label)")
            }
            let folded = try store.read { tx throws in try tx.query(LongKey.self).where("text ==[cd] %@", probe).using(index: "text[cd]").ids().sorted() }
            #expect(folded == brute { $0.text.compare(probe, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame },
                    "==[cd] probe of \(probe.utf8.count) bytes")
        }
        // IN lists, and walking the index in order under a LIMIT.
        for _ in 0..<20 {
            let chosen = (0..<4).map { _ in probes.randomElement(using: &random)! }
            let found = try store.read { tx throws in try tx.query(LongKey.self).where("text IN %@", chosen).using(index: "text").ids().sorted() }
            #expect(found == brute { chosen.contains($0.text) })
        }
    }

    /// An order served by walking an index (`IndexOrder`, an index range or prefix, or an equality
    /// on a compound index's leading field ordered by the next) is exact even where index keys were
    /// cut at 480 bytes: values that differ only past the cut share one stored key, in primary key
    /// order, and the executor re-sorts them by their full values before the window applies. Each
    /// query is compared with a brute-force sort (value, then primary key) for both directions,
    /// a binary, a folded and a compound index, and windows that end inside a run of one cut key.
    @Test func orderByOverIndexKeysLongerThanLMDBsLimitIsExact() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        // Within one text, n falls as the primary key rises, so primary key order is the wrong order
        // of n in both directions.
        let records = Self.longTexts().enumerated().flatMap { index, text in
            (0..<3).map { LongKey(id: Int64(index * 3 + $0), text: text, n: (2 - $0) * 10 + index % 7) }
        }
        try store.write { tx throws in try tx.insert(records) }
        let folding = IndexCollation.caseAndDiacriticInsensitive.options
        /// True when `a` comes before `b`: by text (folded or not), then by n when asked, then by id.
        func precedes(_ a: LongKey, _ b: LongKey, folded: Bool, byN: Bool, descending: Bool) -> Bool {
            let (x, y) = folded ? (Collation.fold(a.text, folding), Collation.fold(b.text, folding)) : (a.text, b.text)
            if Array(x.utf8) != Array(y.utf8) { return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) != descending }
            if byN, a.n != b.n { return (a.n < b.n) != descending }
            return a.id < b.id
        }
        let windows: [(offset: Int, limit: Int?)] = [(0, 25), (4, 9), (0, nil), (40, 30)]
        var plans = Set<String>()
        var walked = Set<String>()   // the queries (with direction) that some window ran as an index walk
        for descending in [false, true] {
            let direction: QueryRequest<LongKey>.Direction = descending ? .descending : .ascending
            for window in windows {
                func run(_ label: String, index: String, folded: Bool = false, byN: Bool = false,
                         _ make: (QueryRequest<LongKey>) throws -> QueryRequest<LongKey>, include: (LongKey) -> Bool) throws {
                    var expected = records.filter(include).sorted { precedes($0, $1, folded: folded, byN: byN, descending: descending) }
                    expected = Array(expected.dropFirst(window.offset).prefix(window.limit ?? expected.count))
                    let (found, plan) = try store.read { tx throws in
                        var query = try make(tx.query(LongKey.self)).offset(window.offset)
                        if let limit = window.limit { query = query.limit(limit) }
                        return (try query.all(), try query.explain())
                    }
                    let context = "\(label) \(descending ? "DESC" : "ASC") OFFSET \(window.offset) LIMIT \(window.limit.map(String.init) ?? "none"): \(plan)"
                    #expect(found.map(\.id) == expected.map(\.id), "\(context)")
                    if plan.orderFromAccess && plan.description.contains("LongKey.\(index)") { walked.insert("\(label) \(descending)") }
                    plans.insert(plan.description)
                }
                // A range of the binary index yields its order.
                try run("text >= 'k' ORDER BY text", index: "text") {
                    try $0.where("text >= %@", "k").sorted(by: \.text, direction)
                } include: { !Array($0.text.utf8).lexicographicallyPrecedes(Array("k".utf8)) }
                // A prefix, hinted.
                try run("text BEGINSWITH 'kkk' ORDER BY text", index: "text") {
                    try $0.where("text BEGINSWITH %@", "kkk").sorted(by: \.text, direction).using(index: "text")
                } include: { $0.text.hasPrefix("kkk") }
                // The whole index walked for its order, with a filter on another field.
                try run("n >= 10 ORDER BY text", index: "text") {
                    try $0.where("n >= 10").sorted(by: \.text, direction).using(index: "text")
                } include: { $0.n >= 10 }
                // The folded index: "k…kB" and "k…kb" are equal, so ties go by primary key.
                try run("ORDER BY text[cd]", index: "text[cd]", folded: true) {
                    $0.sorted(by: \.text, direction, collation: .caseAndDiacriticInsensitive).using(index: "text[cd]")
                } include: { _ in true }
                // The compound index in its order: the cut falls inside text; n then decides.
                try run("ORDER BY text, n", index: "text,n", byN: true) {
                    $0.sorted(by: \.text, direction).sorted(by: \.n, direction).using(index: "text,n")
                } include: { _ in true }
                // Equality on the leading field of the compound index, ordered by n: the point's key is
                // cut, so its run also holds other texts with the same first 480 bytes.
                let long = String(repeating: "k", count: 1999) + "b"
                try run("text == k…b ORDER BY n", index: "text,n", byN: true) {
                    try $0.where("text == %@", long).sorted(by: \.n, direction).using(index: "text,n")
                } include: { $0.text == long }
            }
        }
        // Every query ran as an index walk in both directions under some window (a LIMIT makes the
        // planner walk an index for its order), and the re-sort is the executor's: explain shows the
        // walk with no sort step, as before.
        #expect(walked.count == 12, "\(walked.sorted())")
        #expect(plans.contains(#"IndexScan(LongKey.text >= "k") → Limit(25)"#))
        #expect(plans.contains("IndexOrder(LongKey.text[cd]) reversed → Offset(4) → Limit(9)"))
    }

    @Test func namesLongerThanLMDBsKeyLimitAreRefusedWithAMessageNotMDBBadValSize() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let long = String(repeating: "f", count: 600)
        let description = EntityDescription(name: "Wide", primaryKey: "id",
                                            fields: [FieldDescription("id", .integer), FieldDescription(long, .integer)])
        _ = try store.importJSON(Data(#"[{"id": 1, "\#(long)": 2}]"#.utf8), entity: description)
        let index = #expect(throws: StrataError.self) {
            try store.write { tx in try tx.addIndex(IndexDescription(fields: [long]), toEntity: "Wide") }
        }
        #expect(index?.code == .invalidValue)
        #expect(index?.message.contains("LMDB names databases by keys of at most") == true, "\(index?.message ?? "")")
        let entity = #expect(throws: StrataError.self) {
            _ = try store.importJSON(Data(#"[{"id": 1}]"#.utf8),
                                     entity: EntityDescription(name: long, primaryKey: "id", fields: [FieldDescription("id", .integer)]))
        }
        #expect(entity?.code == .invalidValue)
        // Nothing was left half made: the store still reads and verifies.
        #expect(try store.read { tx in try tx.count(entity: "Wide") } == 1)
        #expect(try store.read { tx in try tx.verifyIndexes(entity: "Wide") }.isConsistent)
    }

    @Test func recordsLargerThanAPageLiveInOverflowPages() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        var random = SeededGenerator(seed: 4096)
        func blob(_ id: Int64, _ size: Int) -> Blob {
            // A random 4 KiB block repeated: random enough, and cheap to make in a debug build.
            let block = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
            var bytes = Data(capacity: size)
            while bytes.count < size { bytes.append(contentsOf: block.prefix(size - bytes.count)) }
            return Blob(id: id, label: "size \(size)", bytes: bytes, text: String(repeating: "ü", count: size / 4))
        }
        let sizes = [4_000, 4_097, 16_385, 100_000, 1_000_000, 3_000_000]
        let blobs = sizes.enumerated().map { blob(Int64($0.offset), $0.element) }
        try store.write { tx throws in try tx.insert(blobs) }
        #expect(try store.read { tx throws in try tx.all(Blob.self) } == blobs)
        // Each grows and shrinks in place of the other; small records interleave.
        let swapped = blobs.map { old in blob(old.id, sizes[(sizes.count - 1) - Int(old.id)]) }
        let small = (100..<200).map { blob(Int64($0), $0) }
        try store.write { tx throws in
            try tx.upsert(swapped)
            try tx.insert(small)
        }
        try store.write { tx throws in for key: Int64 in [1, 3, 5] { _ = try tx.delete(Blob.self, key: key) } }
        let expected = [swapped[0], swapped[2], swapped[4]] + small
        try store.read { tx throws in
            #expect(try tx.all(Blob.self) == expected)
            for kept in expected.prefix(3) {
                #expect(try tx.query(Blob.self).where("label == %@", kept.label).ids() == [kept.id])
            }
            #expect(try tx.verifyIndexes(entity: "Blob").isConsistent)
        }
    }

    @Test func oneImportGrowsTheMapFromOneMiBToTensOfMiB() throws {
        let (store, dir) = try makeStore { $0.initialMapSize = 1 << 20 }
        defer { withExtendedLifetime(dir) {} }
        #expect(store.mapSize == 1 << 20)
        let records = 6_000
        let json = "[" + (0..<records).map { id in
            #"{"id": \#(id), "label": "l\#(id % 50)", "bytes": "", "text": "\#(String(repeating: "abcdefgh", count: 500 + id % 64))"}"#
        }.joined(separator: ",") + "]"
        let report = try store.importJSON(Data(json.utf8), as: Blob.self)
        #expect(report.inserted == records)
        #expect(store.mapSize >= 24 << 20, "map \(store.mapSize) bytes after importing \(json.utf8.count) bytes")
        try store.read { tx throws in
            #expect(try tx.count(Blob.self) == records)
            #expect(try tx.get(Blob.self, key: 5_999)?.text.count == 8 * (500 + 5_999 % 64))
            #expect(try tx.query(Blob.self).where("label == 'l7'").count() == records / 50)
            #expect(try tx.verifyIndexes(entity: "Blob").isConsistent)
        }
    }

    /// A small tmpfs nearly filled by another file: imports fail with `.storageFull` once the
    /// store cannot grow, leave what was committed, indexes included, and succeed again once
    /// space is freed.
    @Test(.enabled(if: ReadOnlyMount.available, "needs root (or CAP_SYS_ADMIN) to mount a small tmpfs"))
    func aNearlyFullDiskFailsWritesWithStorageFullAndStaysConsistent() throws {
        let mount = try ReadOnlyMount(sizeKiB: 6144)
        defer { mount.unmount() }
        let filler = mount.path + "/filler"
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: filler))
        let store = try Store(path: mount.path + "/store")
        var committed = 0
        var failure: StrataError?
        var batch = 0
        while failure == nil, batch < 40 {
            let json = "[" + (0..<100).map { i in
                let id = batch * 100 + i
                return #"{"id": \#(id), "label": "b\#(batch)", "bytes": "", "text": "\#(String(repeating: "x", count: 2_000))"}"#
            }.joined(separator: ",") + "]"
            do {
                try store.importJSON(Data(json.utf8), as: Blob.self)
                committed += 100
            } catch let error as StrataError {
                failure = error
            }
            batch += 1
        }
        let error = try #require(failure, "40 imports of 200 KB each fit in 3 MiB")
        #expect(error.code == .storageFull, "\(error)")
        #expect(committed > 0)
        try store.read { tx throws in
            #expect(try tx.count(Blob.self) == committed)
            #expect(try tx.query(Blob.self).where("label == %@", "b\(batch - 1)").count() == 0)
            #expect(try tx.verifyIndexes(entity: "Blob").isConsistent)
        }
        try FileManager.default.removeItem(atPath: filler)
        try store.write { tx throws in try tx.insert(Blob(id: -1, label: "after", bytes: Data(), text: "freed")) }
        try store.read { tx throws in
            #expect(try tx.count(Blob.self) == committed + 1)
            #expect(try tx.verifyIndexes(entity: "Blob").isConsistent)
        }
    }
}
