import Foundation
import LMDB
import Testing
import TestSupport

/// End-to-end runs of the `strata` binary on temporary stores: every command, every output
/// format, exit statuses and messages.
@Suite struct CommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-cli") }

    /// Twelve users as an API sends them; Buster and Oscar have no lucky number.
    static let users: [(Int, String, String, Int?)] = [
        (1, "Jimmy", "James", 3), (2, "Doogie", "Howser", 7), (3, "George", "Bluth", 13), (4, "Michael", "Bluth", 13),
        (5, "George Michael", "Bluth", 9), (6, "Buster", "Bluth", nil), (7, "Oscar", "Bluth", nil), (8, "Ron", "Swanson", 11),
        (9, "Maeby", "Fünke", 2), (10, "Tobias", "Fünke", 5), (11, "Lindsay", "Fünke", 8), (12, "Lucille", "Austero", 1),
    ]

    static func usersJSON(_ users: [(Int, String, String, Int?)] = users) -> String {
        "[" + users.map { id, first, last, lucky in
            #"{"id": \#(id), "first_name": "\#(first)", "last_name": "\#(last)", "lucky_number": \#(lucky.map(String.init) ?? "null"), "#
                + #""email": "user\#(id)@example.com", "tags": \#(id % 2 == 0 ? #"["vip"]"# : "[]"), "#
                + #""created_at": "2024-01-\#(String(format: "%02d", id % 28 + 1))T10:00:00Z"}"#
        }.joined(separator: ",\n") + "]"
    }

    /// Writes `text` into the temporary directory and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A store with the users imported under an inferred schema, plus an index on lastName.
    func importedStore() throws {
        let result = try StrataCLI.run(["import", store, try file("users.json", Self.usersJSON()), "--entity", "User"])
        #expect(result.status == 0, "\(result.error)")
        let index = try StrataCLI.run(["index", "add", store, "User", "lastName", "--collation", "caseDiacriticInsensitive"])
        #expect(index.status == 0, "\(index.error)")
    }

    // MARK: import

    @Test func importFillsRelatedEntitiesOfTheSchemaFileFromNestedJSON() throws {
        let schema = try file("schema.json", #"""
        {"entities": {
          "User": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "name": {"type": "string"}}},
          "Note": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "text": {"type": "string"}, "userID": {"type": "int", "optional": true}},
                   "relationships": {"user": {"toOne": "User", "field": "userID", "inverse": "notes", "deleteRule": "cascade"}}}}}
        """#)
        let payload = #"[{"id": 6, "name": "Shawn", "notes": [{"id": 0, "text": "episode 1"}, {"id": 1, "text": "episode 2"}]}]"#
        let first = try StrataCLI.run(["import", store, try file("users.json", payload), "--entity", "User", "--schema", schema, "--json"])
        #expect(first.status == 0, "\(first.error)")
        let report = try #require(try StrataCLI.json(first.output) as? [String: Any])
        #expect((report["related"] as? [String: [String: Int]])?["Note"]?["inserted"] == 2, "\(first.output)")
        let synced = try StrataCLI.run(["import", store, try file("users2.json", #"[{"id": 6, "name": "Shawn", "notes": [{"id": 1, "text": "episode 2"}]}]"#),
                                        "--entity", "User", "--schema", schema, "--sync"])
        #expect(synced.status == 0, "\(synced.error)")
        #expect(synced.output.contains("Note: inserted 0, updated 0, unchanged 1, deleted 1"), "\(synced.output)")
        let notes = try StrataCLI.run(["query", store, "Note", "--format", "jsonl"])
        #expect(notes.output == #"{"id":1,"text":"episode 2","userID":6}"# + "\n", "\(notes.output)")
        let users = try StrataCLI.run(["query", store, "User", "ANY notes.text == 'episode 2'", "--count"])
        #expect(users.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(users.output)")
    }

    @Test func importInfersASchemaAndReportsAsJSON() throws {
        let result = try StrataCLI.run(["import", store, try file("users.json", Self.usersJSON()), "--entity", "User", "--json"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("inferred"))
        let report = try #require(try StrataCLI.json(result.output) as? [String: Any])
        #expect(report["entity"] as? String == "User")
        #expect(report["inserted"] as? Int == 12)
        #expect(report["updated"] as? Int == 0 && report["unchanged"] as? Int == 0 && report["deleted"] as? Int == 0)
        #expect(report["skipped"] as? Int == 0 && (report["failures"] as? [Any])?.isEmpty == true)
        #expect(report["seconds"] is Double)
        // ImportReport.json, the form the studio answers too, and the tool's phases.
        #expect(Set(report.keys) == ["entity", "dryRun", "records", "inserted", "updated", "unchanged", "deleted", "skipped",
                                     "failures", "related", "seconds", "summary", "phases"])
        #expect(report["records"] as? Int == 12 && report["dryRun"] as? Bool == false)
        #expect((report["summary"] as? String)?.hasPrefix("inserted 12 · updated 0") == true)

        let again = try StrataCLI.run(["import", store, dir.path("users.json"), "--entity", "User", "--json"])
        #expect((try StrataCLI.json(again.output) as? [String: Any])?["unchanged"] as? Int == 12)
        #expect(!again.error.contains("inferred"), "an existing entity's stored schema is used")

        let schema = try StrataCLI.run(["schema", store, "--json"])
        let entities = try #require((try StrataCLI.json(schema.output) as? [String: Any])?["entities"] as? [String: Any])
        let user = try #require(entities["User"] as? [String: Any])
        #expect(user["primaryKey"] as? String == "id")
        let fields = try #require(user["fields"] as? [String: [String: Any]])
        #expect(fields["luckyNumber"]?["type"] as? String == "int" && fields["luckyNumber"]?["optional"] as? Bool == true)
        #expect(fields["createdAt"]?["type"] as? String == "date")
        #expect(fields["tags"]?["type"] as? String == "[string]")
    }

    @Test func importReadsStandardInputRootKeysAndSchemaFiles() throws {
        let schema = try file("schema.json", #"""
            { "entities": { "Person": {
                "primaryKey": "remoteID",
                "fields": {
                  "remoteID": {"type": "int", "json": "id"}, "firstName": {"type": "string"}, "lastName": {"type": "string"},
                  "luckyNumber": {"type": "int", "optional": true}, "email": {"type": "string"}, "tags": {"type": "[string]"},
                  "createdDate": {"type": "date", "json": "created_at"}
                },
                "indexes": [{"fields": ["lastName"], "collation": "caseDiacriticInsensitive"}, {"fields": ["email"], "unique": true}] } } }
            """#)
        let wrapped = Data(("{\"people\": " + Self.usersJSON() + "}").utf8)
        let result = try StrataCLI.run(["import", store, "-", "--entity", "Person", "--schema", schema, "--root-key", "people"], input: wrapped)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("inserted 12"))
        let person = try StrataCLI.run(["get", store, "Person", "9"])
        let record = try #require(try StrataCLI.json(person.output) as? [String: Any])
        #expect(record["remoteID"] as? Int == 9 && record["lastName"] as? String == "Fünke")
        #expect(record["createdDate"] as? String == "2024-01-10T10:00:00Z")
        let plan = try StrataCLI.run(["explain", store, "Person", "lastName ==[cd] 'funke'"])
        #expect(plan.output.hasPrefix("IndexScan(Person.lastName[cd] = \"funke\")"), "\(plan.output)")
        let missing = try StrataCLI.run(["import", store, dir.path("schema.json"), "--entity", "Nobody", "--schema", schema])
        #expect(missing.status == 1 && missing.error.contains("does not describe 'Nobody'"))
    }

    @Test func syncDeletesMissingRecordsInsideItsScopeOnly() throws {
        try importedStore()
        let page = Self.usersJSON(Self.users.filter { $0.0 != 3 && $0.0 != 9 && $0.0 != 10 })
        let dry = try StrataCLI.run(["import", store, try file("page.json", page), "--entity", "User", "--sync", "--scope", "lastName == 'Bluth'", "--dry-run", "--json"])
        #expect((try StrataCLI.json(dry.output) as? [String: Any])?["deleted"] as? Int == 1)
        #expect(try StrataCLI.run(["query", store, "User", "--count"]).output == "12\n")
        let synced = try StrataCLI.run(["import", store, dir.path("page.json"), "--entity", "User", "--sync", "--scope", "lastName == 'Bluth'", "--json"])
        #expect((try StrataCLI.json(synced.output) as? [String: Any])?["deleted"] as? Int == 1)
        #expect(try StrataCLI.run(["query", store, "User", "--count"]).output == "11\n")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    @Test func skippedRecordsAreReportedAndMalformedFilesChangeNothing() throws {
        try importedStore()
        let bad = try file("bad.json", #"[{"id": 20, "first_name": "Gob", "last_name": "Bluth", "lucky_number": "seven", "email": "g@x", "tags": [], "created_at": "2024-01-01T00:00:00Z"}]"#)
        let skipped = try StrataCLI.run(["import", store, bad, "--entity", "User", "--on-error", "skip", "--json"])
        #expect(skipped.status == 0)
        let report = try #require(try StrataCLI.json(skipped.output) as? [String: Any])
        #expect(report["skipped"] as? Int == 1)
        let failures = try #require(report["failures"] as? [[String: Any]])
        #expect(failures.first?["record"] as? Int == 1 && (failures.first?["message"] as? String)?.contains("lucky_number") == true)
        #expect(failures.first?["code"] as? String == "invalidRecord", "\(failures)")
        let aborted = try StrataCLI.run(["import", store, bad, "--entity", "User"])
        #expect(aborted.status == 1 && aborted.error.hasPrefix("error: ") && aborted.error.contains("seven"))

        let malformed = try file("malformed.json", "[{\"id\": 30, \"first_name\": \"Gob\"},\n {\"id\": 31,, \"first_name\": \"Ann\"}]")
        let result = try StrataCLI.run(["import", store, malformed, "--entity", "User"])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("error: malformed JSON at byte"), "\(result.error)")
        #expect(result.error.contains("line 2, column 12"), "\(result.error)")
        #expect(try StrataCLI.run(["query", store, "User", "--count"]).output == "12\n")
    }

    // MARK: query, explain, get, delete, export

    @Test func queriesPrintEveryFormat() throws {
        try importedStore()
        let predicate = "lastName ==[cd] 'bluth' ORDER BY luckyNumber DESC, id LIMIT 3 OFFSET 1"
        let json = try StrataCLI.run(["query", store, "User", predicate, "--format", "json"])
        let rows = try #require(try StrataCLI.json(json.output) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? Int } == [4, 5, 6])
        #expect(rows[0]["createdAt"] as? String == "2024-01-05T10:00:00Z")

        let jsonl = try StrataCLI.run(["query", store, "User", predicate, "--format", "jsonl", "--fields", "id,firstName"])
        let lines = jsonl.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(try lines.map { try #require(try StrataCLI.json(String($0)) as? [String: Any]).keys.sorted() } == Array(repeating: ["firstName", "id"], count: 3))

        let csv = try StrataCLI.run(["query", store, "User", "--sort", "lastName desc,firstName", "--limit", "2", "--format", "csv", "--fields", "id,firstName,lastName,tags,luckyNumber"])
        #expect(csv.output == "id,firstName,lastName,tags,luckyNumber\n8,Ron,Swanson,\"[\"\"vip\"\"]\",11\n1,Jimmy,James,[],3\n")

        let table = try StrataCLI.run(["query", store, "User", "luckyNumber == nil", "--format", "table", "--fields", "id,firstName"])
        #expect(table.output == "id  firstName\n--  ---------\n6   Buster\n7   Oscar\n(2 records)\n")

        let piped = try StrataCLI.run(["query", store, "User", "id == 1"])
        #expect((try StrataCLI.json(piped.output) as? [[String: Any]])?.count == 1, "json when standard output is not a terminal")
        #expect(try StrataCLI.run(["query", store, "User", "luckyNumber > 8", "--count"]).output == "4\n")
        #expect(try StrataCLI.run(["query", store, "User", "--offset", "10", "--count"]).output == "2\n")
    }

    @Test func theKernExamplesRunFromTheCommandLine() throws {
        try importedStore()
        func ids(_ arguments: [String]) throws -> [Int] {
            let result = try StrataCLI.run(["query", store, "User"] + arguments + ["--format", "json"])
            return try #require(try StrataCLI.json(result.output) as? [[String: Any]]).compactMap { $0["id"] as? Int }
        }
        // findAllSortedBy:@"lastName desc,luckyNumber" withLimit:4 — names by code point, Fünke by its numbers.
        #expect(try ids(["--sort", "lastName desc,luckyNumber", "--limit", "4"]) == [8, 1, 2, 9])
        #expect(try ids(["--sort", "lastName desc,luckyNumber", "--offset", "3", "--limit", "3"]) == [9, 10, 11])
        #expect(try ids(["lastName ==[cd] 'BLUTH' AND luckyNumber == 13"]) == [3, 4])
        #expect(try ids(["firstName BEGINSWITH 'George'", "--sort", "luckyNumber desc"]) == [3, 5])
    }

    @Test func explainPrintsThePlanAsTextOrJSON() throws {
        try importedStore()
        // 300 more users, so that an index beats a scan.
        let filler = (100..<400).map { ($0, "Filler", "Filler\($0 % 50)", Optional($0 % 7)) }
        #expect(try StrataCLI.run(["import", store, try file("filler.json", Self.usersJSON(filler)), "--entity", "User"]).status == 0)
        let text = try StrataCLI.run(["explain", store, "User", "lastName ==[cd] 'bluth' AND luckyNumber > 5", "--sort", "id", "--limit", "2"])
        #expect(text.status == 0)
        #expect(text.output.hasPrefix("IndexScan(User.lastName[cd] = \"bluth\") → Filter("), "\(text.output)")
        #expect(text.output.contains("estimated rows: 5"))
        let json = try StrataCLI.run(["explain", store, "User", "lastName ==[cd] 'bluth'", "--json"])
        let plan = try #require(try StrataCLI.json(json.output) as? [String: Any])
        #expect(plan["indexes"] as? [String] == ["lastName[cd]"])
        #expect(plan["estimatedRows"] as? Int == 5)
        #expect(plan["text"] as? String == "IndexScan(User.lastName[cd] = \"bluth\")")
        let steps = try #require(plan["steps"] as? [[String: Any]], "the plan is a structured object")
        #expect(steps.first?["operation"] as? String == "IndexScan" && steps.first?["index"] as? String == "lastName[cd]")
        let bad = try StrataCLI.run(["explain", store, "User", "lastNme == 'x'"])
        #expect(bad.status == 1 && bad.error.contains("lastNme") && bad.error.contains("lastName"))
    }

    @Test func getAndDeleteByKeyAndPredicate() throws {
        try importedStore()
        let found = try StrataCLI.run(["get", store, "User", "8", "--format", "table"])
        #expect(found.status == 0 && found.output.contains("firstName    Ron"), "\(found.output)")
        let missing = try StrataCLI.run(["get", store, "User", "99"])
        #expect(missing.status == 1 && missing.error == "error: User has no record with key 99\n")
        #expect(try StrataCLI.run(["get", store, "Nobody", "1"]).error.contains("no entity 'Nobody'"))

        #expect(try StrataCLI.run(["delete", store, "User", "--key", "8"]).output == "deleted 1 record\n")
        #expect(try StrataCLI.run(["delete", store, "User", "--key", "8"]).status == 1)
        #expect(try StrataCLI.run(["delete", store, "User", "lastName ==[cd] 'funke'"]).output == "deleted 3 records\n")
        #expect(try StrataCLI.run(["query", store, "User", "--count"]).output == "8\n")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    @Test func exportsImportAgainWithTheirJSONKeys() throws {
        try importedStore()
        let exported = try StrataCLI.run(["export", store, "User", "--json-keys"])
        let records = try #require(try StrataCLI.json(exported.output) as? [[String: Any]])
        #expect(records.count == 12)
        #expect(records[0].keys.sorted() == ["created_at", "email", "first_name", "id", "last_name", "lucky_number", "tags"])
        let copy = dir.path("copy")
        #expect(try StrataCLI.run(["import", copy, try file("export.json", exported.output), "--entity", "User"]).status == 0)
        let original = try StrataCLI.run(["export", store, "User", "--format", "jsonl"])
        let reimported = try StrataCLI.run(["export", copy, "User", "--format", "jsonl"])
        #expect(original.output.split(separator: "\n").count == 12)
        #expect(reimported.output == original.output)
    }

    // MARK: schema, index, stats, verify, backup

    @Test func indexesAreAddedListedAndDropped() throws {
        try importedStore()
        #expect(try StrataCLI.run(["index", "add", store, "User", "email", "--unique"]).status == 0)
        #expect(try StrataCLI.run(["index", "add", store, "User", "tags", "--multi-value"]).status == 0)
        let duplicate = try StrataCLI.run(["index", "add", store, "User", "lastName", "--unique"])
        #expect(duplicate.status == 1 && duplicate.error.contains("lastName"), "\(duplicate.error)")
        let list = try StrataCLI.run(["index", "list", store, "User", "--json"])
        let indexes = try #require(try StrataCLI.json(list.output) as? [[String: Any]])
        #expect(indexes.map { $0["name"] as? String } == ["lastName[cd]", "email", "tags"])
        #expect(indexes.map { $0["entries"] as? Int } == [12, 12, 6])
        #expect(try StrataCLI.run(["index", "drop", store, "User", "email"]).status == 0)
        #expect(try StrataCLI.run(["index", "list", store, "User"]).output.contains("email") == false)
        #expect(try StrataCLI.run(["index", "drop", store, "User", "email"]).status == 1)
        let schema = try StrataCLI.run(["schema", store])
        #expect(schema.output.contains("\"multiValue\": true") && schema.output.contains("\"caseDiacriticInsensitive\""), "\(schema.output)")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    @Test func statsCountEntitiesAndIndexes() throws {
        try importedStore()
        let json = try StrataCLI.run(["stats", store, "--json"])
        let stats = try #require(try StrataCLI.json(json.output) as? [String: Any])
        let entity = try #require((stats["entities"] as? [[String: Any]])?.first)
        #expect(entity["name"] as? String == "User" && entity["records"] as? Int == 12)
        #expect(((entity["indexes"] as? [[String: Any]])?.first)?["entries"] as? Int == 12)
        #expect((stats["mapSize"] as? Int ?? 0) >= (stats["usedBytes"] as? Int ?? .max))
        let text = try StrataCLI.run(["stats", store])
        #expect(text.output.contains("User") && text.output.contains("index lastName[cd]") && text.output.contains("readers:"))
    }

    @Test func verifyCatchesAnIndexEntryDeletedBehindTheLibrarysBack() throws {
        try importedStore()
        #expect(try StrataCLI.run(["verify", store]).output.contains("User: 12 records, 12 index entries: ok"))
        let environment = try Environment(path: store)
        try environment.write { txn in
            let index = try #require(try txn.openDatabase("index/User/lastName[cd]"))
            let first = try txn.withCursor(index) { cursor in try cursor.first() ? (cursor.key, cursor.value) : nil }
            let (key, value) = try #require(first)
            #expect(try txn.delete(key, value: value, in: index))
        }
        let result = try StrataCLI.run(["verify", store])
        #expect(result.status == 1)
        #expect(result.output.contains("lacks the entry"), "\(result.output)")
        #expect(result.error.contains("verify found 2 problems"), "\(result.error)")
    }

    @Test func compactBackupsOpenAndVerify() throws {
        try importedStore()
        let copy = dir.path("backup")
        let result = try StrataCLI.run(["backup", store, copy, "--compact"])
        #expect(result.status == 0 && result.output.hasPrefix("backed up"))
        #expect(try StrataCLI.run(["verify", copy]).status == 0)
        #expect(try StrataCLI.run(["export", copy, "User"]).output == StrataCLI.run(["export", store, "User"]).output)
        #expect(try StrataCLI.run(["backup", store, copy]).status == 1, "the destination is not empty")
    }

    // MARK: usage, help, demo

    @Test(arguments: [
        ["query"], ["import", "s", "f"], ["query", "s", "User", "--format", "xml"], ["frobnicate"],
        ["import", "s", "f", "--entity", "U", "--scope", "x == 1"], ["delete", "s", "User"], ["query", "s", "User", "--limit", "-1"],
        ["index", "add", "s", "User", "x", "--collation", "klingon"],
    ])
    func usageErrorsExitWithTwo(arguments: [String]) throws {
        let result = try StrataCLI.run(arguments.map { $0 == "s" ? store : $0 })
        #expect(result.status == 2, "\(arguments): \(result.error)")
        #expect(result.error.contains("Error") || result.error.contains("error"))
        #expect(result.output.isEmpty)
    }

    @Test func helpIsCompleteForEveryCommand() throws {
        let root = try StrataCLI.run(["--help"])
        #expect(root.status == 0)
        let commands = ["import", "query", "explain", "get", "delete", "export", "schema", "index", "stats", "verify", "backup", "demo"]
        for command in commands {
            #expect(root.output.contains("  \(command) "), "root help lists \(command)")
            let help = try StrataCLI.run([command, "--help"])
            #expect(help.status == 0 && help.output.contains("USAGE: strata \(command)"), "\(command)")
        }
        for subcommand in ["add", "drop", "list"] {
            #expect(try StrataCLI.run(["index", subcommand, "--help"]).output.contains("USAGE: strata index \(subcommand)"))
        }
    }

    @Test func theDemoFinishes() throws {
        let result = try StrataCLI.run(["demo", "--records", "600", "--store", store])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("verify: 600 records"))
        #expect(result.output.contains("consistent"))
        #expect(result.output.contains("plan: Union(IndexScan(User.luckyNumber IN {3, 7, 13}), IndexScan(User.lastName[cd] = \"swanson\"))"))
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }
}
