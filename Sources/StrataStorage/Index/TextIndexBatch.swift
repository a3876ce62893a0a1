import StrataText

/// The full-text changes of one index held by a write transaction until its commit (or until
/// ``byteLimit`` bytes of text are held), then written at once as one segment (ARCHITECTURE §8):
/// in order, each change replaces the document of a primary key (deletes it when `texts` is nil).
/// Filled only by ``IndexMaintainer/update(old:new:primaryKey:)``.
///
/// A log, so that a savepoint that fails can cut it back to where it began
/// (``WriteTransaction/inPlaceSavepoint(_:)``).
package struct TextIndexBatch {
    package struct Change {
        package var primaryKey: [UInt8]
        /// The texts of the index's fields, nil for a field the record lacks; nil for a delete.
        package var texts: [String?]?
    }

    package var changes: [Change] = []
    /// The UTF-8 bytes of the texts held.
    var textBytes = 0

    /// A batch holding this much text is written before the commit, so memory stays bounded.
    package static let byteLimit = 64 << 20

    package mutating func note(_ primaryKey: [UInt8], texts: [String?]?) {
        changes.append(Change(primaryKey: primaryKey, texts: texts))
        textBytes += primaryKey.count + (texts?.reduce(0) { $0 + ($1?.utf8.count ?? 0) } ?? 0)
    }
}

/// The keys of a full-text index's databases.
package enum TextIndexKeys {
    /// A document id as its key in `documents` and its value in `keys`: 8 bytes, big-endian.
    package static func document(_ id: DocumentID) -> [UInt8] { withUnsafeBytes(of: id.bigEndian, Array.init) }

    /// The document id of `bytes` (8 bytes, big-endian), or nil.
    package static func document(of bytes: [UInt8]) -> DocumentID? {
        guard bytes.count == 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | DocumentID($1) }
    }

    /// A postings key: segment (4 bytes, big-endian), the term's UTF-8, 0x00, the block's first
    /// document (8 bytes; 0 for the term's summary in the segment).
    package static func posting(segment: UInt32, term: [UInt8], document: DocumentID) -> [UInt8] {
        withUnsafeBytes(of: segment.bigEndian, Array.init) + term + [0] + self.document(document)
    }

    /// The parts of a postings key, or nil when it does not have that shape.
    package static func parts(of key: [UInt8]) -> (segment: UInt32, term: [UInt8], document: DocumentID)? {
        guard key.count >= 13, key[key.count - 9] == 0, let document = document(of: Array(key.suffix(8))) else { return nil }
        let segment = key.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
        return (segment, Array(key[4..<key.count - 9]), document)
    }
}

extension FullTextIndexDescriptor {
    /// The tokenizer of this index's terms.
    package var tokenizer: TextTokenizer { TextTokenizer(stemming: stemming, stopWords: stopWords) }
}

extension WriteTransaction {
    /// Writes the held full-text changes of every entity this transaction wrote: before the commit,
    /// before a savepoint, and at the end of one that succeeds.
    package func flushTextBatches() throws {
        for context in contexts.values where !context.textBatches.isEmpty {
            for name in context.textBatches.keys.sorted() { try flushTextBatch(name, context) }
        }
    }

    /// Writes the held changes of the full-text index `name` when they hold more than
    /// ``TextIndexBatch/byteLimit`` bytes of text and no in-place savepoint is open.
    package func flushTextBatchIfFull(_ name: String, _ context: EntityContext) throws {
        guard textFlushHolds == 0, (context.textBatches[name]?.textBytes ?? 0) >= TextIndexBatch.byteLimit else { return }
        try flushTextBatch(name, context)
    }

