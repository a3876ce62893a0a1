import Foundation
import Testing
import TestSupport

/// `strata search`: the best records by relevance with snippets, a further condition, and typed
/// errors for an entity without a full-text index and a malformed query.
@Suite struct SearchCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-search") }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Posts with a full-text index on body and title, imported with a schema file (enough of
    /// them that a term in two has a positive idf).
    func importedPosts() throws {
        let schema = try file("schema.json", #"""
            { "entities": { "Post": {
                "primaryKey": "id",
                "fields": { "id": {"type": "int"}, "title": {"type": "string"}, "body": {"type": "string"}, "city": {"type": "string"} },
                "indexes": [{"fields": ["city"]}],
                "fullText": ["body", "title"] } } }
            """#)
        let posts = try file("posts.json", #"""
            [{"id": 1, "title": "LMDB", "body": "LMDB keeps pages in a B-tree; LMDB maps them", "city": "Berlin"},
             {"id": 2, "title": "Swift", "body": "Swift code reads an LMDB store", "city": "Paris"},
             {"id": 3, "title": "Trees", "body": "nothing about stores", "city": "Berlin"},
             {"id": 4, "title": "Other", "body": "other words", "city": "Rome"},
             {"id": 5, "title": "Other", "body": "more words", "city": "Rome"},
             {"id": 6, "title": "Other", "body": "still more words", "city": "Rome"}]
            """#)
        let result = try StrataCLI.run(["import", store, posts, "--entity", "Post", "--schema", schema])
        #expect(result.status == 0, "\(result.error)")
        let plain = try file("plain.json", #"[{"id": 1, "name": "x"}]"#)
        #expect(try StrataCLI.run(["import", store, plain, "--entity", "Plain"]).status == 0)
    }

    @Test func searchPrintsTheBestRecordsWithTheirScoresAndSnippets() throws {
        try importedPosts()
        let result = try StrataCLI.run(["search", store, "Post", "lmdb", "--limit", "10", "--words", "4"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        // Post 1 holds lmdb twice in fewer words: first.
        #expect(lines.map { $0[0] } == ["1", "2"], "\(result.output)")
        #expect(lines.allSatisfy { $0.count == 3 && (Double($0[1]) ?? 0) > 0 }, "\(result.output)")
        #expect(lines[0][2] == "[LMDB] keeps pages in…", "\(result.output)")
        #expect(lines[1][2] == "…code reads an [LMDB]…", "\(result.output)")
        // A further condition, a field of the index by --field, a scope inside the query.
        let berlin = try StrataCLI.run(["search", store, "Post", "lmdb", "--where", "city == 'Paris'"])
        #expect(berlin.output.split(separator: "\n").map { $0.prefix(while: { $0 != "\t" }) } == ["2"], "\(berlin.output)")
        let titles = try StrataCLI.run(["search", store, "Post", "trees", "--field", "title"])
        #expect(titles.output.hasPrefix("3\t"), "\(titles.output)")
        let limited = try StrataCLI.run(["search", store, "Post", "lmdb OR swift", "--limit", "1"])
        #expect(limited.output.split(separator: "\n").count == 1)
    }

    @Test func searchNamesWhatIsWrong() throws {
        try importedPosts()
        let none = try StrataCLI.run(["search", store, "Plain", "x"])
        #expect(none.status == 1 && none.error.contains("Plain has no full-text index"), "\(none.error)")
        let bad = try StrataCLI.run(["search", store, "Post", "lmdb OR"])
        #expect(bad.status == 1 && bad.error.contains("full-text query, column"), "\(bad.error)")
        let unindexed = try StrataCLI.run(["search", store, "Post", "x", "--field", "city"])
        #expect(unindexed.status == 1 && unindexed.error.contains("Post.city is in no full-text index"), "\(unindexed.error)")
        let zero = try StrataCLI.run(["search", store, "Post", "x", "--limit", "0"])
        #expect(zero.status == 2 && zero.error.contains("--limit must be at least 1"), "\(zero.error)")
    }
}

/// `strata search --typos`: a misspelled word finds the record only with the flag; a 4-letter
/// word never matches another; 9+ letters allow two edits.
@Suite struct SearchCommandTypoTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws {
        dir = try TemporaryDirectory("strata-search-typos")
        let schema = dir.path("schema.json"), posts = dir.path("posts.json")
        try Data(#"""
            { "entities": { "Post": {
                "primaryKey": "id",
                "fields": { "id": {"type": "int"}, "body": {"type": "string"} },
                "fullText": ["body"] } } }
            """#.utf8).write(to: URL(fileURLWithPath: schema))
        try Data(#"""
            [{"id": 1, "body": "swift pages"}, {"id": 2, "body": "tree checkpoint"}, {"id": 3, "body": "other words"}]
            """#.utf8).write(to: URL(fileURLWithPath: posts))
        let result = try StrataCLI.run(["import", store, posts, "--entity", "Post", "--schema", schema])
        #expect(result.status == 0, "\(result.error)")
    }

    func ids(_ arguments: [String]) throws -> [String] {
        let result = try StrataCLI.run(["search", store, "Post"] + arguments)
        #expect(result.status == 0, "\(result.error)")
        return result.output.split(separator: "\n").map { String($0.prefix(while: { $0 != "\t" })) }
    }

    @Test func typosFindAMisspelledWordOnlyWithTheFlag() throws {
        #expect(try ids(["swfit"]) == [])
        #expect(try ids(["swfit", "--typos"]) == ["1"])
        #expect(try ids(["tref", "--typos"]) == [])
        #expect(try ids(["tree", "--typos"]) == ["2"])
        #expect(try ids(["chekpoimt", "--typos"]) == ["2"])
        #expect(try ids(["chekpoimt"]) == [])
        #expect(try ids(["chekpoit", "--typos"]) == [])
    }
}
