import StrataText

extension ReadTransaction {
    /// Checks each full-text index of `context`'s entity against the stored records, for
    /// ``verifyIndexes(entity:progress:)``: every record is one live document (`keys` and
    /// `documents` agree, with the field lengths its texts give), the statistics count them, the
    /// live postings of every term in every segment are exactly the records' tokens (document,
    /// frequencies per field and positions), and each term's summary in a segment counts what its
    /// blocks there hold (documents, in all and per field, blocks, highest frequencies, and a least
    /// length no larger than theirs: what ranking weighs terms by). Holds one index's postings in
    /// memory at a time.
    /// Returns the documents the records call for, over all full-text indexes.
    package func verifyTextIndexes(_ context: EntityContext, problem: (String) -> Void) throws -> Int {
        var expectedDocuments = 0
        for descriptor in context.schema.fullTextIndexes {
            guard let databases = context.textIndexes[descriptor.name] else {
                problem("full-text index '\(descriptor.name)' is listed in the catalog but has no databases")
                continue
            }
            do {
                expectedDocuments += try verifyTextIndex(descriptor, databases, context, problem: problem)
            } catch let error as StrataError {
                problem("full-text index '\(descriptor.name)' cannot be read: \(error.message)")
            }
        }
        return expectedDocuments
    }

    /// A document's postings as verified: per term, per primary key, its frequencies then positions.
    private typealias Occurrences = [[UInt8]: [[UInt8]: [UInt32]]]