    /// Applies the held changes of the full-text index `name`: deleted and replaced documents go to
    /// `deleted` (their `keys` and `documents` entries removed), new ones get the next ids and
    /// their postings are appended as one new segment (of the level of its size), the newest four
    /// segments are merged while they share a level (``mergeTextSegments(_:_:_:entity:)``); the header
    /// (statistics and segments) is written last.
    package func flushTextBatch(_ name: String, _ context: EntityContext) throws {
        guard let batch = context.textBatches.removeValue(forKey: name), !batch.changes.isEmpty,
              let descriptor = context.schema.fullTextIndexes.first(where: { $0.name == name }),
              let databases = context.textIndexes[name] else { return }
        let entity = context.name
        let fieldCount = descriptor.fields.count
        let tokenizer = descriptor.tokenizer
        var header = try textIndexHeader(descriptor, databases, context)
        var added: [DocumentID: (primaryKey: [UInt8], lengths: [UInt32], terms: [String: [[UInt32]]])] = [:]
        var pending: [[UInt8]: DocumentID] = [:]
        for change in batch.changes {
            if let id = pending.removeValue(forKey: change.primaryKey), let gone = added.removeValue(forKey: id) {
                try header.statistics.subtract(gone.lengths, index: descriptor, entity: entity)
            } else if let stored = try textIndexValue(forKey: change.primaryKey, in: databases.keys, entity: entity) {
                guard let id = TextIndexKeys.document(of: stored) else {
                    throw damaged(descriptor, entity, "the document id of primary key \(describeStoredKey(change.primaryKey)) is \(stored.count) bytes, not 8")
                }
                let key = TextIndexKeys.document(id)
                guard let entryBytes = try textIndexValue(forKey: key, in: databases.documents, entity: entity) else {
                    throw damaged(descriptor, entity, "document \(id) of primary key \(describeStoredKey(change.primaryKey)) has no entry")
                }
                let entry: DocumentEntry
                do { entry = try DocumentEntry(bytes: entryBytes) } catch {
                    throw error.strataError(index: descriptor.name, entity: entity, of: "document \(id)")
                }
                try header.statistics.subtract(entry.fieldLengths, index: descriptor, entity: entity)
                try deleteTextIndexKey(key, in: databases.documents, entity: entity)
                try deleteTextIndexKey(change.primaryKey, in: databases.keys, entity: entity)
                // A document without words has no postings for a merge to drop.
                if entry.length > 0 { try putTextIndexValue([], forKey: key, in: databases.deleted, entity: entity) }
            }
            guard let texts = change.texts else { continue }
            let id = header.statistics.nextDocument
            header.statistics.nextDocument += 1
            var terms: [String: [[UInt32]]] = [:]
            var lengths: [UInt32] = []
            for (field, text) in texts.enumerated() {
                let length = tokenizer.forEachToken(in: text ?? "") { token in
                    terms[token.term, default: Array(repeating: [], count: fieldCount)][field].append(UInt32(token.position))
                }
                lengths.append(UInt32(clamping: length))
            }
            added[id] = (change.primaryKey, lengths, terms)
            pending[change.primaryKey] = id
            header.statistics.documentCount += 1
            for (field, length) in lengths.enumerated() { header.statistics.totalFieldLengths[field] += UInt64(length) }
        }
        let ids = added.keys.sorted()
        try appendTextIndexEntries(ids.map { id in
            (TextIndexKeys.document(id), DocumentEntry(fieldLengths: added[id]!.lengths, primaryKey: added[id]!.primaryKey).bytes)
        }, to: databases.documents, entity: entity)
        for id in ids { try putTextIndexValue(TextIndexKeys.document(id), forKey: added[id]!.primaryKey, in: databases.keys, entity: entity) }
        var postings: [String: [Posting]] = [:]
        for id in ids {
            let document = added[id]!
            let length = max(1, document.lengths.reduce(0, &+))
            for (term, positions) in document.terms {
                postings[term, default: []].append(Posting(document: id, frequencies: positions.map { UInt32($0.count) },
                                                           positions: positions, length: length))
            }
        }
        if !postings.isEmpty {
            let segment = header.nextSegment
            try appendTextIndexEntries(Self.segment(postings, number: segment, fieldCount: fieldCount), to: databases.postings, entity: entity)
            header.segments.append(TextIndexHeader.Segment(number: segment, level: TextSegmentMerge.level(documents: ids.count)))
        }
        try mergeTextSegments(&header, descriptor, databases, entity: entity)
        try putTextIndexValue(header.bytes, forKey: TextIndexKeys.document(0), in: databases.documents, entity: entity)
    }

    /// A segment's entries in key order: per term (in UTF-8 byte order), its summary (with its
    /// document counts per field), then its postings (ascending ids) in blocks of
    /// ``PostingBlock/maximumDocuments``.
    package static func segment(_ postings: [String: [Posting]], number: UInt32, fieldCount: Int) -> [(key: [UInt8], value: [UInt8])] {
        var entries: [(key: [UInt8], value: [UInt8])] = []
        for (term, list) in postings.map({ (Array($0.key.utf8), $0.value) }).sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
            var blocks: [(key: [UInt8], value: [UInt8])] = []
            for start in stride(from: 0, to: list.count, by: PostingBlock.maximumDocuments) {
                let part = Array(list[start..<min(start + PostingBlock.maximumDocuments, list.count)])
                blocks.append((TextIndexKeys.posting(segment: number, term: term, document: part[0].document),
                               PostingBlock.encode(part, fieldCount: fieldCount, keepsPositions: true)))
            }
            let summary = TermSummary(of: list, blockCount: blocks.count, fieldCount: fieldCount)
            entries.append((TextIndexKeys.posting(segment: number, term: term, document: 0), summary.bytes))
            entries += blocks
        }
        return entries
    }

    /// The stored header of a full-text index, or an empty index's.
    package func textIndexHeader(_ descriptor: FullTextIndexDescriptor, _ databases: TextIndexDatabases, _ context: EntityContext) throws -> TextIndexHeader {
        guard let bytes = try textIndexValue(forKey: TextIndexKeys.document(0), in: databases.documents, entity: context.name) else {
            return TextIndexHeader(fieldCount: descriptor.fields.count)
        }
        let header: TextIndexHeader
        do { header = try TextIndexHeader(bytes: bytes) } catch {
            throw error.strataError(index: descriptor.name, entity: context.name, of: "the header (document 0)")
        }
        guard header.statistics.totalFieldLengths.count == descriptor.fields.count else {
            throw damaged(descriptor, context.name, "the header counts \(header.statistics.totalFieldLengths.count) fields, the catalog \(descriptor.fields.count)")
        }
        return header
    }

    func damaged(_ descriptor: FullTextIndexDescriptor, _ entity: String, _ what: String) -> StrataError {
        StrataError(.incompatibleStore, "\(entity): full-text index \(descriptor.name) is damaged: \(what)", entity: entity)
    }
}

extension TextIndexStatistics {
    /// Takes a document of `lengths` out of the statistics; throws `.incompatibleStore` when they
    /// do not hold it (damaged statistics).
    package mutating func subtract(_ lengths: [UInt32], index: FullTextIndexDescriptor, entity: String) throws {
        guard documentCount > 0, lengths.count == totalFieldLengths.count,
              zip(totalFieldLengths, lengths).allSatisfy({ $0 >= UInt64($1) }) else {
            throw StrataError(.incompatibleStore, "\(entity): full-text index \(index.name) is damaged: its statistics do not hold a document they counted",
                              entity: entity)
        }
        documentCount -= 1
        for (field, length) in lengths.enumerated() { totalFieldLengths[field] -= UInt64(length) }
    }
}
