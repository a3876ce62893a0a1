import Foundation
import LMDB
import Testing
import TestSupport

/// A typo behind a relationship path (`person.nmae`, `ANY notes.txet`) or in an index added by
/// name is an error with a suggestion and exit status 1, as a top-level typo is; it used to print
/// 0 rows with status 0. And an index folded by older rules is reported as such, not as damage.
@Suite struct RelationshipPathFieldTests {
    let dir: TemporaryDirectory
    let store: String
    init() throws {
        dir = try TemporaryDirectory("strata-relfield")
        store = dir.path("store")
    }

    private func importPeople() throws {
        let schema = dir.path("schema.json"), people = dir.path("people.json")
        try Data(#"""
        {"entities": {
          "Person": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "name": {"type": "string"}},
                     "indexes": [{"fields": ["name"], "collation": "caseDiacriticInsensitive"}]},
          "Note": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "text": {"type": "string"}, "personID": {"type": "int", "optional": true}},
                   "relationships": {"person": {"toOne": "Person", "field": "personID", "inverse": "notes"}}}}}
        """#.utf8).write(to: URL(fileURLWithPath: schema))
        try Data(#"[{"id": 1, "name": "Ann", "notes": [{"id": 1, "text": "x"}, {"id": 2, "text": "y"}]}, {"id": 2, "name": "Ørsted", "notes": []}]"#.utf8)
            .write(to: URL(fileURLWithPath: people))
        let imported = try StrataCLI.run(["import", store, people, "--entity", "Person", "--schema", schema])
        try #require(imported.status == 0, "\(imported.error)")
    }

    private func count(_ entity: String, _ predicate: String? = nil) throws -> String {
        try StrataCLI.run(["query", store, entity] + (predicate.map { [$0] } ?? []) + ["--count"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [
        ("Note", #"person.nmae == "Ann""#, "Person has no field 'nmae' (did you mean 'name'?)"),
        ("Person", #"ANY notes.txet == "x""#, "Note has no field 'txet' (did you mean 'text'?)"),
        ("Person", #"NONE notes.txet == "x""#, "Note has no field 'txet' (did you mean 'text'?)"),
    ])
    func aTypoBehindARelationshipExitsOneWithASuggestion(entity: String, predicate: String, expected: String) throws {
        try importPeople()
        let query = try StrataCLI.run(["query", store, entity, predicate])
        #expect(query.status == 1, "\(query.output)")
        #expect(query.output.isEmpty)
        #expect(query.error.contains(expected), "\(query.error)")
        let delete = try StrataCLI.run(["delete", store, entity, predicate])
        #expect(delete.status == 1, "\(delete.output)")
        #expect(delete.error.contains(expected), "\(delete.error)")
        #expect(try count("Person") == "2")
        #expect(try count("Note") == "2")
        // The spelled-right paths run.
        #expect(try count("Note", #"person.name == "Ann""#) == "2")
        #expect(try count("Person", #"ANY notes.text == "x""#) == "1")
    }

    @Test func anIndexAddedByNameWithATypoExitsOneWithASuggestion() throws {
        try importPeople()
        let added = try StrataCLI.run(["index", "add", store, "Note", "txet"])
        #expect(added.status == 1)
        #expect(added.error.contains("unknown field 'txet' in Note (did you mean 'text'?)"), "\(added.error)")
        let list = try StrataCLI.run(["index", "list", store, "Note"])
        #expect(!list.output.contains("txet"), "\(list.output)")
    }

    @Test func verifyReportsAnIndexFoldedByOlderRulesAsStaleAndTheNextWriteRebuildsIt() throws {
        try importPeople()
        // A catalog written before folding versions were recorded: its folded index has none.
        let environment = try Environment(path: store)
        try environment.write { txn in
            let catalog = try #require(try txn.openDatabase("catalog"))
            let key = Array("entity/Person".utf8)
            let entry = try #require(try txn.value(forKey: key, in: catalog))
            var schema = try #require(try JSONSerialization.jsonObject(with: Data(entry)) as? [String: Any])
            var indexes = try #require(schema["indexes"] as? [[String: Any]])
            #expect(indexes.count == 1 && indexes[0]["foldingVersion"] != nil)
            indexes[0]["foldingVersion"] = nil
            schema["indexes"] = indexes
            try txn.put(Array(try JSONSerialization.data(withJSONObject: schema, options: [.sortedKeys])), forKey: key, in: catalog)
        }
        let stale = try StrataCLI.run(["verify", store])
        #expect(stale.output.contains("index 'name[cd]' was folded by the folding rules of version 1"), "\(stale.output)")
        #expect(stale.output.contains("queries do not use it, and the next write to Person rebuilds it"), "\(stale.output)")
        #expect(!stale.output.contains("lacks the entry") && !stale.output.contains("does not decode")
                && !stale.output.contains("entries for no record"), "\(stale.output)")
        let plan = try StrataCLI.run(["explain", store, "Person", #"name ==[cd] "orsted""#])
        #expect(!plan.output.contains("name[cd]"), "a stale index is not used: \(plan.output)")
        #expect(try count("Person", #"name ==[cd] "ØRSTED""#) == "1")
        // Any write to the entity rebuilds it, even one that deletes nothing.
        let write = try StrataCLI.run(["delete", store, "Person", "id == 99"])
        #expect(write.status == 0, "\(write.error)")
        let rebuilt = try StrataCLI.run(["verify", store])
        #expect(rebuilt.status == 0, "\(rebuilt.output)")
        #expect(rebuilt.output.contains("Person: 2 records, 2 index entries: ok"), "\(rebuilt.output)")
        #expect(try StrataCLI.run(["explain", store, "Person", #"name ==[cd] "orsted""#]).output.contains("name[cd]"))
        #expect(try count("Person", #"name ==[cd] "ØRSTED""#) == "1")
    }
}
