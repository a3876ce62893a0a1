import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat
import StrataText

/// One entity, "Article", as its declared full-text indexes change.
enum Articles {
    struct Plain: Record {
        var id: Int64
        var title: String
        var body: String?
        var views: Int
        static let primaryKey = \Plain.id
        static var entityName: String { "Article" }
    }
    struct Searchable: Record {
        var id: Int64
        var title: String
        var body: String?
        var views: Int
        static let primaryKey = \Searchable.id
        static var entityName: String { "Article" }
        static let indexes: [IndexDefinition<Searchable>] = [
            .index(\.title),
            .fullText(\.title, \.body, weights: [2, 1], stemming: .english, stopWords: .english),
        ]
    }
    struct TitleOnly: Record {
        var id: Int64
        var title: String
        var body: String?
        var views: Int
        static let primaryKey = \TitleOnly.id
        static var entityName: String { "Article" }
        static let indexes: [IndexDefinition<TitleOnly>] = [.fullText(\.title, name: "titles")]
    }
}

/// Full-text indexes declared on record types: recorded in the catalog entry apart from the key
/// indexes, with the versions of the rules their terms are made by, read back by a reopened store.
@Suite struct FullTextDeclarationTests {
    func schema(_ store: Store) throws -> EntitySchema {
        try store.read { tx in try #require(try tx.context(for: Articles.Plain.self)).schema }
    }

    @Test func aDeclaredFullTextIndexIsRecordedInTheCatalogApartFromKeyIndexes() throws {
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.upsert(Articles.Searchable(id: 1, title: "LMDB", body: "Swift", views: 3)) }
        let schema = try schema(store)
        #expect(schema.indexes.map(\.name) == ["title"])
        let expected = FullTextIndexDescriptor(name: "title,body", fields: ["title", "body"], weights: [2, 1], stemming: .english,
                                               stopWords: .english, positions: true, tokenizerVersion: TextTokenizer.rulesVersion,
                                               foldingVersion: Collation.rulesVersion)
        #expect(schema.fullTextIndexes == [expected])
        // A reopened store reads the entry back from its bytes.
        let reopened = try Store(path: dir.path("store"))
        #expect(try self.schema(reopened).fullTextIndexes == [expected])
    }

    @Test func aChangedDeclarationReplacesTheRecordedOneAndARemovedOneIsDropped() throws {
        let (store, dir) = try makeStore()
        try store.prepare(Articles.Searchable.self)
        try store.prepare(Articles.TitleOnly.self)
        #expect(try schema(store).fullTextIndexes.map(\.name) == ["titles"])
        #expect(try schema(store).fullTextIndexes.first?.weights == [1])
        #expect(try schema(store).indexes.isEmpty)
        try store.prepare(Articles.Plain.self)
        #expect(try schema(store).fullTextIndexes.isEmpty)
        withExtendedLifetime(dir) {}
    }

