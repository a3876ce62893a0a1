import Foundation
import Testing
import TestSupport

/// `strata import` on JSON nobody on the project wrote: JSON Lines (the tool's own `export
/// --format jsonl` among them), keyed objects, records too wide to be one; and every export
/// format import reads imports again into an equal store.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
struct InputFormatCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-cli-formats") }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Records with a value of every type inference gives (integers, whole and fractional
    /// doubles, strings, booleans, dates, UUIDs, arrays, objects) and an optional field.
    static let people = #"""
        [{"id": 1, "full_name": "Ann \"A\" Ávila", "score": 2.5, "ratio": 2.0, "active": true, "born_at": "1990-05-01T09:30:00Z",
          "ident": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "tags": ["a", "ü"], "counts": [1, 2], "address": {"city": "Oslo", "zip": 150},
          "lucky_number": null},
         {"id": 2, "full_name": "Bob", "score": -1.25, "ratio": 3.0, "active": false, "born_at": "2001-12-31T23:59:59Z",
          "ident": "0E9C4B2A-6E43-4B1B-9A9B-3C0A9E7D2F11", "tags": [], "counts": [], "address": {"city": "Bergen"}, "lucky_number": 7}]
        """#

    /// The schema of `store` as `strata schema --format json` prints it, without the JSON keys
    /// unless `jsonKeys`.
    func schema(_ store: String, jsonKeys: Bool = true) throws -> NSDictionary {
        let result = try StrataCLI.run(["schema", store, "--format", "json"])
        #expect(result.status == 0, "\(result.error)")
        var entities = try #require((try StrataCLI.json(result.output) as? [String: Any])?["entities"] as? [String: [String: Any]])
        if !jsonKeys {
            for (name, var entity) in entities {
                let fields = entity["fields"] as? [String: [String: Any]] ?? [:]
                entity["fields"] = fields.mapValues { $0.filter { $0.key != "json" } }
                entities[name] = entity
            }
        }
        return entities as NSDictionary
    }

    /// Every record of `entity` in `store`, as `strata export --format json` prints them.
    func records(_ store: String, _ entity: String) throws -> NSArray {
        let result = try StrataCLI.run(["export", store, entity, "--format", "json"])
        #expect(result.status == 0, "\(result.error)")
        return try #require(try StrataCLI.json(result.output) as? NSArray)
    }

    // MARK: JSON Lines

    /// `import` reads what `export` writes, as JSON and as JSON Lines, with the fields' names or
    /// their JSON keys: the same fields of the same types, the same records. (CSV and TSV are
    /// not read by `import`, which reads JSON only.)
    @Test(arguments: ["json", "jsonl"], [false, true])
    func everyExportFormatImportReadsImportsIntoAnEqualStore(format: String, jsonKeys: Bool) throws {
        let imported = try StrataCLI.run(["import", store, try file("people.json", Self.people), "--entity", "Person"])
        try #require(imported.status == 0, "\(imported.error)")
        let exported = try StrataCLI.run(["export", store, "Person", "--format", format] + (jsonKeys ? ["--json-keys"] : []))
        let copy = dir.path("copy")
        let again = try StrataCLI.run(["import", copy, try file("export." + format, exported.output), "--entity", "Person"])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output.hasPrefix("inserted 2 "), "\(again.output)")
        // Field names keep their JSON keys only when the export wrote them.
        #expect(try schema(copy, jsonKeys: jsonKeys) == schema(store, jsonKeys: jsonKeys))
        let types = try #require((try schema(copy)["Person"] as? [String: Any])?["fields"] as? [String: [String: Any]])
        #expect(types.mapValues { $0["type"] as? String } == [
            "id": "int", "fullName": "string", "score": "double", "ratio": "double", "active": "bool", "bornAt": "date",
            "ident": "uuid", "tags": "[string]", "counts": "[int]", "address": "any", "luckyNumber": "int",
        ])
        #expect(try records(copy, "Person") == records(store, "Person"))
    }

    @Test func jsonLinesImportFromStandardInputAndNameABadLine() throws {
        let lines = #"{"id": 1, "name": "Ann"}"# + "\r\n\n" + #"{"id": 2, "name": "Bob"}"# + "\n"
        let piped = try StrataCLI.run(["import", store, "-", "--entity", "E"], input: Data(lines.utf8))
        #expect(piped.status == 0 && piped.output.hasPrefix("inserted 2 "), "\(piped.output) \(piped.error)")
        #expect(try StrataCLI.run(["get", store, "E", "2"]).output.contains(#""name": "Bob""#))

        let broken = #"{"id": 3, "name": "Cem"}"# + "\n" + #"{"id": 4, "name": "Dee"#  + "\n" + #"{"id": 5}"# + "\n"
        for input in [["-"], [try file("broken.jsonl", broken)]] {
            let result = try StrataCLI.run(["import", store] + input + ["--entity", "E"], input: Data(broken.utf8))
            #expect(result.status == 1)
            #expect(result.error.hasPrefix("error: malformed JSON at byte 47 (line 2, column 23): line 2 ends inside its record"), "\(result.error)")
        }
        // Named, the format is not told: a single line is a record, and an array is a line's
        // value that is not an object.
        let named = try StrataCLI.run(["import", store, try file("one.jsonl", #"{"id": 6, "name": "Eve"}"#), "--entity", "E", "--input-format", "jsonl"])
        #expect(named.status == 0 && named.output.hasPrefix("inserted 1 "), "\(named.output) \(named.error)")
        let array = try StrataCLI.run(["import", store, try file("array.jsonl", #"[{"id": 7}]"#), "--entity", "E", "--input-format", "jsonl"])
        #expect(array.status == 1 && array.error.contains("record 1: is an array, not an object"), "\(array.error)")
        #expect(try StrataCLI.run(["query", store, "E", "--count"]).output == "3\n")
    }

    // MARK: Keyed objects

    /// Places keyed by their GeoNames id, as a dump writes them.
    static func places(_ count: Int) -> String {
        "{" + (0..<count).map { #""\#(3_040_051 + $0)": {"name": "place \#($0)", "population": \#($0 * 10)}"# }.joined(separator: ", ") + "}"
    }

    @Test func keyedObjectsImportARecordAMemberAndSaySo() throws {
        let result = try StrataCLI.run(["import", store, try file("places.json", Self.places(5_000)), "--entity", "Place"])
        #expect(result.status == 0 && result.output.hasPrefix("inserted 5,000 "), "\(result.output) \(result.error)")
        #expect(result.error.contains("note: the JSON is one object whose members are all objects: each member is a record, its name in the field 'id'"),
                "\(result.error)")
        #expect(try StrataCLI.run(["get", store, "Place", "3040053"]).output.contains(#""name": "place 2""#))
        let place = try #require(try schema(store)["Place"] as? [String: Any])
        #expect(place["primaryKey"] as? String == "id")
        #expect((place["fields"] as? [String: [String: Any]])?.mapValues { $0["type"] as? String } == ["id": "string", "name": "string", "population": "int"])
    }

    @Test func aKeyFieldNamesTheKeyAndAnotherValueThereIsRefusedNamingTheMember() throws {
        let numbered = #"{"3040051": {"geonameid": 3040051, "name": "les Escaldes"}, "3041563": {"geonameid": 3041563, "name": "Andorra la Vella"}}"#
        let keyed = try StrataCLI.run(["import", store, try file("geo.json", numbered), "--entity", "Geo", "--key-field", "geonameid"])
        #expect(keyed.status == 0 && keyed.output.hasPrefix("inserted 2 "), "\(keyed.output) \(keyed.error)")
        #expect((try schema(store)["Geo"] as? [String: Any])?["primaryKey"] as? String == "geonameid")
        #expect(try StrataCLI.run(["get", store, "Geo", "3041563"]).output.contains(#""name": "Andorra la Vella""#))

        let clashing = #"{"3040051": {"id": 3040051, "name": "les Escaldes"}, "3041563": {"id": 7, "name": "Andorra la Vella"}}"#
        for key in [[], ["--input-format", "keyed"]] {
            let refused = try StrataCLI.run(["import", store, try file("clash.json", clashing), "--entity", "Other"] + key)
            #expect(refused.status == 1)
            #expect(refused.error.contains(#"error: record 2 (the member "3041563") holds "id": 7, not its name"#), "\(refused.error)")
            #expect(refused.error.contains("--key-field NAME"), "\(refused.error)")
        }
        let misplaced = try StrataCLI.run(["import", store, try file("array.json", #"[{"id": 1}]"#), "--entity", "Other", "--key-field", "code"])
        #expect(misplaced.status == 1 && misplaced.error.contains(#"the key field "code" takes the member names of keyed objects"#), "\(misplaced.error)")
        let usage = try StrataCLI.run(["import", store, dir.path("array.json"), "--entity", "Other", "--key-field", "code", "--input-format", "jsonl"])
        #expect(usage.status == 2, "\(usage.error)")
    }

    // MARK: Wide records

    /// The report's case: a keyed dump read as one JSON document would be one record with a
    /// field per place; it is refused, saying what the limit is and what to do.
    @Test func aRecordWiderThanTheLimitIsRefusedWithAHint() throws {
        let places = try file("places.json", Self.places(5_000))
        let whole = try StrataCLI.run(["import", store, places, "--entity", "Place", "--input-format", "json"])
        #expect(whole.status == 1)
        #expect(whole.error.contains("error: Place record 1: has 5,000 fields, more than the 4,096 a record may have"), "\(whole.error)")
        #expect(whole.error.contains("--max-record-fields N") && whole.error.contains("--input-format keyed"), "\(whole.error)")
        #expect(!FileManager.default.fileExists(atPath: store))

        let table = "{" + (0..<5_000).map { #""k\#($0)": "v\#($0)""# }.joined(separator: ", ") + "}"
        let path = try file("table.json", table)
        let refused = try StrataCLI.run(["import", store, path, "--entity", "Table"])
        #expect(refused.status == 1 && refused.error.contains("has 5,000 fields, more than the 4,096"), "\(refused.error)")
        let allowed = try StrataCLI.run(["import", store, path, "--entity", "Table", "--max-record-fields", "5001"])
        #expect(allowed.status == 0 && allowed.output.hasPrefix("inserted 1 "), "\(allowed.output) \(allowed.error)")
        // The stored entity's imports keep to the limit too: the record is refused.
        let again = try StrataCLI.run(["import", store, path, "--entity", "Table"])
        #expect(again.status == 1 && again.error.contains("error: record 1: has 5,000 fields"), "\(again.error)")
        #expect(try StrataCLI.run(["import", store, path, "--entity", "Table", "--max-record-fields", "0"]).status == 2)
    }
}
