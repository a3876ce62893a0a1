import Foundation
import Testing
import TestSupport

/// `strata index add S Entity fields --full-text` builds a full-text index over the stored
/// records in one write transaction, after which `strata search` answers as on a store imported
/// with it; `strata index drop … --full-text` drops it, and the errors name what is wrong.
@Suite struct FullTextIndexCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-fulltext-index") }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let posts = #"""
        [{"id": 1, "title": "LMDB", "body": "LMDB keeps pages in a B-tree; LMDB maps them", "views": 3},
         {"id": 2, "title": "Swift", "body": "Swift code reads an LMDB store", "views": 4},
         {"id": 3, "title": "Trees", "body": "nothing about stores", "views": 5},
         {"id": 4, "title": "Other", "body": "other words", "views": 6}]
        """#

    func imported(_ path: String, schemaFullText: String?) throws {
        let schema = try file("schema-\(schemaFullText == nil ? "plain" : "text").json", """
            { "entities": { "Post": {
                "primaryKey": "id",
                "fields": { "id": {"type": "int"}, "title": {"type": "string"}, "body": {"type": "string"}, "views": {"type": "int"} }\
            \(schemaFullText.map { ", \"fullText\": \($0)" } ?? "") } } }
            """)
        let result = try StrataCLI.run(["import", path, try file("posts.json", Self.posts), "--entity", "Post", "--schema", schema])
        try #require(result.status == 0, "\(result.error)")
    }

    @Test func addedIndexSearchesAsADeclaredOneAndDropsAgain() throws {
        try imported(store, schemaFullText: nil)
        let before = try StrataCLI.run(["search", store, "Post", "lmdb"])
        #expect(before.status != 0 && before.error.contains("no full-text index"), "\(before.error)")

        let added = try StrataCLI.run(["index", "add", store, "Post", "title:2,body", "--full-text", "--stemming", "english"])
        #expect(added.status == 0, "\(added.error)")
        #expect(added.output.contains("built full-text index title,body of Post (4 records)"), "\(added.output)")

        let declared = dir.path("declared")
        try imported(declared, schemaFullText: #"{"fields": ["title", "body"], "weights": [2, 1], "stemming": "english"}"#)
        for query in ["lmdb", "store", "lmdb OR trees", "\"reads an lmdb\"", "title:swift"] {
            let mine = try StrataCLI.run(["search", store, "Post", query, "--field", "body", "--limit", "10"])
            let theirs = try StrataCLI.run(["search", declared, "Post", query, "--field", "body", "--limit", "10"])
            #expect(mine.status == 0 && mine.output == theirs.output && !mine.output.isEmpty, "\(query): \(mine.output) \(mine.error) vs \(theirs.output)")
        }
        #expect(try StrataCLI.run(["verify", store]).status == 0)

        let twice = try StrataCLI.run(["index", "add", store, "Post", "title:2,body", "--full-text", "--stemming", "english"])
        #expect(twice.status != 0 && twice.error.contains("already has the full-text index 'title,body'"), "\(twice.error)")

        let dropped = try StrataCLI.run(["index", "drop", store, "Post", "title,body", "--full-text"])
        #expect(dropped.status == 0 && dropped.output.contains("dropped full-text index title,body of Post"), "\(dropped.error)")
        let after = try StrataCLI.run(["search", store, "Post", "lmdb"])
        #expect(after.status != 0 && after.error.contains("no full-text index"), "\(after.error)")
        let again = try StrataCLI.run(["index", "drop", store, "Post", "title,body", "--full-text"])
        #expect(again.status != 0 && again.error.contains("has no full-text index 'title,body'"), "\(again.error)")
    }

    @Test func badFieldsAreNamed() throws {
        try imported(store, schemaFullText: nil)
        let unknown = try StrataCLI.run(["index", "add", store, "Post", "title,bdoy", "--full-text"])
        #expect(unknown.status != 0 && unknown.error.contains("unknown field 'bdoy'"), "\(unknown.error)")
        let number = try StrataCLI.run(["index", "add", store, "Post", "views", "--full-text"])
        #expect(number.status != 0 && number.error.contains("needs a text field, not the integer field 'views'"), "\(number.error)")
        let weight = try StrataCLI.run(["index", "add", store, "Post", "title:-1,body", "--full-text"])
        #expect(weight.status != 0 && weight.error.contains("'title:-1': a field's weight is a positive number"), "\(weight.error)")
        let options = try StrataCLI.run(["index", "add", store, "Post", "title", "--full-text", "--unique"])
        #expect(options.status != 0 && options.error.contains("--full-text takes no"), "\(options.error)")
        let stemming = try StrataCLI.run(["index", "add", store, "Post", "title", "--stemming", "english"])
        #expect(stemming.status != 0 && stemming.error.contains("need --full-text"), "\(stemming.error)")
        // Nothing was built by the refused commands.
        let search = try StrataCLI.run(["search", store, "Post", "lmdb"])
        #expect(search.status != 0 && search.error.contains("no full-text index"), "\(search.error)")
    }

    @Test func indexListAndStatsShowFullTextIndexesWithTheirDocuments() throws {
        try imported(store, schemaFullText: #"{"fields": ["title", "body"], "weights": [2, 1], "stemming": "english"}"#)
        let table = try StrataCLI.run(["index", "list", store, "Post"])
        #expect(table.status == 0, "\(table.error)")
        let row = try #require(table.output.split(separator: "\n").first { $0.contains("title,body") }, "\(table.output)")
        #expect(row.contains("title:2,body; stemming english") && row.contains(" 4 "), "\(row)")

        let json = try StrataCLI.run(["index", "list", store, "Post", "--format", "json"])
        let indexes = try #require(try StrataCLI.json(json.output) as? [[String: Any]], "\(json.output)")
        let text = try #require(indexes.first { $0["fullText"] as? Bool == true }, "\(indexes)")
        #expect(text["name"] as? String == "title,body")
        #expect(text["fields"] as? [String] == ["title", "body"] && text["weights"] as? [Double] == [2, 1])
        #expect(text["stemming"] as? String == "english" && text["stopWords"] as? String == "none")
        #expect(text["documents"] as? Int == 4 && (text["bytes"] as? Int ?? 0) > 0 && (text["entries"] as? Int ?? 0) > 4)

        // A deleted record leaves the index's documents.
        #expect(try StrataCLI.run(["delete", store, "Post", "id == 4"]).status == 0)
        let stats = try StrataCLI.run(["stats", store, "--format", "json"])
        let entities = try #require((try StrataCLI.json(stats.output) as? [String: Any])?["entities"] as? [[String: Any]], "\(stats.output)")
        let post = try #require(entities.first { $0["name"] as? String == "Post" })
        let fullText = try #require(post["fullTextIndexes"] as? [[String: Any]])
        #expect(fullText.map { $0["documents"] as? Int } == [3], "\(fullText)")
        #expect(try StrataCLI.run(["stats", store]).output.contains("full-text index title,body (documents)"))
    }

}
