import Foundation
import Testing
import TestSupport

/// `strata import` on JSON nobody tuned for it: a key other than `id`, no key at all, the array of
/// records inside an object, and partial schemas; each field exported back under its JSON key.
@Suite struct PrimaryKeyImportTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-keys") }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The export with JSON keys, by `alpha_2`.
    func exported() throws -> [String: [String: String]] {
        let result = try StrataCLI.run(["export", store, "Country", "--json-keys"])
        #expect(result.status == 0, "\(result.error)")
        let list = try StrataCLI.json(result.output) as? [[String: String]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["alpha_2"] ?? "?", $0) })
    }

    @Test func anObjectHoldingOneArrayOfRecordsSuggestsItsRootKey() throws {
        let result = try StrataCLI.run(["import", store, try file("iso.json", ISO3166Fixture.json), "--entity", "Country"])
        #expect(result.status == 1)
        #expect(result.error.contains("one object holding an array of 5 records under \"3166-1\""), "\(result.error)")
        #expect(result.error.contains("--root-key 3166-1"), "\(result.error)")
    }

    @Test func anObjectHoldingSeveralArraysListsThem() throws {
        let json = #"{"countries": [{"code": "DE"}], "languages": [{"code": "de"}, {"code": "fr"}], "version": 3}"#
        let result = try StrataCLI.run(["import", store, try file("two.json", json), "--entity", "Thing", "--primary-key", "code"])
        #expect(result.status == 1)
        #expect(result.error.contains(#""countries" (1 record), "languages" (2 records)"#), "\(result.error)")
        #expect(result.error.contains("--root-key NAME"), "\(result.error)")
    }

    @Test func aRootKeyTheObjectLacksIsNamedWithTheKeysThere() throws {
        let result = try StrataCLI.run(["import", store, try file("iso.json", ISO3166Fixture.json), "--entity", "Country", "--root-key", "nope"])
        #expect(result.status == 1)
        #expect(!result.error.contains("malformed"), "\(result.error)")
        #expect(result.error.contains(#"no member "nope""#), "\(result.error)")
        #expect(result.error.contains(#"its member is "3166-1""#), "\(result.error)")
    }

    @Test func aPrimaryKeyNamedByItsJSONKeyImportsAndExportsTheOriginalKeys() throws {
        let path = try file("iso.json", ISO3166Fixture.json)
        let first = try StrataCLI.run(["import", store, path, "--entity", "Country", "--root-key", "3166-1", "--primary-key", "alpha_2"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("inserted 5"), "\(first.output)")
        let get = try StrataCLI.run(["get", store, "Country", "DE"])
        #expect(get.status == 0, "\(get.error)")
        #expect(get.output.contains("Federal Republic of Germany"))
        #expect(try exported() == ISO3166Fixture.records)
        // The stored description is used again: the same file changes nothing.
        let again = try StrataCLI.run(["import", store, path, "--entity", "Country", "--root-key", "3166-1", "--primary-key", "alpha_2"])
        #expect(again.output.contains("inserted 0 · updated 0 · unchanged 5"), "\(again.output) \(again.error)")
        let other = try StrataCLI.run(["import", store, path, "--entity", "Country", "--root-key", "3166-1", "--primary-key", "alpha_3"])
        #expect(other.status == 1)
        #expect(other.error.contains("stored with the primary key 'alpha2'"), "\(other.error)")
    }

    @Test func aPrimaryKeyNoRecordHasListsTheFields() throws {
        let result = try StrataCLI.run(["import", store, try file("iso.json", ISO3166Fixture.json), "--entity", "Country",
                                        "--root-key", "3166-1", "--primary-key", "alpha2x"])
        #expect(result.status == 1)
        #expect(result.error.contains("no record has a field 'alpha2x'"), "\(result.error)")
        #expect(result.error.contains("alpha_2, alpha_3, flag, name, numeric"), "\(result.error)")
    }

    @Test func aPartialSchemaNamesTheKeyAndAnIndexAndTheRestIsInferred() throws {
        let schema = #"""
            {"entities": {"Country": {
              "primaryKey": "alpha_2",
              "fields": {"name": {"type": "string"}},
              "indexes": [{"fields": ["alpha3"], "unique": true}]
            }}}
            """#
        let result = try StrataCLI.run(["import", store, try file("iso.json", ISO3166Fixture.json), "--entity", "Country",
                                        "--root-key", "3166-1", "--schema", try file("schema.json", schema)])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("inserted 5"), "\(result.output)")
        #expect(try exported() == ISO3166Fixture.records)
        let plan = try StrataCLI.run(["explain", store, "Country", #"alpha3 == "DEU""#])
        #expect(plan.output.contains("alpha3"), "\(plan.output)")
        #expect(!plan.output.contains("FullScan"), "\(plan.output)")
        let query = try StrataCLI.run(["query", store, "Country", #"alpha3 == "DEU""#, "--format", "jsonl", "--fields", "alpha2,officialName"])
        #expect(query.output == #"{"alpha2":"DE","officialName":"Federal Republic of Germany"}"# + "\n", "\(query.output) \(query.error)")
        // The key named by the schema is the stored one, under its field name.
        let printed = try StrataCLI.run(["schema", store])
        #expect(printed.output.contains(#""primaryKey": "alpha2""#), "\(printed.output)")
        #expect(printed.output.contains(#""alpha2": {"type": "string", "json": "alpha_2"}"#), "\(printed.output)")
    }

    @Test func recordsWithoutAKeyAreNumberedAndReimportsDoNotDuplicate() throws {
        let path = try file("plain.json", #"[{"name": "a", "size": 1}, {"name": "b", "size": 2}, {"name": "c"}]"#)
        let first = try StrataCLI.run(["import", store, path, "--entity", "Row"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.error.contains("position in the file"), "\(first.error)")
        #expect(first.output.contains("inserted 3"), "\(first.output)")
        let again = try StrataCLI.run(["import", store, path, "--entity", "Row"])
        #expect(again.output.contains("inserted 0 · updated 0 · unchanged 3"), "\(again.output) \(again.error)")
        #expect(try StrataCLI.run(["query", store, "Row", "--count"]).output == "3\n")
        let get = try StrataCLI.run(["get", store, "Row", "2"])
        #expect(get.output.contains("\"b\""), "\(get.output)")
        let sync = try StrataCLI.run(["import", store, path, "--entity", "Row", "--sync"])
        #expect(sync.status == 1)
        #expect(sync.error.contains("generated from each record's position"), "\(sync.error)")
        #expect(try StrataCLI.run(["query", store, "Row", "--count"]).output == "3\n")
    }

    /// Places as GeoNames lists them (keyed by `geonameid`) and emoji keyed by themselves.
    static let keyedFiles: [(entity: String, key: String, json: String)] = [
        ("Place", "geonameid", #"""
            [{"geonameid": 2950159, "name": "Berlin", "asciiname": "Berlin", "country_code": "DE", "population": 3426354},
             {"geonameid": 2988507, "name": "Paris", "asciiname": "Paris", "country_code": "FR", "population": 2138551},
             {"geonameid": 3117735, "name": "Madrid", "asciiname": "Madrid", "country_code": "ES", "population": 3255944}]
            """#),
        ("Emoji", "emoji", #"""
            [{"emoji": "😀", "description": "grinning face", "category": "Smileys & Emotion"},
             {"emoji": "🐧", "description": "penguin", "category": "Animals & Nature"}]
            """#),
    ]

    @Test(arguments: keyedFiles.indices)
    func anExportWithJSONKeysImportsAgainWithTheSameOptions(_ index: Int) throws {
        let (entity, key, json) = Self.keyedFiles[index]
        let options = ["--entity", entity, "--primary-key", key]
        let first = try StrataCLI.run(["import", store, try file("in.json", json)] + options)
        try #require(first.status == 0, "\(first.error)")
        let exported = try StrataCLI.run(["export", store, entity, "--json-keys"])
        try #require(exported.status == 0, "\(exported.error)")
        let records = try #require(try StrataCLI.json(exported.output) as? [[String: Any]])
        #expect(records.allSatisfy { $0[key] != nil && $0["id"] == nil }, "\(exported.output)")
        let copy = dir.path("copy")
        let again = try StrataCLI.run(["import", copy, try file("export.json", exported.output)] + options)
        #expect(again.status == 0, "\(again.error)")
        #expect(try StrataCLI.run(["export", copy, entity, "--json-keys"]).output == exported.output)
        #expect(try StrataCLI.run(["export", copy, entity, "--format", "jsonl"]).output
                == StrataCLI.run(["export", store, entity, "--format", "jsonl"]).output)
        #expect(try StrataCLI.run(["schema", copy]).output == StrataCLI.run(["schema", store]).output)
    }
}
