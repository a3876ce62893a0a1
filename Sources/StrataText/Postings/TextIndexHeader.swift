/// What a stored full-text index keeps under document id 0 of its documents database: the index's
/// statistics and the directory of its segments (the runs of posting blocks written one per
/// write transaction, ARCHITECTURE §8).
///
/// Layout: version byte (1), the statistics' byte length, the statistics (``TextIndexStatistics``),
/// the segment count S, then per segment its number (ascending, ≥ 1) and its level; nothing after.
package struct TextIndexHeader: Sendable, Hashable {
    /// One segment: its number (the first 4 bytes, big-endian, of its postings keys) and its level
    /// (for one a transaction wrote, 0 below 256 documents and one more per factor of 4; the
    /// four newest, when they share a level, are merged into one of the next).
    package struct Segment: Sendable, Hashable {
        package var number: UInt32
        package var level: UInt32

        package init(number: UInt32, level: UInt32) {
            self.number = number
            self.level = level
        }
    }

    package var statistics: TextIndexStatistics
    /// The live segments, in ascending numbers (so ascending document ids).
    package var segments: [Segment]

    package init(statistics: TextIndexStatistics, segments: [Segment]) {
        self.statistics = statistics
        self.segments = segments
    }

    /// The header of an empty index of `fieldCount` fields.
    package init(fieldCount: Int) {
        self.init(statistics: TextIndexStatistics(documentCount: 0, totalFieldLengths: Array(repeating: 0, count: fieldCount), nextDocument: 1),
                  segments: [])
    }

    /// The number the next segment gets.
    package var nextSegment: UInt32 { (segments.last?.number ?? 0) + 1 }

    /// The header's bytes.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = [1]
        let statistics = statistics.bytes
        PostingVarint.append(UInt64(statistics.count), to: &bytes)
        bytes += statistics
        PostingVarint.append(UInt64(segments.count), to: &bytes)
        for segment in segments {
            PostingVarint.append(UInt64(segment.number), to: &bytes)
            PostingVarint.append(UInt64(segment.level), to: &bytes)
        }
        return bytes
    }

    /// The header of `bytes`.
    package init(bytes: [UInt8]) throws(PostingsFormatError) {
        var reader = PostingBytesReader(bytes, structure: "index header")
        try DocumentEntry.readVersion(&reader)
        let length = try reader.length("statistics length")
        do {
            statistics = try TextIndexStatistics(bytes: Array(bytes[reader.offset..<reader.offset + length]))
        } catch {
            throw PostingsFormatError("index header", offset: reader.offset + error.offset, "statistics: \(error.reason)")
        }
        reader.offset += length
        let count = try reader.varint(in: 0...UInt64(UInt32.max), "segment count")
        var segments: [Segment] = []
        var previous: UInt64 = 0
        for _ in 0..<count {
            let start = reader.offset
            let number = try reader.varint(in: 1...UInt64(UInt32.max), "segment number")
            guard number > previous else { throw reader.failure("segment \(number) after segment \(previous)", at: start) }
            previous = number
            segments.append(Segment(number: UInt32(number), level: UInt32(try reader.varint(in: 0...64, "segment level"))))
        }
        guard reader.isAtEnd else { throw reader.failure("bytes after the segments") }
        self.segments = segments
    }
}
