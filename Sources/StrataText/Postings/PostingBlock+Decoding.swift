/// Reading a block's header and sections, checking every rule of the layout (``PostingBlock``).
extension PostingBlock {
    static let structure = "posting block"

    static func readHeader(_ bytes: [UInt8]) throws(PostingsFormatError) -> Header {
        var reader = PostingBytesReader(bytes, structure: structure)
        let version = try reader.byte()
        guard version == Self.version else {
            throw reader.failure("format version \(version), not \(Self.version) (a newer Strata wrote it?)", at: 0)
        }
        let fieldCount = Int(try reader.varint(in: 1...UInt64(maximumFields), "field count"))
        let documentCount = Int(try reader.varint(in: 1...UInt64(maximumDocuments), "document count"))
        let first = try reader.varint(in: 1...(UInt64.max - 1), "first document")
        let spanStart = reader.offset
        let span = try reader.varint()
        guard span <= UInt64.max - 1 - first, span >= UInt64(documentCount - 1) else {
            throw reader.failure("last document \(first) + \(span) impossible for \(documentCount) documents", at: spanStart)
        }
        var maximum: [UInt32] = []
        maximum.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount { maximum.append(UInt32(try reader.varint(in: 0...UInt64(UInt32.max), "highest frequency"))) }
        guard maximum.contains(where: { $0 > 0 }) else { throw reader.failure("every field's highest frequency is 0") }
        let minimumLength = UInt32(try reader.varint(in: 1...UInt64(UInt32.max), "least document length"))
        let documentsLength = try reader.length("documents section length")
        let positionsLength = try reader.length("positions section length")
        let documentsStart = reader.offset
        guard documentsStart + documentsLength + positionsLength == bytes.count else {
            throw reader.failure("sections of \(documentsLength) and \(positionsLength) bytes end at "
                                 + "\(documentsStart + documentsLength + positionsLength), the block at \(bytes.count)")
        }
        guard documentsLength >= documentCount * (fieldCount > 1 ? 3 : 2) else {
            throw reader.failure("documents section of \(documentsLength) bytes too short for \(documentCount) documents")
        }
        return Header(fieldCount: fieldCount, documentCount: documentCount, firstDocument: first, lastDocument: first + span,
                      maximumFrequencies: maximum, minimumLength: minimumLength,
                      documentsRange: documentsStart..<documentsStart + documentsLength,
                      positionsRange: documentsStart + documentsLength..<bytes.count)
    }

    /// True when the block holds positions.
    package var hasPositions: Bool { !header.positionsRange.isEmpty }

    /// The documents' ids, and their frequencies field by field (`documentCount × fieldCount`,
    /// a document's fields together).
    package func documents() throws(PostingsFormatError) -> (ids: [DocumentID], frequencies: [UInt32]) {
        let fieldCount = header.fieldCount
        var reader = PostingBytesReader(bytes, structure: Self.structure, offset: header.documentsRange.lowerBound,
                                        end: header.documentsRange.upperBound)
        var ids: [DocumentID] = []
        var frequencies: [UInt32] = []
        ids.reserveCapacity(header.documentCount)
        frequencies.reserveCapacity(header.documentCount * fieldCount)
        var highest = [UInt32](repeating: 0, count: fieldCount)
        var document = header.firstDocument
        let fullMask: UInt64 = fieldCount == 64 ? .max : (1 << UInt64(fieldCount)) - 1
        for index in 0..<header.documentCount {
            let deltaStart = reader.offset
            let delta = try reader.varint()
            if index == 0 {
                guard delta == 0 else { throw reader.failure("first document's delta \(delta), not 0", at: deltaStart) }
            } else {
                guard delta >= 1, delta <= header.lastDocument - document else {
                    throw reader.failure("document delta \(delta) out of order or past the last document", at: deltaStart)
                }
                document += delta
            }
            ids.append(document)
            let mask = fieldCount == 1 ? 1 : try reader.varint(in: 1...fullMask, "field mask")
            for field in 0..<fieldCount {
                guard mask & (1 << UInt64(field)) != 0 else { frequencies.append(0); continue }
                let frequency = UInt32(try reader.varint(in: 1...UInt64(header.maximumFrequencies[field]), "frequency"))
                highest[field] = max(highest[field], frequency)
                frequencies.append(frequency)
            }
        }
        guard reader.isAtEnd else { throw reader.failure("bytes after the last document of the documents section") }
        guard document == header.lastDocument else {
            throw reader.failure("last document \(document), the header says \(header.lastDocument)", at: header.documentsRange.lowerBound)
        }
        guard highest == header.maximumFrequencies else {
            throw reader.failure("highest frequencies \(highest), the header says \(header.maximumFrequencies)",
                                 at: header.documentsRange.lowerBound)
        }
        return (ids, frequencies)
    }

    /// Every position of the block, document by document and field by field in order, as many per
    /// field as its frequency in `frequencies` (what ``documents()`` returned).
    package func positions(frequencies: [UInt32]) throws(PostingsFormatError) -> [UInt32] {
        var reader = PostingBytesReader(bytes, structure: Self.structure, offset: header.positionsRange.lowerBound,
                                        end: header.positionsRange.upperBound)
        guard hasPositions else { throw reader.failure("the block holds no positions (the index keeps none)") }
        // Each position takes at least a byte: a larger total is damage, and nothing is reserved for it.
        let total = frequencies.reduce(0) { $0 + Int($1) }
        guard total <= header.positionsRange.count else {
            throw reader.failure("\(total) positions cannot fit in a section of \(header.positionsRange.count) bytes")
        }
        var positions: [UInt32] = []
        positions.reserveCapacity(total)
        for frequency in frequencies where frequency > 0 {
            var position: UInt64 = 0
            for occurrence in 0..<Int(frequency) {
                let start = reader.offset
                let value = try reader.varint()
                guard occurrence == 0 || value >= 1 else { throw reader.failure("position gap 0", at: start) }
                guard value <= UInt64(UInt32.max) - (occurrence == 0 ? 0 : position) else {
                    throw reader.failure("position beyond 32 bits", at: start)
                }
                position = occurrence == 0 ? value : position + value
                positions.append(UInt32(position))
            }
        }
        guard reader.isAtEnd else { throw reader.failure("bytes after the last position of the positions section") }
        return positions
    }
}
