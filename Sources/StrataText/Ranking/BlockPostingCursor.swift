/// The posting cursor over encoded blocks (``PostingBlock``) from any ``PostingBlockSource``: a
/// block's header is read when the cursor reaches it, its documents when a document in it is
/// asked for, its positions when positions are.
///
/// Documents for which `isDeleted` is true (deleted or replaced documents whose postings a merge
/// has not removed yet) are stepped over. A block or summary of another field count than the
/// index's is damage, and throws.
package final class BlockPostingCursor<Source: PostingBlockSource>: PostingCursor {
    let source: Source
    let isDeleted: (@Sendable (DocumentID) -> Bool)?
    /// The index's field count, which every block must have.
    let fieldCount: Int
    package let postingCount: Int
    package let globalBounds: PostingBounds
    package private(set) var document: DocumentID = 0

    private var block: PostingBlock?
    private var ids: [DocumentID] = []
    private var allFrequencies: [UInt32] = []
    /// Each document's first position in `allPositions` by field (documentCount × fieldCount + 1).
    private var positionStarts: [Int]?
    private var allPositions: [UInt32] = []
    private var index = 0

    /// A cursor over `source`'s blocks, those of a term of an index of `fieldCount` fields.
    package init(source: Source, fieldCount: Int, isDeleted: (@Sendable (DocumentID) -> Bool)? = nil) throws(PostingsFormatError) {
        self.source = source
        self.isDeleted = isDeleted
        self.fieldCount = fieldCount
        let summary = source.summary
        guard summary.maximumFrequencies.count == fieldCount else {
            throw PostingsFormatError("term summary", offset: 0,
                                      "\(summary.maximumFrequencies.count) fields, the index has \(fieldCount)")
        }
        postingCount = Int(clamping: summary.documentCount)
        globalBounds = PostingBounds(maximumFrequencies: summary.maximumFrequencies, minimumLength: summary.minimumLength,
                                     lastDocument: .max)
    }

    package func advance(to target: DocumentID) throws {
        guard document != .max, target > document || document == 0 else { return }
        var target = max(target, 1)
        while true {
            if block == nil || target > block!.header.lastDocument {
                guard var bytes = try source.block(holding: target) else { return finish() }
                var header = try PostingBlock(bytes: bytes).header
                if header.lastDocument < target {
                    guard let after = try source.block(after: header.lastDocument) else { return finish() }
                    bytes = after
                    header = try PostingBlock(bytes: bytes).header
                }
                if let current = block, header.firstDocument <= current.header.lastDocument {
                    throw PostingsFormatError(PostingBlock.structure, offset: 0,
                                              "block from document \(header.firstDocument) overlaps the one before it")
                }
                try load(PostingBlock(bytes: bytes))
            }
            while index < ids.count && ids[index] < target { index += 1 }
            if index == ids.count {
                target = block!.header.lastDocument + 1
                continue
            }
            document = ids[index]
            if let isDeleted, isDeleted(document) {
                target = document + 1
                continue
            }
            return
        }
    }

    private func finish() {
        document = .max
        block = nil
    }

    private func load(_ next: PostingBlock) throws {
        guard next.header.fieldCount == fieldCount else {
            throw PostingsFormatError(PostingBlock.structure, offset: 1,
                                      "\(next.header.fieldCount) fields, the index has \(fieldCount)")
        }
        block = next
        (ids, allFrequencies) = try next.documents()
        positionStarts = nil
        allPositions = []
        index = 0
    }

    package var frequencies: ArraySlice<UInt32> {
        let count = fieldCount
        return allFrequencies[index * count..<(index + 1) * count]
    }

    package func positions(in field: Int) throws -> ArraySlice<UInt32> {
        guard let block else { return [] }
        if positionStarts == nil {
            allPositions = try block.positions(frequencies: allFrequencies)
            var starts: [Int] = [0]
            starts.reserveCapacity(allFrequencies.count + 1)
            for frequency in allFrequencies { starts.append(starts[starts.count - 1] + Int(frequency)) }
            positionStarts = starts
        }
        let slot = index * fieldCount + field
        return allPositions[positionStarts![slot]..<positionStarts![slot + 1]]
    }

    package var blockBounds: PostingBounds {
        guard let block else { return PostingBounds(maximumFrequencies: [], minimumLength: 1, lastDocument: .max) }
        return PostingBounds(maximumFrequencies: block.header.maximumFrequencies, minimumLength: block.header.minimumLength,
                             lastDocument: block.header.lastDocument)
    }
}
