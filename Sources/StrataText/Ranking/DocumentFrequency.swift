extension PostingBlockSource {
    /// The live documents of these postings (a term's) that hold the term in a field of `fields`
    /// (a bit per field; every field when nil): the term's document frequency as BM25 weighs it,
    /// counted as SQLite FTS5's `bm25()` counts the rows a column-filtered phrase matches.
    ///
    /// `deleted` lists, ascending, the documents deleted or replaced whose postings are still
    /// stored; they are not counted. The summary's counts (of every posting) answer for every
    /// field, or for one field when it keeps counts per field, less the deleted documents found
    /// in the postings by seeking each (only the blocks that may hold one are read). Any other set
    /// of fields, or a version 1 summary's single field, is counted by walking every posting.
    package func liveDocumentCount(in fields: UInt64?, fieldCount: Int, deleted: [DocumentID]) throws -> Int {
        let every: UInt64 = fieldCount >= 64 ? .max : (1 << UInt64(fieldCount)) - 1
        let mask = (fields ?? every) & every
        guard mask != 0 else { return 0 }
        let holds: (ArraySlice<UInt32>) -> Bool = { frequencies in
            frequencies.indices.contains { frequencies[$0] > 0 && mask & (1 << UInt64($0 - frequencies.startIndex)) != 0 }
        }
        var counted: UInt64?
        if mask == every {
            counted = summary.documentCount
        } else if mask.nonzeroBitCount == 1, let perField = summary.fieldDocumentCounts, perField.count == fieldCount {
            counted = perField[mask.trailingZeroBitCount]
        }
        if let counted, deleted.isEmpty { return Int(clamping: counted) }
        let cursor = try BlockPostingCursor(source: self, fieldCount: fieldCount)
        if var counted {
            // The deleted documents among the postings, found by seeking each.
            var next = 0
            while next < deleted.count {
                try cursor.advance(to: deleted[next])
                let document = cursor.document
                guard document != .max else { break }
                if document == deleted[next] {
                    if holds(cursor.frequencies) {
                        guard counted > 0 else {
                            throw PostingsFormatError("term summary", offset: 0, "counts fewer documents than its postings hold")
                        }
                        counted -= 1
                    }
                    next += 1
                } else {
                    next = Self.firstIndex(in: deleted, atOrAfter: document, from: next + 1)
                }
            }
            return Int(clamping: counted)
        }
        // Every posting walked, the deleted ones (ascending, as the postings are) stepped over.
        var count = 0, next = 0
        try cursor.advance(to: 1)
        while cursor.document != .max {
            let document = cursor.document
            while next < deleted.count && deleted[next] < document { next += 1 }
            if !(next < deleted.count && deleted[next] == document) && holds(cursor.frequencies) { count += 1 }
            try cursor.advance(to: document + 1)
        }
        return count
    }

    /// The index of the first of `ids` (ascending) at or after `target`, searched from `start`.
    private static func firstIndex(in ids: [DocumentID], atOrAfter target: DocumentID, from start: Int) -> Int {
        var low = start, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
