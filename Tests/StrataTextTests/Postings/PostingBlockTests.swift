import Testing
import TestSupport
@testable import StrataText

/// Posting blocks and the index's small entries: round trips of random contents, and damaged
/// bytes (cut at every length, single bytes changed, handmade breaks of each rule), which throw
/// `PostingsFormatError` naming an offset inside the bytes and never trap.
@Suite struct PostingBlockTests {
    static func randomPostings(_ random: inout SeededGenerator, fields: Int, positions: Bool) -> [Posting] {
        var document = DocumentID.random(in: 1...1_000_000, using: &random)
        return (0..<Int.random(in: 1...PostingBlock.maximumDocuments, using: &random)).map { index in
            if index > 0 { document += [1, 2, 127, 128, 100_000].randomElement(using: &random)! }
            var frequencies = (0..<fields).map { _ in UInt32([0, 1, 1, 2, 200].randomElement(using: &random)!) }
            if !frequencies.contains(where: { $0 > 0 }) { frequencies[Int.random(in: 0..<fields, using: &random)] = 1 }
            let lists = frequencies.map { frequency -> [UInt32] in
                var position = UInt32.random(in: 0...1_000, using: &random)
                return (0..<frequency).map { _ in
                    defer { position += UInt32.random(in: 1...300, using: &random) }
                    return position
                }
            }
            return Posting(document: document, frequencies: frequencies, positions: positions ? lists : nil,
                           length: UInt32.random(in: 1...100_000, using: &random))
        }
    }

    /// Everything a block says, read back.
    static func read(_ bytes: [UInt8]) throws(PostingsFormatError) -> ([DocumentID], [UInt32], [UInt32]?) {
        let block = try PostingBlock(bytes: bytes)
        let (ids, frequencies) = try block.documents()
        return (ids, frequencies, block.hasPositions ? try block.positions(frequencies: frequencies) : nil)
    }

    @Test func randomBlocksReadBackAsWritten() throws {
        var random = SeededGenerator(seed: 6)
        for round in 0..<300 {
            let fields = [1, 1, 2, 3, 64][round % 5]
            let keeps = round % 3 != 0
            let postings = Self.randomPostings(&random, fields: fields, positions: keeps)
            let bytes = PostingBlock.encode(postings, fieldCount: fields, keepsPositions: keeps)
            let block = try PostingBlock(bytes: bytes)
            #expect(block.header.firstDocument == postings.first!.document && block.header.lastDocument == postings.last!.document)
            #expect(block.header.minimumLength == postings.map(\.length).min())
            #expect(block.header.maximumFrequencies == (0..<fields).map { field in postings.map { $0.frequencies[field] }.max()! })
            let (ids, frequencies, positions) = try Self.read(bytes)
            #expect(ids == postings.map(\.document))
            #expect(frequencies == postings.flatMap(\.frequencies))
            #expect(positions == (keeps ? postings.flatMap { $0.positions!.joined() } : nil))
        }
    }

    @Test func cutAndChangedBytesThrowWithAnOffsetInsideTheBlock() throws {
        var random = SeededGenerator(seed: 7)
        var thrown = 0
        for round in 0..<60 {
            let fields = round % 2 + 1
            let postings = Self.randomPostings(&random, fields: fields, positions: true)
            let bytes = PostingBlock.encode(Array(postings.prefix(12)), fieldCount: fields, keepsPositions: true)
            for length in 0..<bytes.count {
                #expect(throws: PostingsFormatError.self) { try Self.read(Array(bytes[..<length])) }
            }
            for _ in 0..<200 {
                var damaged = bytes
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                do {
                    _ = try Self.read(damaged)
                } catch {
                    thrown += 1
                    #expect(error.offset >= 0 && error.offset <= damaged.count, "\(error)")
                }
            }
        }
        #expect(thrown > 1_000)
    }

