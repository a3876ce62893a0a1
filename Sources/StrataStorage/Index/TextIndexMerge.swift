import StrataText

/// How the segments of a full-text index are merged (ARCHITECTURE §8): a segment has a level, and
/// when the four newest segments share a level they are merged into one of the next, dropping the
/// postings of the documents listed in `deleted` (which then leave that list). A segment a
/// transaction writes takes the level of its size, so a large import is not merged again with
/// every later small write. Like a counter in base four, the directory then holds at most three
/// segments of a level in a row, so the number of segments grows with the logarithm of the
/// documents written, each document's postings are rewritten about once per level, and a deleted
/// document stays in `deleted` (and in its term summaries' counts) only until its segment is merged.
package enum TextSegmentMerge {
    /// Segments of one level merged at once.
    package static let factor = 4
    /// The documents below which a written segment is of level 0.
    package static let baseDocuments = 256

    /// The level of a segment of `documents` documents written by a transaction: 0 below
    /// ``baseDocuments``, then one more for every factor of ``factor``.
    package static func level(documents: Int) -> UInt32 {
        var level: UInt32 = 0
        var size = baseDocuments
        while documents >= size && level < 32 {
            level += 1
            size *= factor
        }
        return level
    }

    /// The newest ``factor`` segments of `header` and their level, when they share one; nil
    /// otherwise. Only the newest are merged: a term's postings are read segment after segment in
    /// the directory's order, which must stay the order of their document ids, and the merged
    /// segment, written under the next number, comes last in both.
    package static func next(in header: TextIndexHeader) -> (level: UInt32, segments: [TextIndexHeader.Segment])? {
        guard header.segments.count >= factor else { return nil }
        let newest = Array(header.segments.suffix(factor))
        guard newest.allSatisfy({ $0.level == newest[0].level }) else { return nil }
        return (newest[0].level, newest)
    }
}

extension WriteTransaction {
    /// Merges the newest segments of a full-text index while ``TextSegmentMerge/factor`` of them
    /// share a level: their postings, less those of deleted documents, become one segment of the
    /// next level (the next number, last in the directory), the merged segments' entries are
    /// removed, and the deleted documents whose postings were dropped leave `deleted`. `header` is
    /// updated; the caller writes it.
    ///
    /// A document's postings are all in the segment that added it, so a deleted document found in
    /// a merged segment is in no other one. Each posting keeps the least document length of the
    /// block it came from, a bound no larger than its own, so the new blocks' bounds on scores stay
    /// bounds.
    package func mergeTextSegments(_ header: inout TextIndexHeader, _ descriptor: FullTextIndexDescriptor,
                                   _ databases: TextIndexDatabases, entity: String) throws {
        let fieldCount = descriptor.fields.count
        while case let (level, merged)? = TextSegmentMerge.next(in: header) {
            var deleted = Set<DocumentID>()
            try forEachTextIndexEntry(in: databases.deleted, entity: entity) { key, _ in
                if let id = TextIndexKeys.document(of: key) { deleted.insert(id) }
                return true
            }
            var postings: [String: [Posting]] = [:]
            var dropped = Set<DocumentID>()
            var keys: [[UInt8]] = []
            for segment in merged {
                let prefix = withUnsafeBytes(of: segment.number.bigEndian, Array.init)
                try forEachTextIndexEntry(in: databases.postings, from: prefix, entity: entity) { key, value in
                    guard key.starts(with: prefix) else { return false }
                    keys.append(key)
                    guard let parts = TextIndexKeys.parts(of: key) else {
                        throw damaged(descriptor, entity, "a postings key of segment \(segment.number) has no term and document")
                    }
                    guard parts.document != 0 else { return true }   // the term's summary in the segment
                    let term = String(decoding: parts.term, as: UTF8.self)
                    do {
                        let block = try PostingBlock(bytes: value)
                        guard block.header.fieldCount == fieldCount, block.hasPositions else {
                            throw damaged(descriptor, entity, "a block of \(term) in segment \(segment.number) has \(block.header.fieldCount) fields"
                                          + (block.hasPositions ? "" : " and no positions"))
                        }
                        let (ids, frequencies) = try block.documents()
                        let positions = try block.positions(frequencies: frequencies)
                        var next = 0
                        for (index, id) in ids.enumerated() {
                            let counts = Array(frequencies[index * fieldCount..<(index + 1) * fieldCount])
                            let fields = counts.map { count in
                                defer { next += Int(count) }
                                return Array(positions[next..<next + Int(count)])
                            }
                            if deleted.contains(id) {
                                dropped.insert(id)
                                continue
                            }
                            postings[term, default: []].append(Posting(document: id, frequencies: counts, positions: fields,
                                                                       length: block.header.minimumLength))
                        }
                    } catch let error as PostingsFormatError {
                        throw error.strataError(index: descriptor.name, entity: entity, of: "a block of \(term) in segment \(segment.number)")
                    }
                    return true
                }
            }
            let number = header.nextSegment
            let numbers = Set(merged.map(\.number))
            for key in keys { try deleteTextIndexKey(key, in: databases.postings, entity: entity) }
            for id in dropped { try deleteTextIndexKey(TextIndexKeys.document(id), in: databases.deleted, entity: entity) }
            header.segments.removeAll { numbers.contains($0.number) }
            guard !postings.isEmpty else { continue }
            for term in postings.keys { postings[term]!.sort { $0.document < $1.document } }
            try appendTextIndexEntries(Self.segment(postings, number: number, fieldCount: fieldCount), to: databases.postings, entity: entity)
            header.segments.append(TextIndexHeader.Segment(number: number, level: level + 1))
        }
    }
}
