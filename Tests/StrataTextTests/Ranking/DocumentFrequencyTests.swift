import Testing
import TestSupport
@testable import StrataText

/// A term's document frequency, as BM25 weighs it: the live documents holding the term in the
/// searched fields, whatever the postings still hold of deleted documents, and whichever way it is
/// counted (a summary's counts less the deleted documents, or a walk of every posting).
@Suite struct DocumentFrequencyTests {
    static let vocabulary = ["lmdb", "swift", "store", "page", "tree", "index", "query", "köln", "a", "the"]

    /// Three fields, small blocks, and one document in four deleted with its postings kept.
    static func corpus(seed: UInt64) -> (index: InMemoryTextIndex, texts: [DocumentID: [String]]) {
        var random = SeededGenerator(seed: seed)
        let index = InMemoryTextIndex(fieldCount: 3, blockSize: 4)
        var texts: [DocumentID: [String]] = [:]
        for _ in 0..<200 {
            let fields = (0..<3).map { _ in
                (0..<Int.random(in: 0...6, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " ")
            }
            texts[index.add(fields)] = fields
        }
        for document in texts.keys.sorted() where Int.random(in: 0..<4, using: &random) == 0 {
            index.remove(document)
            texts[document] = nil
        }
        return (index, texts)
    }

    /// The live documents holding `term` in a field of `fields`, by reading their texts.
    static func expected(_ term: String, in fields: UInt64?, _ texts: [DocumentID: [String]], _ tokenizer: TextTokenizer) -> Int {
        texts.values.filter { document in
            document.indices.contains { field in
                (fields.map { $0 & (1 << UInt64(field)) != 0 } ?? true)
                    && tokenizer.tokens(in: document[field], mode: .document).contains { $0.term == term }
            }
        }.count
    }

    static let scopes: [UInt64?] = [nil] + (1...7).map { $0 }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func countsTheLiveDocumentsHoldingTheTermInTheSearchedFields(seed: UInt64) throws {
        let (index, texts) = Self.corpus(seed: seed)
        var deletedHolders = 0
        for word in Self.vocabulary {
            let term = index.tokenizer.tokens(in: word, mode: .query)[0].term
            let postings = try #require(index.run(of: term)).summary.documentCount
            for fields in Self.scopes {
                let found = try index.documentFrequency(of: term, in: fields)
                #expect(found == Self.expected(term, in: fields, texts, index.tokenizer), "\(term) in \(fields.map(String.init) ?? "every field")")
                if fields == nil { deletedHolders += Int(postings) - found }
            }
        }
        // Deleted documents' postings are still there to be left out.
        #expect(deletedHolders > 0)
    }

    @Test func aSummaryWithoutCountsPerFieldIsCountedByWalkingThePostings() throws {
        let (index, texts) = Self.corpus(seed: 4)
        let deleted = (1...200).filter { texts[DocumentID($0)] == nil }.map { DocumentID($0) }
        for word in Self.vocabulary {
            let term = index.tokenizer.tokens(in: word, mode: .query)[0].term
            var run = try #require(index.run(of: term))
            run.summary.fieldDocumentCounts = nil   // as a version 1 summary reads
            for fields in Self.scopes {
                #expect(try run.liveDocumentCount(in: fields, fieldCount: 3, deleted: deleted)
                        == Self.expected(term, in: fields, texts, index.tokenizer))
            }
        }
    }

    @Test func aSummaryCountingFewerDocumentsThanItsPostingsHoldIsDamage() throws {
        let (index, texts) = Self.corpus(seed: 5)
        let deleted = (1...200).filter { texts[DocumentID($0)] == nil }.map { DocumentID($0) }
        var run = try #require(index.run(of: "the"))
        run.summary.documentCount = 1
        #expect(throws: PostingsFormatError.self) { try run.liveDocumentCount(in: nil, fieldCount: 3, deleted: deleted) }
    }
}
