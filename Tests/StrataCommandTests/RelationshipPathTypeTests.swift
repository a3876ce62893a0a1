import Foundation
import Testing
import TestSupport

/// Conditions through a relationship are type-checked against the related entity's schema, like
/// top-level ones: `ANY notes.userID == "6"` is an error, not a silent empty match, and a delete
/// with such a condition deletes nothing.
@Suite struct RelationshipPathTypeTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory("strata-relpath") }

    @Test func aMismatchedConditionThroughARelationshipIsAnErrorAndDeletesNothing() throws {
        let store = dir.path("store")
        let schema = dir.path("schema.json"), users = dir.path("users.json")
        try Data(#"""
        {"entities": {
          "User": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "name": {"type": "string"}}},
          "Note": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "text": {"type": "string"}, "stars": {"type": "int"}, "userID": {"type": "int", "optional": true}},
                   "relationships": {"user": {"toOne": "User", "field": "userID", "inverse": "notes"}}}}}
        """#.utf8).write(to: URL(fileURLWithPath: schema))
        try Data(#"[{"id": 6, "name": "Shawn", "notes": [{"id": 0, "text": "a", "stars": 3}, {"id": 1, "text": "b", "stars": 5}]}, {"id": 7, "name": "Gus", "notes": []}]"#.utf8)
            .write(to: URL(fileURLWithPath: users))
        let imported = try StrataCLI.run(["import", store, users, "--entity", "User", "--schema", schema])
        try #require(imported.status == 0, "\(imported.error)")

        for predicate in [#"ANY notes.stars == "5""#, "ANY notes.text > 5", #"NONE notes.stars != "3""#] {
            let query = try StrataCLI.run(["query", store, "User", predicate, "--count"])
            #expect(query.status == 1, "\(predicate): \(query.output)")
            #expect(query.error.contains("cannot compare"), "\(predicate): \(query.error)")
            let delete = try StrataCLI.run(["delete", store, "User", predicate])
            #expect(delete.status == 1, "\(predicate): \(delete.output)")
        }
        let kept = try StrataCLI.run(["query", store, "User", "--count"])
        #expect(kept.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
        let valid = try StrataCLI.run(["query", store, "User", "ANY notes.stars == 5", "--count"])
        #expect(valid.status == 0 && valid.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(valid.error)")
    }
}