    private func verifyTextIndex(_ descriptor: FullTextIndexDescriptor, _ databases: TextIndexDatabases, _ context: EntityContext,
                                 problem: (String) -> Void) throws -> Int {
        let entity = context.name, name = descriptor.name
        let fieldCount = descriptor.fields.count
        let tokenizer = descriptor.tokenizer
        let paths = descriptor.fieldPaths
        let selection = FieldSelection(names: Array(Set(paths.compactMap(\.first))), fields: context.schema.fields)
        var offsets: [Int] = []
        var expected: Occurrences = [:]
        var expectedLengths: [[UInt8]: [UInt32]] = [:]
        try forEachStoredRecord(context) { key, bytes in
            guard let fields = try? selection.values(of: bytes, reusing: &offsets) else { return true }   // reported by the caller
            var terms: [[UInt8]: [[UInt32]]] = [:]
            var lengths: [UInt32] = []
            for (field, path) in paths.enumerated() {
                var text = ""
                if case .string(let value)? = fields.value(at: path) { text = value }
                let length = tokenizer.forEachToken(in: text) { token in
                    terms[Array(token.term.utf8), default: Array(repeating: [], count: fieldCount)][field].append(UInt32(token.position))
                }
                lengths.append(UInt32(clamping: length))
            }
            expectedLengths[key] = lengths
            for (term, positions) in terms {
                expected[term, default: [:]][key] = positions.map { UInt32($0.count) } + positions.joined()
            }
            return true
        }
        // Documents: keys → id → entry, and the statistics.
        var primaryKeys: [DocumentID: [UInt8]] = [:]
        try forEachTextIndexEntry(in: databases.keys, entity: entity) { key, value in
            guard let id = TextIndexKeys.document(of: value) else {
                problem("full-text index '\(name)': the document id of the record with primary key \(describeStoredKey(key)) is damaged")
                return true
            }
            primaryKeys[id] = key
            if expectedLengths[key] == nil { problem("full-text index '\(name)' holds a document for primary key \(describeStoredKey(key)), which has no record") }
            return true
        }
        var live = Set<DocumentID>(), totals = [UInt64](repeating: 0, count: fieldCount)
        var header: TextIndexHeader?
        try forEachTextIndexEntry(in: databases.documents, entity: entity) { key, value in
            guard let id = TextIndexKeys.document(of: key) else { problem("full-text index '\(name)': a documents key of \(key.count) bytes"); return true }
            do {
                if id == 0 { header = try TextIndexHeader(bytes: value); return true }
                let entry = try DocumentEntry(bytes: value)
                live.insert(id)
                for (field, length) in entry.fieldLengths.enumerated() where field < fieldCount { totals[field] += UInt64(length) }
                guard primaryKeys[id] == entry.primaryKey else {
                    problem("full-text index '\(name)': document \(id) is not the one its primary key \(describeStoredKey(entry.primaryKey)) names")
                    return true
                }
                if let lengths = expectedLengths[entry.primaryKey], lengths != entry.fieldLengths {
                    problem("full-text index '\(name)': document \(id) has field lengths \(entry.fieldLengths); its record's texts give \(lengths)")
                }
            } catch let error as PostingsFormatError {
                problem("full-text index '\(name)': document \(id): \(error)")
            }
            return true
        }
        for (key, _) in expectedLengths where !primaryKeys.values.contains(key) {
            problem("full-text index '\(name)' lacks the document of the record with primary key \(describeStoredKey(key))")
        }
        if live.count != primaryKeys.count { problem("full-text index '\(name)' has \(live.count) document entries and \(primaryKeys.count) keys") }
        if let header {
            if header.statistics.documentCount != UInt64(expectedLengths.count) || header.statistics.totalFieldLengths != totals {
                problem("full-text index '\(name)': its statistics count \(header.statistics.documentCount) documents of lengths \(header.statistics.totalFieldLengths); "
                        + "the records call for \(expectedLengths.count), the entries hold \(totals)")
            }
        } else if !expectedLengths.isEmpty {
            problem("full-text index '\(name)' has no header (document 0)")
        }
        // Postings: every block of every live segment, deleted documents left out; and what each
        // term's blocks in a segment hold, against its summary there.
        var actual: Occurrences = [:]
        var summaries: [SegmentTerm: TermSummary] = [:], held: [SegmentTerm: TermSummary] = [:], unreadable = Set<SegmentTerm>()
        try forEachTextIndexEntry(in: databases.postings, entity: entity) { key, value in
            guard let parts = TextIndexKeys.parts(of: key) else { problem("full-text index '\(name)': a postings key of the wrong shape"); return true }
            let place = SegmentTerm(segment: parts.segment, term: parts.term)
            guard parts.document != 0 else {
                do { summaries[place] = try TermSummary(bytes: value) } catch {
                    unreadable.insert(place)
                    problem("full-text index '\(name)': the summary of '\(place.shown)' in segment \(parts.segment): \(error)")
                }
                return true
            }
            do {
                let block = try PostingBlock(bytes: value)
                let (ids, frequencies) = try block.documents()
                let positions = try block.positions(frequencies: frequencies)
                // Every document of the block, deleted ones included, as a segment's summary counts them.
                var summary = held[place] ?? TermSummary(empty: fieldCount)
                summary.blockCount += 1
                for index in ids.indices {
                    summary.count(frequencies[index * fieldCount..<(index + 1) * fieldCount], length: block.header.minimumLength)
                }
                held[place] = summary
                var next = 0
                for (index, id) in ids.enumerated() {
                    let own = Array(frequencies[index * fieldCount..<(index + 1) * fieldCount])
                    let count = own.reduce(0) { $0 + Int($1) }
                    defer { next += count }
                    guard live.contains(id), let primaryKey = primaryKeys[id] else { continue }
                    actual[parts.term, default: [:]][primaryKey] = own + positions[next..<next + count]
                }
            } catch let error as PostingsFormatError {
                problem("full-text index '\(name)': the block at segment \(parts.segment), term '\(String(decoding: parts.term, as: UTF8.self))': \(error)")
            }
            return true
        }
        for place in Set(summaries.keys).union(held.keys).subtracting(unreadable).sorted(by: { ($0.segment, $0.shown) < ($1.segment, $1.shown) }) {
            let subject = "full-text index '\(name)': the summary of '\(place.shown)' in segment \(place.segment)"
            guard let summary = summaries[place], let blocks = held[place] else {
                problem(summaries[place] == nil ? "\(subject) is missing" : "\(subject) has no blocks")
                continue
            }
            var counted = blocks
            counted.minimumLength = summary.minimumLength
            if summary.fieldDocumentCounts == nil { counted.fieldDocumentCounts = nil }   // version 1: not kept
            if counted != summary || summary.minimumLength > blocks.minimumLength {
                problem("\(subject) counts \(summary.documentCount) documents (per field \(summary.fieldDocumentCounts.map { "\($0)" } ?? "not kept")), "
                        + "\(summary.blockCount) blocks, highest frequencies \(summary.maximumFrequencies), least length \(summary.minimumLength); "
                        + "its blocks hold \(blocks.documentCount) (per field \(blocks.fieldDocumentCounts ?? [])), \(blocks.blockCount), "
                        + "\(blocks.maximumFrequencies), \(blocks.minimumLength)")
            }
        }
        for term in Set(expected.keys).union(actual.keys) where expected[term] != actual[term] {
            let shown = String(decoding: term, as: UTF8.self)
            let wrong = Set((expected[term] ?? [:]).keys).union((actual[term] ?? [:]).keys).filter { expected[term]?[$0] != actual[term]?[$0] }
            problem("full-text index '\(name)': the postings of '\(shown)' differ from the records' for \(wrong.count) records, "
                    + "among them the one with primary key \(describeStoredKey(wrong.first ?? []))")
        }
        return expectedLengths.count
    }
}

/// A term in one segment of a full-text index.
private struct SegmentTerm: Hashable {
    var segment: UInt32
    var term: [UInt8]
    var shown: String { String(decoding: term, as: UTF8.self) }
}