    @Test func eachRuleOfTheLayoutIsChecked() throws {
        let postings = [Posting(document: 5, frequencies: [2], positions: [[1, 4]], length: 9),
                        Posting(document: 9, frequencies: [1], positions: [[0]], length: 3)]
        let bytes = PostingBlock.encode(postings, fieldCount: 1, keepsPositions: true)
        // version, F, n, first, span, max, min length, D, P, then documents and positions.
        #expect(bytes == [1, 1, 2, 5, 4, 2, 3, 4, 3, 0, 2, 4, 1, 1, 3, 0])
        func failure(_ change: (inout [UInt8]) -> Void) -> PostingsFormatError? {
            var damaged = bytes
            change(&damaged)
            do { _ = try Self.read(damaged); return nil } catch { return error }
        }
        #expect(failure { $0[0] = 2 }?.offset == 0)                                   // a newer version
        #expect(failure { $0[2] = 0 }?.offset == 2)                                   // no documents
        #expect(failure { $0[4] = 9 }?.reason.contains("last document") == true)      // the span lies
        #expect(failure { $0[5] = 1 }?.reason.contains("frequency") == true)           // a frequency above the header's
        #expect(failure { $0[5] = 3 }?.reason.contains("highest frequencies") == true) // the header's maximum lies
        #expect(failure { $0[6] = 0 }?.offset == 6)                                   // length 0
        #expect(failure { $0[9] = 1 }?.offset == 9)                                   // first delta not 0
        #expect(failure { $0[14] = 0 }?.reason.contains("gap 0") == true)              // positions not ascending
        #expect(failure { $0[14] = 0xFF; $0.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], at: 15); $0[8] = 12 }?
                    .reason.contains("32 bits") == true)                                 // a gap beyond 32 bits
        #expect(failure { $0.append(0) }?.reason.contains("end") == true)             // bytes after the block
        #expect(failure { $0[3] = 0x80; $0.insert(0x00, at: 4) } != nil)             // a needless zero group
        #expect(failure { $0[11] = 5 }?.reason.contains("past the last document") == true)
    }

    @Test func hugeCountsInDamagedBytesAreRefusedBeforeAnythingIsAllocated() {
        var bytes: [UInt8] = [1, 1, 1, 1, 0]
        PostingVarint.append(UInt64(UInt32.max), to: &bytes)     // highest frequency
        bytes += [1, 2, 1, 0]                                    // min length, D = 2, P = 1, first delta
        PostingVarint.append(UInt64(UInt32.max), to: &bytes)     // a frequency of 4 billion
        #expect(throws: PostingsFormatError.self) { try Self.read(bytes) }
        #expect(throws: PostingsFormatError.self) { try Self.read([1, 1, 1, 1, 0, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }
        #expect(throws: PostingsFormatError.self) {
            try Self.read([1, 1, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        }
    }

    @Test func entriesReadBackAndRefuseDamage() throws {
        let entry = DocumentEntry(fieldLengths: [3, 0, 200], primaryKey: [0x20, 0x80, 0, 0, 0, 0, 0, 0, 1])
        #expect(try DocumentEntry(bytes: entry.bytes) == entry)
        #expect(entry.length == 203)
        let statistics = TextIndexStatistics(documentCount: 7, totalFieldLengths: [30, 1 << 40], nextDocument: 12)
        #expect(try TextIndexStatistics(bytes: statistics.bytes) == statistics)
        let summary = TermSummary(documentCount: 300, blockCount: 3, maximumFrequencies: [4, 0], minimumLength: 2,
                                  fieldDocumentCounts: [300, 0])
        #expect(summary.bytes.first == 2)
        #expect(try TermSummary(bytes: summary.bytes) == summary)
        // A summary written before counts per field were kept (version 1) still reads, without them.
        var older = summary
        older.fieldDocumentCounts = nil
        #expect(older.bytes.first == 1)
        #expect(older.bytes.dropFirst() == summary.bytes.dropFirst().dropLast(3))   // 300 and 0 take three bytes
        #expect(try TermSummary(bytes: older.bytes) == older)
        #expect(throws: PostingsFormatError.self) { try TermSummary(bytes: older.bytes + [0]) }
        // Counts per field that the other fields contradict are damage: more than the documents, a
        // field counted that never holds the term, a field that holds it counted in no document.
        for counts: [UInt64] in [[301, 0], [300, 1], [0, 0]] {
            var damaged = summary
            damaged.fieldDocumentCounts = counts
            #expect(throws: PostingsFormatError.self) { try TermSummary(bytes: damaged.bytes) }
        }
        for length in 0..<entry.bytes.count {
            #expect(throws: PostingsFormatError.self) { try DocumentEntry(bytes: Array(entry.bytes[..<length])) }
        }
        for length in 0..<statistics.bytes.count {
            #expect(throws: PostingsFormatError.self) { try TextIndexStatistics(bytes: Array(statistics.bytes[..<length])) }
        }
        for length in 0..<summary.bytes.count {
            #expect(throws: PostingsFormatError.self) { try TermSummary(bytes: Array(summary.bytes[..<length])) }
        }
        #expect(throws: PostingsFormatError.self) { try DocumentEntry(bytes: entry.bytes + [0]) }
        #expect(throws: PostingsFormatError.self) {
            try TermSummary(bytes: TermSummary(documentCount: 300, blockCount: 2, maximumFrequencies: [1], minimumLength: 1, fieldDocumentCounts: nil).bytes)
        }
        // Counts near 2^64 are compared without a multiplication that would overflow.
        let huge = TermSummary(documentCount: .max - 1, blockCount: 1 << 60, maximumFrequencies: [1], minimumLength: 1, fieldDocumentCounts: nil)
        #expect(try TermSummary(bytes: huge.bytes) == huge)
        #expect(throws: PostingsFormatError.self) {
            try TermSummary(bytes: TermSummary(documentCount: .max - 1, blockCount: 3, maximumFrequencies: [1], minimumLength: 1, fieldDocumentCounts: nil).bytes)
        }
    }

    /// A source of fixed blocks, to feed a cursor damaged input.
    struct FixedSource: PostingBlockSource {
        var summary: TermSummary
        var blocks: [[UInt8]]
        func block(holding target: DocumentID) -> [UInt8]? { blocks.first }
        func block(after document: DocumentID) -> [UInt8]? { blocks.dropFirst().first }
    }

    @Test func aCursorRefusesBlocksOfAnotherFieldCountAndBlocksOutOfOrder() throws {
        let two = PostingBlock.encode([Posting(document: 3, frequencies: [1, 0], positions: [[0], []], length: 2)],
                                      fieldCount: 2, keepsPositions: true)
        let one = TermSummary(documentCount: 1, blockCount: 1, maximumFrequencies: [1], minimumLength: 2, fieldDocumentCounts: [1])
        let cursor = try BlockPostingCursor(source: FixedSource(summary: one, blocks: [two]), fieldCount: 1)
        #expect(throws: PostingsFormatError.self) { try cursor.advance(to: 1) }
        #expect(throws: PostingsFormatError.self) { try BlockPostingCursor(source: FixedSource(summary: one, blocks: [two]), fieldCount: 2) }
        // The block after the first one starts before the first one ends.
        let first = PostingBlock.encode([Posting(document: 5, frequencies: [1], positions: [[0]], length: 1),
                                         Posting(document: 9, frequencies: [1], positions: [[0]], length: 1)],
                                        fieldCount: 1, keepsPositions: true)
        let overlapping = PostingBlock.encode([Posting(document: 7, frequencies: [1], positions: [[0]], length: 1)],
                                              fieldCount: 1, keepsPositions: true)
        let summary = TermSummary(documentCount: 3, blockCount: 2, maximumFrequencies: [1], minimumLength: 1, fieldDocumentCounts: nil)
        let walk = try BlockPostingCursor(source: FixedSource(summary: summary, blocks: [first, overlapping]), fieldCount: 1)
        try walk.advance(to: 1)
        #expect(walk.document == 5)
        #expect(throws: PostingsFormatError.self) { try walk.advance(to: 10) }
    }

    /// Bytes made of random varints (small, at the limits, near 2^64) behind a version byte: every
    /// reader throws or reads them, a cursor over them throws or walks them, none traps.
    @Test func randomVarintsNeverTrapAReaderOrACursor() {
        var random = SeededGenerator(seed: 64)
        let values: [UInt64] = [0, 1, 2, 3, 127, 128, 255, 16_384, UInt64(UInt32.max), UInt64(UInt32.max) + 1, .max - 1, .max]
        // A valid block of two fields as its varints, for mutants that get past the header.
        let valid = PostingBlock.encode(Self.randomPostings(&random, fields: 2, positions: true).prefix(6).map { $0 },
                                        fieldCount: 2, keepsPositions: true)
        var reader = PostingBytesReader(valid, structure: "test", offset: 1)
        var parts: [UInt64] = []
        while !reader.isAtEnd { parts.append(try! reader.varint()) }
        var readable = 0
        for round in 0..<20_000 {
            var bytes: [UInt8] = [1]
            if round % 2 == 0 {
                var mutant = parts
                mutant[Int.random(in: 0..<mutant.count, using: &random)] = values.randomElement(using: &random)!
                for value in mutant { PostingVarint.append(value, to: &bytes) }
            } else {
                for _ in 0..<Int.random(in: 0...24, using: &random) {
                    PostingVarint.append(Bool.random(using: &random) ? values.randomElement(using: &random)!
                                         : UInt64.random(in: 0...300, using: &random), to: &bytes)
                }
            }
            if (try? Self.read(bytes)) != nil { readable += 1 }
            _ = try? DocumentEntry(bytes: bytes)
            _ = try? TextIndexStatistics(bytes: bytes)
            _ = try? TermSummary(bytes: bytes)
            let summary = TermSummary(documentCount: 1, blockCount: 1, maximumFrequencies: [1, 1], minimumLength: 1, fieldDocumentCounts: [1, 1])
            if let cursor = try? BlockPostingCursor(source: FixedSource(summary: summary, blocks: [bytes, bytes]), fieldCount: 2) {
                _ = try? cursor.advance(to: 1)
                if cursor.document != .max && cursor.document != 0 {
                    _ = cursor.frequencies
                    _ = try? cursor.positions(in: 1)
                    _ = try? cursor.advance(to: cursor.document + 1)
                }
            }
        }
        #expect(readable > 0 && readable < 20_000)
    }
}