    @Test func anEntityWithoutFullTextIndexesKeepsItsCatalogBytes() throws {
        var schema = EntitySchema(name: "A", primaryKey: "id", recordsDatabase: "records/A", fields: FieldTable(names: [1: "id"]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(!String(decoding: try encoder.encode(schema), as: UTF8.self).contains("fullText"))
        schema.fullTextIndexes = [FullTextIndexDescriptor(FullTextIndexDescription(fields: ["id"]), tokenizerVersion: 1)]
        #expect(String(decoding: try encoder.encode(schema), as: UTF8.self).contains("\"fullTextIndexes\""))
    }

    @Test(arguments: [
        (FullTextIndexDescription(fields: []), "has no fields"),
        (FullTextIndexDescription(fields: ["a", "a"]), "names the field 'a' twice"),
        (FullTextIndexDescription(fields: ["a", "b"], weights: [1]), "has 1 weights for 2 fields"),
        (FullTextIndexDescription(fields: ["a"], weights: [0]), "has the weight 0.0"),
        (FullTextIndexDescription(fields: ["a"], weights: [.nan]), "has the weight nan"),
        (FullTextIndexDescription(fields: ["a"], name: "x/y"), "needs a name"),
    ])
    func badDeclarationsAreRefusedNamingTheProblem(declaration: FullTextIndexDescription, problem: String) {
        #expect {
            try declaration.validate(entity: "Article")
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .invalidValue && error.message.contains(problem) && error.message.contains("Article")
        }
    }

    @Test func theDefaultNameAndWeightsFollowTheFields() {
        let declaration = FullTextIndexDescription(fields: ["title", "body"])
        #expect(declaration.name == "title,body")
        #expect(declaration.weights == [1, 1])
        let typed = IndexDefinition<Articles.Searchable>.fullText(\.body, \.title)
        #expect(typed.fullText?.fields == ["body", "title"])
        #expect(typed.name == "body,title")
        #expect(Articles.Searchable.maintainedIndexes.map(\.name) == ["title"])
        #expect(Articles.Searchable.fullTextDeclarations.map(\.name) == ["title,body"])
    }
}

/// Full-text indexes in schema files and entity descriptions.
@Suite struct FullTextSchemaFileTests {
    static let file = #"""
    { "entities": {
        "Note": { "primaryKey": "id",
                  "fields": { "id": {"type": "int"}, "title": {"type": "string"}, "body": {"type": "string", "optional": true},
                              "stars": {"type": "int"} },
                  "fullText": [ {"fields": ["title", "body"], "weights": [2, 0.5], "stemming": "english", "stopWords": "english"},
                                {"fields": ["body"], "name": "bodies"} ] },
        "Tag": { "primaryKey": "id", "fields": { "id": {"type": "int"}, "label": {"type": "string"} },
                 "fullText": ["label"] } } }
    """#

    @Test func aSchemaFileDeclaresFullTextIndexesAndWritesThemBack() throws {
        let schema = try SchemaFile(json: Data(Self.file.utf8))
        let note = try #require(schema.entity("Note"))
        #expect(note.fullTextIndexes == [
            FullTextIndexDescription(fields: ["title", "body"], weights: [2, 0.5], stemming: .english, stopWords: .english),
            FullTextIndexDescription(fields: ["body"], name: "bodies"),
        ])
        #expect(schema.entity("Tag")?.fullTextIndexes == [FullTextIndexDescription(fields: ["label"])])
        #expect(try SchemaFile(json: Data(schema.jsonText.utf8)) == schema)
        // The description's Codable form, as the catalog keeps it.
        let coded = try JSONDecoder().decode(EntityDescription.self, from: JSONEncoder().encode(note))
        #expect(coded == note)
    }

    @Test(arguments: [
        (#""fullText": "title""#, "\"fullText\" is an array"),
        (#""fullText": [{"fields": []}]"#, "needs \"fields\""),
        (#""fullText": [{"fields": ["title"], "weights": ["2"]}]"#, "array of numbers"),
        (#""fullText": [{"fields": ["title"], "stemming": "porter"}]"#, "\"stemming\" is none or english"),
        (#""fullText": ["nope"]"#, "unknown field 'nope'"),
        (#""fullText": ["stars"]"#, "needs a text field"),
        (#""fullText": [["title"], ["title"]]"#, "is an object with \"fields\""),
        (#""fullText": [{"fields": ["title"]}, {"fields": ["title"]}]"#, "declared twice"),
        (#""fullText": [{"fields": ["title", "body"], "weights": [1]}]"#, "has 1 weights for 2 fields"),
    ])
    func badFullTextDeclarationsAreRefusedNamingTheProblem(member: String, problem: String) {
        let text = #"{"entities": {"Note": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "title": {"type": "string"}, "#
            + #""body": {"type": "string"}, "stars": {"type": "int"}}, \#(member)}}}"#
        #expect {
            try SchemaFile(json: Data(text.utf8))
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.message.contains(problem) && error.message.contains("Note")
        }
    }

    @Test func aDescribedEntityRecordsItsFullTextIndexesAndARecordTypeDescribesItsOwn() throws {
        let (store, dir) = try makeStore()
        let note = try #require(try SchemaFile(json: Data(Self.file.utf8)).entity("Note"))
        try store.write { tx in _ = try tx.writableContext(for: note) }
        let recorded = try store.read { tx in try #require(try tx.context(named: "Note")).schema.fullTextIndexes }
        #expect(recorded.map(\.name) == ["title,body", "bodies"])
        #expect(recorded.first?.weights == [2, 0.5])
        #expect(recorded.allSatisfy { $0.tokenizerVersion == TextTokenizer.rulesVersion })
        #expect(try EntityDescription(Articles.Searchable.self).fullTextIndexes == Articles.Searchable.fullTextDeclarations)
        withExtendedLifetime(dir) {}
    }
}
