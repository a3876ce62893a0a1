import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat
import StrataText

/// A full-text index is readable from outside Swift as StorageFormat.md lays it out:
/// tools/read-store.py, with only the `lmdb` and `cbor2` modules, lists an entity's full-text
/// indexes and dumps a term's postings and the documents' lengths, and what it prints is
/// Strata's own answer (the `SEARCH` matches, the tokenizer's positions, the stored lengths).
@Suite(.enabled(if: Python.hasModules(["lmdb", "cbor2"]),
                "python3 with the lmdb and cbor2 modules is missing: `pip install lmdb cbor2` (CI installs them)"))
struct ExternalFullTextFormatTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    struct Posting: Decodable, Equatable { var key: String; var document: Int; var frequencies: [Int]; var positions: [[Int]] }
    struct Length: Decodable, Equatable { var key: String; var document: Int; var fieldLengths: [Int] }
    struct Postings: Decodable { var index: String; var term: String; var postings: [Posting]; var documentLengths: [Length] }
    struct Listed: Decodable {
        var name: String; var fields: [String]; var weights: [Double]; var stemming: String; var stopWords: String
        var positions: Bool; var tokenizerVersion: Int; var foldingVersion: Int; var documents: Int
    }

    func run(_ arguments: [String]) throws -> Data {
        let script = try String(contentsOfFile: ExternalFormatTests.script, encoding: .utf8)
        let result = try Python.run(script, arguments: [store.path] + arguments)
        try #require(result.status == 0, "read-store.py failed: \(result.error)")
        return Data(result.output.utf8)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func pythonDumpsPostingsAsStrataAnswers() throws {
        typealias Article = Articles.Searchable
        let texts = ["LMDB stores keys", "Swift over lmdb: lmdb in Swift", "Fünke and funke", "running the store", "東京タワー lmdb"]
        // Three transactions (three segments), a replaced and a deleted record (documents in `deleted`).
        try store.write { tx in
            for id in 1...5 { try tx.upsert(Article(id: Int64(id), title: texts[id - 1], body: id % 2 == 0 ? texts[(id + 1) % 5] : nil, views: id)) }
        }
        try store.write { tx in try tx.upsert(Article(id: 6, title: "lmdb lmdb", body: "no stores here", views: 6)) }
        try store.write { tx in
            try tx.upsert(Article(id: 2, title: "Swift again", body: "lmdb once more, lmdb", views: 2))
            try tx.delete(Article.self, key: 5)
        }

        let listed = try JSONDecoder().decode([Listed].self, from: try run(["Article", "--text-indexes"]))
        #expect(listed.count == 1)
        let index = try #require(listed.first)
        #expect(index.name == "title,body" && index.fields == ["title", "body"] && index.weights == [2, 1])
        #expect(index.stemming == "english" && index.stopWords == "english" && index.positions)
        #expect(index.tokenizerVersion == TextTokenizer.rulesVersion && index.foldingVersion == Collation.rulesVersion)
        #expect(index.documents == 5)

        let tokenizer = TextTokenizer(stemming: .english, stopWords: .english)
        for word in ["lmdb", "Fünke", "stores", "Swift", "東京"] {
            let term = try #require(tokenizer.tokens(in: word, mode: .query).first?.term)
            let dump = try JSONDecoder().decode(Postings.self, from: try run(["Article", "--postings", "title,body", term]))
            #expect(dump.index == "title,body" && dump.term == term)
            let (records, lengths) = try store.read { tx throws -> ([Article], [Int: [Int]]) in
                let records = try tx.query(Article.self).where("title SEARCH %@ OR body SEARCH %@", arguments: [word, word]).all()
                // The stored document entries, as Strata reads them.
                let context = try #require(try tx.context(named: "Article"))
                let databases = try #require(context.textIndexes[index.name])
                var lengths: [Int: [Int]] = [:]
                try tx.forEachTextIndexEntry(in: databases.documents, entity: "Article") { key, value in
                    let document = try #require(TextIndexKeys.document(of: key))
                    if document != 0 { lengths[Int(document)] = try DocumentEntry(bytes: value).fieldLengths.map(Int.init) }
                    return true
                }
                return (records, lengths)
            }
            // The documents holding the term are the records SEARCH finds.
            #expect(Set(dump.postings.map(\.key)) == Set(records.map { Self.hex($0.id.orderedKey) }), "\(term)")
            // Frequencies and positions are the tokenizer's, field by field.
            for posting in dump.postings {
                let record = try #require(records.first { Self.hex($0.id.orderedKey) == posting.key })
                let positions = [record.title, record.body].map { text in
                    tokenizer.tokens(in: text ?? "").filter { $0.term == term }.map(\.position)
                }
                #expect(posting.positions == positions, "\(term) in \(record)")
                #expect(posting.frequencies == positions.map(\.count))
            }
            // Every live document's lengths are the stored entries'.
            #expect(Dictionary(uniqueKeysWithValues: dump.documentLengths.map { ($0.document, $0.fieldLengths) }) == lengths)
            #expect(Set(dump.documentLengths.map(\.key)) == Set(try store.read { tx in try tx.query(Article.self).all() }.map { Self.hex($0.id.orderedKey) }))
        }
    }
}
