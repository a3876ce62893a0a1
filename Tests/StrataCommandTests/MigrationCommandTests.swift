import Foundation
import Strata
import Testing
import TestSupport

/// `strata migrate`, `strata schema diff` and `strata schema --history`.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: StrataCLI.binary), "needs the strata binary next to the tests (swift build)"))
struct MigrationCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws {
        dir = try TemporaryDirectory("strata-migrate-command")
        let input = dir.path("users.json")
        try Data(#"[{"id": 1, "fullName": "Ada", "age": "36", "nick": "a"}, {"id": 2, "fullName": "Bob", "age": "40", "nick": "b"}]"#.utf8)
            .write(to: URL(fileURLWithPath: input))
        let run = try StrataCLI.run(["import", store, input, "--entity", "User"])
        try #require(run.status == 0, "\(run.error)")
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let plan = #"""
        {"migrations": [{"name": "v2", "steps": [
          {"op": "renameField", "entity": "User", "field": "fullName", "to": "name"},
          {"op": "addField", "entity": "User", "field": "plan", "type": "string", "default": "free"},
          {"op": "changeType", "entity": "User", "field": "age", "type": "int"},
          {"op": "addIndex", "entity": "User", "fields": ["age"]},
          {"op": "removeField", "entity": "User", "field": "nick"},
          {"op": "compact", "entity": "User"}]}]}
        """#

    /// A plan or schema file that is a device or a directory is refused by name, as `import
    /// --schema` refuses one, instead of being read forever (`/dev/zero`).
    @Test(arguments: [["migrate", "STORE", "/dev/zero"], ["schema", "diff", "STORE", "/dev/zero"], ["migrate", "STORE", "/tmp"]])
    func aPlanOrSchemaThatIsNotARegularFileIsRefused(_ arguments: [String]) throws {
        let result = try StrataCLI.run(arguments.map { $0 == "STORE" ? store : $0 })
        #expect(result.status == 1 && result.error.contains("it is not a regular file"), "\(result.error)")
    }

    @Test func aDryRunReportsAndChangesNothingThenTheRunAppliesOnceAndTheHistoryListsIt() throws {
        let plan = try write(Self.plan, "plan.json")
        let before = try StrataCLI.run(["export", store, "User"]).output
        let dry = try StrataCLI.run(["migrate", store, plan, "--dry-run"])
        #expect(dry.status == 0, "\(dry.error)")
        #expect(dry.output.contains("dry run: would run 1 migration") && dry.output.contains("rename field User.fullName to name"))
        #expect(try StrataCLI.run(["export", store, "User"]).output == before)
        #expect(try StrataCLI.run(["schema", store, "--history"]).output == "no migrations\n")

        let run = try StrataCLI.run(["migrate", store, plan])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("ran 1 migration\n  v2\n"))
        let query = try StrataCLI.run(["query", store, "User", "age > 37", "--format", "jsonl"])
        #expect(query.output == #"{"id":2,"name":"Bob","age":40,"plan":"free"}"# + "\n")
        let old = try StrataCLI.run(["query", store, "User", "fullName == 'Ada'"])
        #expect(old.status == 1 && old.error.contains("'fullName' was renamed to 'name'"))
        #expect(try StrataCLI.run(["migrate", store, plan]).output.hasPrefix("nothing to migrate"))
        let history = try StrataCLI.run(["schema", store, "--history"]).output.split(separator: "\t")
        #expect(history.first == "1" && history.last == "v2\n")
        #expect(try StrataCLI.run(["verify", store]).status == 0)
    }

    @Test func aPlanThatDoesNotExtendTheHistoryOrFailsLeavesTheStoreAlone() throws {
        try #require(try StrataCLI.run(["migrate", store, try write(Self.plan, "plan.json")]).status == 0)
        let before = try StrataCLI.run(["export", store, "User"]).output
        let other = try StrataCLI.run(["migrate", store, try write(#"{"migrations": [{"name": "v2b", "steps": []}]}"#, "other.json")])
        #expect(other.status == 1 && other.error.contains("ran 'v2' as migration 1"))
        let failing = try StrataCLI.run(["migrate", store, try write(#"""
            {"migrations": [{"name": "v2", "steps": []}, {"name": "v3", "steps": [
              {"op": "addField", "entity": "User", "field": "rank", "type": "int", "default": 1},
              {"op": "changeType", "entity": "User", "field": "name", "type": "int"}]}]}
            """#, "failing.json")])
        #expect(failing.status == 1 && failing.error.contains("migration 'v3' failed at User 1"))
        #expect(try StrataCLI.run(["export", store, "User"]).output == before)
        let bad = try StrataCLI.run(["migrate", store, try write(#"{"migrations": [{"name": "x", "steps": [{"op": "explode", "entity": "User"}]}]}"#, "bad.json")])
        #expect(bad.status == 1 && bad.error.contains("unknown \"op\" 'explode'"))
    }

    /// A renamed field keeps its JSON key: the file the store was imported from imports again,
    /// new records included; an import that fails names its first failing record and writes nothing.
    @Test func theOriginalFileImportsAgainAfterARenameAndAFailingImportWritesNothing() throws {
        try #require(try StrataCLI.run(["migrate", store, try write(Self.plan, "plan.json")]).status == 0)
        let more = try write(#"[{"id": 1, "fullName": "Ada", "age": "36", "nick": "a"}, {"id": 3, "fullName": "Cy", "age": "20", "nick": "c"}]"#,
                             "more.json")
        let run = try StrataCLI.run(["import", store, more, "--entity", "User"])
        #expect(run.status == 0, "\(run.error)")
        let cy = try StrataCLI.run(["query", store, "User", "id == 3", "--format", "jsonl"]).output
        #expect(cy.contains(#""name":"Cy""#) && cy.contains(#""age":20"#) && cy.contains(#""plan":"free""#), "\(cy)")
        #expect(try StrataCLI.run(["schema", store]).output.contains("fullName"))   // the JSON key of name

        let before = try StrataCLI.run(["export", store, "User"]).output
        let failing = try write(#"[{"id": 1, "fullName": "Ada L.", "age": "37"}, {"id": 4, "age": "50"}]"#, "failing.json")
        let failed = try StrataCLI.run(["import", store, failing, "--entity", "User"])
        #expect(failed.status == 1 && failed.error.contains("record 2: has no value for the required field 'name'"), "\(failed.error)")
        #expect(try StrataCLI.run(["export", store, "User"]).output == before)
    }

    @Test func schemaDiffListsAddedRemovedAndChangedFieldsAndIndexes() throws {
        let schema = try write(#"""
            {"entities": {"User": {"primaryKey": "id", "fields": {
              "id": {"type": "int"}, "name": {"type": "string"}, "age": {"type": "int"},
              "plan": {"type": "string", "default": "free"}, "nick": {"type": "string"}},
              "indexes": [{"fields": ["age"]}]}, "Team": {"primaryKey": "id", "fields": {"id": {"type": "int"}}}}}
            """#, "new.schema.json")
        let run = try StrataCLI.run(["schema", "diff", store, schema])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("User: - field fullName") && $0.contains("renames are never guessed") })
        #expect(lines.contains("User: + field name: string (required without a default: stored records lack it; give it a \"default\" or make it optional)"))
        #expect(lines.contains("User: ~ field age: string → integer (changeType converts stored values)"))
        #expect(lines.contains("User: + field plan: string = \"free\""))
        #expect(lines.contains("User: + index age"))
        #expect(lines.contains("Team: + entity (1 fields)"))
        #expect(lines.count == 6)
    }
}
