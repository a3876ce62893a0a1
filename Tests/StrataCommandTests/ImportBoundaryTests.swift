import Foundation
import LMDB
import Testing
import TestSupport

/// The tool at the edges of its input: values out of range, keys that point nowhere, control
/// characters in data and names, and the messages that name what failed.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
struct ImportBoundaryTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-cli-edges") }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let userSchema = #"""
        {"entities": {"U": {"primaryKey": "id", "fields": {"id": {"type": "int"},
          "luckyNumber": {"type": "int", "optional": true}, "createdAt": {"type": "date", "optional": true}}}}}
        """#

    // MARK: 8: out-of-range values

    @Test(arguments: [
        // An integer field holds every integer of up to 128 bits (Int128.min through UInt128.max).
        (#"{"id": 1, "lucky_number": -170141183460469231731687303715884105729}"#, "lucky_number"),
        (#"{"id": 1, "lucky_number": 340282366920938463463374607431768211456}"#, "lucky_number"),
        (#"{"id": 1, "lucky_number": "-170141183460469231731687303715884105729"}"#, "lucky_number"),
        (#"{"id": 1, "lucky_number": -9.3e38}"#, "lucky_number"),
        (#"{"id": 1, "created_at": 1e300}"#, "created_at"),
        (#"{"id": 1, "created_at": -1e300}"#, "created_at"),
        (#"{"id": 1, "created_at": -62167219201}"#, "created_at"),
        (#"{"id": 1, "created_at": 253402300800000}"#, "created_at"),
    ])
    func valuesOutsideTheFieldsRangeAreRefusedNamingRecordAndField(record: String, key: String) throws {
        let schema = try file("schema.json", Self.userSchema)
        let result = try StrataCLI.run(["import", store, try file("in.json", "[{\"id\": 0}, \(record)]"), "--entity", "U", "--schema", schema])
        let stored = try StrataCLI.run(["export", store, "U"]).output
        #expect(result.status != 0, "stored: \(stored)")
        #expect(result.error.contains("record 2:") && result.error.contains("'\(key)'") && result.error.contains("out of range"), "\(result.error)")
    }

    @Test func datesAtTheEdgesOfTheRangeExportAndImportAgain() throws {
        let schema = try file("schema.json", Self.userSchema)
        let payload = #"[{"id": 1, "created_at": "0000-01-01T00:00:00Z", "lucky_number": -9223372036854775808},"#
            + #" {"id": 2, "created_at": "9999-12-31T23:59:59.5Z", "lucky_number": 9223372036854775807}]"#
        #expect(try StrataCLI.run(["import", store, try file("in.json", payload), "--entity", "U", "--schema", schema]).status == 0)
        let exported = try StrataCLI.run(["export", store, "U", "--json-keys"])
        let again = try StrataCLI.run(["import", dir.path("copy"), try file("out.json", exported.output), "--entity", "U", "--schema", schema])
        #expect(again.status == 0, "\(exported.output) \(again.error)")
        #expect(try StrataCLI.run(["export", dir.path("copy"), "U", "--json-keys"]).output == exported.output)
    }

    // MARK: 9: dangling relationship keys

    static let recipeSchema = #"""
        {"entities": {
          "Recipe": {"primaryKey": "id", "fields": {"id": {"type": "string"}, "name": {"type": "string"},
             "ingredientIDs": {"type": "[string]", "optional": true}, "chefID": {"type": "string", "optional": true}},
             "relationships": {"ingredients": {"toMany": "Ingredient", "field": "ingredientIDs", "inverse": "recipes"},
                               "chef": {"toOne": "Chef", "field": "chefID", "inverse": "recipes"}}},
          "Ingredient": {"primaryKey": "id", "fields": {"id": {"type": "string"}, "name": {"type": "string"}}},
          "Chef": {"primaryKey": "id", "fields": {"id": {"type": "string"}, "name": {"type": "string"}}}}}
        """#

    @Test(arguments: [
        #"{"id": "r1", "name": "Cake", "ingredients_ids": ["egg", "NOPE"]}"#,
        #"{"id": "r1", "name": "Cake", "ingredientIDs": ["NOPE"]}"#,
        #"{"id": "r1", "name": "Cake", "chef_id": "NOPE"}"#,
    ])
    func aKeyThatPointsToNoStoredRecordFailsTheRecordNamingIt(record: String) throws {
        let schema = try file("schema.json", Self.recipeSchema)
        let seed = try StrataCLI.run(["import", store, try file("i.json", #"[{"id": "egg", "name": "Egg"}]"#), "--entity", "Ingredient", "--schema", schema])
        try #require(seed.status == 0, "\(seed.error)")
        _ = try StrataCLI.run(["import", store, try file("c.json", #"[{"id": "ann", "name": "Ann"}]"#), "--entity", "Chef", "--schema", schema])
        let result = try StrataCLI.run(["import", store, try file("r.json", "[\(record)]"), "--entity", "Recipe", "--schema", schema])
        let stored = try StrataCLI.run(["export", store, "Recipe"]).output
        #expect(result.status != 0, "stored: \(stored)")
        #expect(result.error.contains("NOPE") && result.error.contains("record 1:") && result.error.contains("not stored"), "\(result.error)")
        let linked = try StrataCLI.run(["import", store, try file("ok.json", #"[{"id": "r2", "name": "Pie", "ingredients_ids": ["egg"], "chef_id": "ann"}]"#),
                                        "--entity", "Recipe", "--schema", schema])
        #expect(linked.status == 0, "\(linked.error)")
    }

    // MARK: 11: control characters

    static let hostile = "A\u{1B}]0;pwned\u{07}\u{1B}[2J\r\u{9B}31m\u{7F}"

    /// Whether `text` holds a C0 or C1 control character or DEL other than the newline.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }
    }

    @Test func tablesEscapeControlCharactersFromData() throws {
        let payload = "[{\"id\": 1, \"name\": \(try String(decoding: JSONSerialization.data(withJSONObject: [Self.hostile]), as: UTF8.self).dropFirst().dropLast())}]"
        #expect(try StrataCLI.run(["import", store, try file("in.json", payload), "--entity", "E"]).status == 0)
        let table = try StrataCLI.run(["query", store, "E", "--format", "table"])
        #expect(table.status == 0 && table.output.contains("pwned"), "\(table.output)")
        #expect(!Self.hasControlCharacters(table.output), "\(table.output.debugDescription)")
        let get = try StrataCLI.run(["get", store, "E", "1", "--format", "table"])
        #expect(get.status == 0 && get.output.contains("pwned"), "\(get.output)")
        #expect(!Self.hasControlCharacters(get.output), "\(get.output.debugDescription)")
        let csv = try StrataCLI.run(["query", store, "E", "--format", "csv"]).output
        #expect(csv.split(separator: "\n").last?.hasPrefix("1,\"A") == true, "a value with control characters is one quoted field: \(csv.debugDescription)")
        for format in ["json", "jsonl"] {
            let output = try StrataCLI.run(["query", store, "E", "--format", format]).output
            #expect(!Self.hasControlCharacters(output), "\(format): \(output.debugDescription)")
            let parsed = try StrataCLI.json(format == "json" ? output : String(output.split(separator: "\n")[0]))
            let object = (parsed as? [Any])?.first ?? parsed
            #expect((object as? [String: Any])?["name"] as? String == Self.hostile, "\(format): the value does not read back")
        }
    }

    @Test func namesWithControlCharactersAreRefused() throws {
        let entity = try StrataCLI.run(["import", store, try file("in.json", #"[{"id": 1}]"#), "--entity", "Bad\nName"])
        #expect(entity.status != 0 && entity.error.contains("control character"), "\(entity.error)")
        let escape = try StrataCLI.run(["import", store, try file("in.json", #"[{"id": 1}]"#), "--entity", "Bad\u{1B}[2J"])
        #expect(escape.status != 0 && escape.error.contains("control character"), "\(escape.error)")
        #expect(!Self.hasControlCharacters(escape.error), "\(escape.error.debugDescription)")
        let field = try StrataCLI.run(["import", store, try file("f.json", #"[{"id": 1, "a\u001b[2Jb": 2}]"#), "--entity", "E"])
        #expect(field.status != 0 && field.error.contains("control character"), "\(field.error)")
        let schema = try file("schema.json", #"{"entities": {"E": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "x\ty": {"type": "int"}}}}}"#)
        let described = try StrataCLI.run(["import", store, try file("g.json", #"[{"id": 1}]"#), "--entity", "E", "--schema", schema])
        #expect(described.status != 0 && described.error.contains("control character"), "\(described.error)")
    }

    // MARK: 19: messages

    @Test func verifyNamesRecordsByPrimaryKey() throws {
        let payload = "[" + (1...40).map { #"{"id": \#($0), "name": "n\#($0)"}"# }.joined(separator: ",") + "]"
        #expect(try StrataCLI.run(["import", store, try file("in.json", payload), "--entity", "E"]).status == 0)
        #expect(try StrataCLI.run(["index", "add", store, "E", "name"]).status == 0)
        let environment = try Environment(path: store)
        try environment.write { txn in
            let index = try #require(try txn.openDatabase("index/E/name"))
            let found = try txn.withCursor(index) { cursor in try cursor.first() ? (cursor.key, cursor.value) : nil }
            let (key, value) = try #require(found)
            #expect(try txn.delete(key, value: value, in: index))
        }
        let result = try StrataCLI.run(["verify", store])
        #expect(result.status == 1)
        #expect(result.output.contains("lacks the entry of the record with primary key 1"), "\(result.output)")
        #expect(!result.output.contains("stored key"), "\(result.output)")
    }

    @Test func aSchemaFileThatIsNotARegularFileIsNamedAsSuch() throws {
        let result = try StrataCLI.run(["import", store, try file("in.json", #"[{"id": 1}]"#), "--entity", "E", "--schema", "/dev/zero"])
        #expect(result.status != 0)
        #expect(result.error.contains("/dev/zero") && result.error.contains("not a regular file") && !result.error.contains("permission"), "\(result.error)")
    }

    /// `--schema <(strata schema OLD)`: a schema from a pipe, here one with types inference
    /// never gives, which the re-imported export keeps; a pipe that writes on is cut off.
    @Test func aSchemaFromAPipeIsReadAndAPipeTooLongIsCutOff() throws {
        let schemaFile = try file("schema.json", #"""
            {"entities": {"Item": {"primaryKey": "code", "fields": {"code": {"type": "string"}, "weight": {"type": "float"},
              "photo": {"type": "data", "optional": true}, "site": {"type": "url"}, "price": {"type": "decimal"},
              "added": {"type": "date", "json": "added_on"}}}}}
            """#)
        let items = #"[{"code": "a1", "weight": 1.5, "photo": "aGVsbG8=", "site": "https://example.com/a", "price": "12.345", "added_on": "2024-05-01T00:00:00Z"}]"#
        #expect(try StrataCLI.run(["import", store, try file("items.json", items), "--entity", "Item", "--schema", schemaFile]).status == 0)
        let exported = try file("items.export.json", try StrataCLI.run(["export", store, "Item", "--json-keys"]).output)
        let copy = dir.path("copy")
        let piped = try StrataCLI.bash(#"$STRATA import '\#(copy)' '\#(exported)' --entity Item --schema <($STRATA schema '\#(store)')"#, in: dir.path)
        #expect(piped.status == 0 && piped.output.hasPrefix("inserted 1 "), "\(piped.output) \(piped.error)")
        #expect(try StrataCLI.run(["schema", copy]).output == StrataCLI.run(["schema", store]).output)
        #expect(try StrataCLI.run(["export", copy, "Item"]).output == StrataCLI.run(["export", store, "Item"]).output)

        let endless = try StrataCLI.bash(#"$STRATA import '\#(copy)' '\#(exported)' --entity Item --schema <(head -c 70000000 /dev/zero)"#, in: dir.path)
        #expect(endless.status == 1 && endless.error.contains("it holds more than 64 MiB"), "\(endless.error)")
    }

    @Test func aFailedFirstImportOrADryRunLeavesNoStoreBehind() throws {
        let malformed = try file("malformed.json", #"[{"id": 1}, {"id": 2,}]"#)
        let failed = try StrataCLI.run(["import", store, malformed, "--entity", "E"])
        #expect(failed.status == 1 && failed.error.contains("malformed JSON"), "\(failed.error)")
        #expect(!FileManager.default.fileExists(atPath: store))
        let refused = try StrataCLI.run(["import", store, try file("nokey.json", #"[{"id": 1}, {"id": "x"}, {"id": null}]"#), "--entity", "E"])
        #expect(refused.status == 1 && !FileManager.default.fileExists(atPath: store), "\(refused.error)")
        let dry = try StrataCLI.run(["import", store, try file("good.json", #"[{"id": 1}]"#), "--entity", "E", "--dry-run"])
        #expect(dry.status == 0 && dry.output.contains("dry run"), "\(dry.output)")
        #expect(!FileManager.default.fileExists(atPath: store))

        // A store that was there stays, with what it held; so does a directory that was.
        #expect(try StrataCLI.run(["import", store, dir.path("good.json"), "--entity", "E"]).status == 0)
        #expect(try StrataCLI.run(["import", store, malformed, "--entity", "E"]).status == 1)
        #expect(try StrataCLI.run(["query", store, "E", "--count"]).output == "1\n")
        let empty = dir.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        #expect(try StrataCLI.run(["import", empty, malformed, "--entity", "E"]).status == 1)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: empty, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test(arguments: [
        // Records are counted from 1, as the importer counts them.
        (#"[{"id": 1}, {"id": 2}, {"id": null}]"#, "record 3 has null"),
        (#"[{"id": 1}, {"id": 2}, {"x": 3}]"#, "record 3 lacks it"),
        (#"[{"x": 0}, {"id": 2}]"#, "record 1 lacks it"),
        (#"[{"id": 1}, {"id": "two"}]"#, "from record 2 on"),
    ])
    func inferredPrimaryKeyErrorsNameTheRecord(payload: String, record: String) throws {
        let result = try StrataCLI.run(["import", store, try file("in.json", payload), "--entity", "E"])
        #expect(result.status != 0)
        #expect(result.error.contains("cannot be the primary key") && result.error.contains(record), "\(result.error)")
    }

    @Test func getTakesNegativeKeysAndWholeFloatsLikeImportDoes() throws {
        let schema = try file("schema.json", #"{"entities": {"E": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "a": {"type": "string"}}}}}"#)
        let imported = try StrataCLI.run(["import", store, try file("in.json", #"[{"id": -5, "a": "minus"}, {"id": 1.0, "a": "one"}]"#),
                                          "--entity", "E", "--schema", schema])
        try #require(imported.status == 0, "\(imported.error)")
        let negative = try StrataCLI.run(["get", store, "E", "-5"])
        #expect(negative.status == 0 && negative.output.contains("minus"), "\(negative.error)")
        let whole = try StrataCLI.run(["get", store, "E", "1.0"])
        #expect(whole.status == 0 && whole.output.contains("one"), "\(whole.error)")
        #expect(try StrataCLI.run(["get", store, "E", "1.5"]).status != 0)
        let table = try StrataCLI.run(["get", store, "E", "-5", "--format", "table"])
        #expect(table.status == 0 && table.output.contains("minus"), "\(table.error)")
        let deleted = try StrataCLI.run(["delete", store, "E", "--key", "-5"])
        #expect(deleted.status == 0 && deleted.output.contains("deleted 1 record"), "\(deleted.error)")
    }
}
