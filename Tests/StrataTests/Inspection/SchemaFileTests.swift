import Foundation
import Testing
@testable import Strata
@testable import StrataImport

/// The schema-file format of the command-line tool, and schemas inferred from JSON.
@Suite struct SchemaFileTests {
    /// The issue's example, verbatim but for `lastName` and `email`, which its indexes need.
    let example = #"""
        { "entities": { "User": {
            "primaryKey": "remoteID",
            "fields": {
              "remoteID":    {"type": "int", "json": "id"},
              "firstName":   {"type": "string"},
              "lastName":    {"type": "string"},
              "email":       {"type": "string", "optional": true},
              "luckyNumber": {"type": "int", "optional": true},
              "createdDate": {"type": "date", "json": "created_at"},
              "tags":        {"type": "[string]"}
            },
            "indexes": [ {"fields": ["lastName"], "collation": "caseDiacriticInsensitive"},
                         {"fields": ["lastName", "luckyNumber"]},
                         {"fields": ["email"], "unique": true},
                         {"fields": ["tags"], "multiValue": true} ] } } }
        """#

    @Test func theIssuesExampleReadsAndWritesBack() throws {
        let file = try SchemaFile(json: Data(example.utf8))
        let user = try #require(file.entity("User"))
        #expect(user.primaryKey == "remoteID")
        #expect(user.fields.map(\.name) == ["remoteID", "firstName", "lastName", "email", "luckyNumber", "createdDate", "tags"])
        #expect(user.field("remoteID") == FieldDescription("remoteID", .integer, jsonKey: "id"))
        #expect(user.field("tags")?.type == .array(.string))
        #expect(user.indexes[0] == IndexDescription(fields: ["lastName"], collation: .caseAndDiacriticInsensitive))
        #expect(user.indexes[2].isUnique && user.indexes[3].isMultiValue)
        #expect(try SchemaFile(json: Data(file.jsonText.utf8)) == file)
        #expect(try SchemaFile(json: Data(file.jsonValue.jsonText.utf8)) == file)
    }

    @Test(arguments: [
        (#"{"entities": {"U": {"primaryKey": "id", "fields": {"id": {"type": "integr"}}}}}"#, "unknown type 'integr'"),
        (#"{"entities": {"U": {"primaryKey": "key", "fields": {"id": {"type": "int"}}}}}"#, "'key' is not one of its fields"),
        (#"{"entities": {"U": {"fields": {"id": {"type": "int"}}}}}"#, "\"primaryKey\""),
        (#"{"entities": {"U": {"primaryKey": "id", "fields": {"id": {"type": "int", "optional": "yes"}}}}}"#, "\"optional\" must be true or false"),
        (#"{"entities": {"U": {"primaryKey": "id", "fields": {"id": {"type": "int"}}, "indexes": [{"fields": ["x"]}]}}}"#, "unknown field 'x'"),
        (#"{"users": []}"#, "an \"entities\" object"),
    ])
    func invalidSchemasNameTheProblem(json: String, expected: String) throws {
        let error = #expect(throws: StrataError.self) { try SchemaFile(json: Data(json.utf8)) }
        #expect(error?.code == (expected.hasPrefix("unknown field") ? .unknownField : .invalidValue))
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }

    @Test func malformedSchemaFilesSayWhere() throws {
        let error = #expect(throws: StrataError.self) { try SchemaFile(json: Data("{\"entities\": {\n  \"U\": [}".utf8)) }
        #expect(error?.code == .malformedJSON)
        #expect(error?.position?.line == 2)
    }

    @Test func schemasAreInferredFromEveryRecord() throws {
        let json = #"""
            {"users": [
              {"id": 1, "first_name": "Jimmy", "lucky_number": 3, "score": 1, "created_at": "2024-01-02T03:04:05Z",
               "tags": [], "token": "5B1C9F1E-7A38-4B4E-9F0B-2D9A0C6E1A11", "address": {"city": "Pawnee"}},
              {"id": 2, "first_name": "Doogie", "lucky_number": null, "score": 2.5, "created_at": "2024-02-03T04:05:06.5Z",
               "tags": ["vip"], "token": "not a uuid", "extra": true}
            ]}
            """#
        let description = try EntityDescription.inferred(name: "User", fromJSON: Data(json.utf8), rootKey: "users")
        #expect(description.primaryKey == "id")
        #expect(description.fields == [
            FieldDescription("id", .integer),
            FieldDescription("firstName", .string, jsonKey: "first_name"),
            FieldDescription("luckyNumber", .integer, optional: true, jsonKey: "lucky_number"),
            FieldDescription("score", .double),
            FieldDescription("createdAt", .date, jsonKey: "created_at"),
            FieldDescription("tags", .array(.string)),
            FieldDescription("token", .string),
            FieldDescription("address", .any, optional: true),
            FieldDescription("extra", .bool, optional: true),
        ])
        #expect(EntityDescription.conventionalName("avatar_url") == "avatarUrl")
        #expect(EntityDescription.conventionalName("ID") == "id")
    }

    @Test(arguments: [
        (#"[{"name": "x"}]"#, "no record field is named 'id'"),
        (#"[{"id": 1}, {"name": "x"}]"#, "some records lack it"),
        (#"[{"id": {"a": 1}}]"#, "not of a type a key can have (bool, integer, double, float, string, date, uuid)"),
        (#"[]"#, "no records"),
        (#"[1]"#, "expected an object"),
    ])
    func inferenceNeedsAPrimaryKey(json: String, expected: String) throws {
        let error = #expect(throws: StrataError.self) { try EntityDescription.inferred(name: "T", fromJSON: Data(json.utf8)) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }
}

/// Relationships described in schema files: declared, stored, queried and enforced without Swift types.
@Suite struct DescribedRelationshipTests {
    let schema = #"""
        { "entities": {
            "Company": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "name": {"type": "string"}}},
            "Employee": {"primaryKey": "id",
                "fields": {"id": {"type": "int"}, "name": {"type": "string"}, "companyID": {"type": "int", "optional": true},
                           "groupIDs": {"type": "[string]"}},
                "relationships": {
                    "company": {"toOne": "Company", "field": "companyID", "inverse": "employees", "deleteRule": "cascade"},
                    "groups": {"toMany": "Group", "field": "groupIDs", "inverse": "members"}}},
            "Group": {"primaryKey": "id", "fields": {"id": {"type": "string"}, "title": {"type": "string"}}} } }
        """#

    @Test func relationshipsReadWriteAndWork() throws {
        let file = try SchemaFile(json: Data(schema.utf8))
        let employee = try #require(file.entity("Employee"))
        #expect(employee.relationships == [
            RelationshipDescription("company", .toOne, target: "Company", keyField: "companyID", inverse: "employees", deleteRule: .cascade),
            RelationshipDescription("groups", .toMany, target: "Group", keyField: "groupIDs", inverse: "members"),
        ])
        #expect(try SchemaFile(json: Data(file.jsonText.utf8)) == file)

        let (store, dir) = try makeStore()
        _ = dir
        try store.importJSON(Data(#"[{"id": 1, "name": "Acme"}, {"id": 2, "name": "Bluth"}]"#.utf8), entity: file.entity("Company")!)
        try store.importJSON(Data(#"[{"id": "g1", "title": "Chess"}, {"id": "g2", "title": "Magic"}]"#.utf8), entity: file.entity("Group")!)
        try store.importJSON(Data(#"""
            [{"id": 10, "name": "Wile", "company_id": 1, "group_ids": ["g1"]},
             {"id": 11, "name": "Gob", "company_id": 2, "group_ids": ["g1", "g2"]},
             {"id": 12, "name": "Buster", "company_id": 2, "group_ids": []}]
            """#.utf8), entity: employee)
        try store.read { tx throws in
            #expect(try tx.query(entity: "Employee").where("company.name == 'Bluth'", arguments: []).all().map(\.key) == [.int(11), .int(12)])
            #expect(try tx.query(entity: "Company").where("employees.@count > 1", arguments: []).all().map(\.key) == [.int(2)])
            #expect(try tx.query(entity: "Group").where("ANY members.name == 'Gob'", arguments: []).all().map(\.key) == [.string("g1"), .string("g2")])
            #expect(try tx.entityDescription(named: "Employee").relationships == employee.relationships)
            #expect(try tx.entityDescription(named: "Employee").indexes.map(\.fields) == [["companyID"], ["groupIDs"]])
        }
        try store.write { tx throws in
            #expect(try tx.delete(entity: "Company", key: .int(2)))   // cascades to Gob and Buster
            #expect(try tx.delete(entity: "Group", key: .string("g1")))  // nullify: leaves Wile's list
        }
        try store.read { tx throws in
            #expect(try tx.query(entity: "Employee").all().map(\.key) == [.int(10)])
            #expect(try tx.record(entity: "Employee", key: .int(10))?["groupIDs"] == .array([]))
        }
        #expect(try store.indexesConsistent("Employee"))
    }

    @Test func invalidRelationshipsNameTheProblem() throws {
        let bad = #"{"entities": {"E": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "x": {"type": "int"}}, "relationships": {"r": {"toMany": "F", "field": "x"}}}}}"#
        let error = #expect(throws: StrataError.self) { try SchemaFile(json: Data(bad.utf8)) }
        #expect(error?.message.contains("needs an array of keys") == true, "\(error?.message ?? "")")
    }
}
