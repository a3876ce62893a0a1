import Foundation
import Testing
import TestSupport
@testable import Strata

@Suite struct DescribedEntityTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// The schema-file form of `Member`, as the command-line tool would be given it.
    let schemaJSON = #"""
        {"name": "Member", "primaryKey": "remoteID",
         "fields": [
           {"name": "remoteID", "type": "integer"},
           {"name": "firstName", "type": "string"},
           {"name": "lastName", "type": "string"},
           {"name": "email", "type": "string", "optional": true},
           {"name": "luckyNumber", "type": "integer", "optional": true, "jsonKey": "lucky"},
           {"name": "city", "type": "string", "optional": true},
           {"name": "createdDate", "type": "date", "optional": true, "dateFormat": "millisecondsSince1970"},
           {"name": "tags", "type": {"array": "string"}, "optional": true}
         ],
         "indexes": [
           {"fields": ["lastName"], "collation": "caseAndDiacriticInsensitive"},
           {"fields": ["luckyNumber"]},
           {"fields": ["createdDate"]},
           {"fields": ["email"], "unique": true},
           {"fields": ["tags"], "multiValue": true}
         ]}
        """#

    @Test func aDescriptionReadsFromItsSchemaFileAndDerivesFromARecordType() throws {
        let description = try JSONDecoder().decode(EntityDescription.self, from: Data(schemaJSON.utf8))
        try description.validate()
        #expect(description.field("luckyNumber")?.jsonKey == "lucky")
        #expect(description.field("tags")?.type == .array(.string))
        #expect(description.field("createdDate")?.dateFormat == .millisecondsSince1970)
        let derived = try EntityDescription(Member.self)
        #expect(derived.name == "Member" && derived.primaryKey == "remoteID")
        #expect(derived.fields.map(\.name) == ["remoteID", "firstName", "lastName", "email", "luckyNumber", "city", "score",
                                               "active", "avatarURL", "createdDate", "updatedAt", "tags"])
        #expect(derived.field("score")?.type == .double && derived.field("score")?.isOptional == true)
        #expect(derived.field("firstName")?.isOptional == false)
        #expect(derived.field("avatarURL")?.type == .url)
        #expect(derived.indexDescriptors.map(\.name) == Member.indexes.map(\.name))
        let everything = try EntityDescription(Everything.self)
        #expect(everything.field("mood")?.type == .string)
        #expect(everything.field("address")?.type == .object([FieldDescription("street", .string), FieldDescription("zip", .integer, optional: true)]))
        #expect(everything.field("addresses")?.type == .array(.object([FieldDescription("street", .string), FieldDescription("zip", .integer, optional: true)])))
        #expect(everything.field("attributes")?.type == .any)
        #expect(everything.field("data")?.type == .data)
        // Round trip through the schema-file format.
        let text = try JSONEncoder().encode(everything)
        #expect(try JSONDecoder().decode(EntityDescription.self, from: text) == everything)
    }

    @Test(arguments: [
        (#"{"name": "E", "primaryKey": "id", "fields": []}"#, "it has no fields"),
        (#"{"name": "E", "primaryKey": "id", "fields": [{"name": "x", "type": "string"}]}"#, "is not one of its fields"),
        (#"{"name": "E", "primaryKey": "id", "fields": [{"name": "id", "type": "integer", "optional": true}]}"#, "cannot be optional"),
        (#"{"name": "E", "primaryKey": "id", "fields": [{"name": "id", "type": "data"}]}"#, "no ordered key encoding"),
        (#"{"name": "E", "primaryKey": "id", "fields": [{"name": "id", "type": "string"}, {"name": "id", "type": "string"}]}"#, "declared twice"),
        (#"{"name": "E", "primaryKey": "id", "fields": [{"name": "id", "type": "string"}], "indexes": [{"fields": ["nope"]}]}"#, "unknown field 'nope'"),
        (#"{"name": "E", "primaryKey": "id", "fields": [{"name": "id", "type": "string"}], "indexes": [{"fields": ["id"], "multiValue": true}]}"#, "needs an array field"),
    ])
    func invalidDescriptionsAreRefusedWithTheReason(json: String, expected: String) throws {
        let description = try JSONDecoder().decode(EntityDescription.self, from: Data(json.utf8))
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data("[]".utf8), entity: description) }
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func unknownFieldTypesAreADecodingError() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(FieldDescription.self, from: Data(#"{"name": "x", "type": "integr"}"#.utf8))
        }
    }

    @Test func recordsImportedThroughADescriptionReadAsTheSwiftType() throws {
        let description = try JSONDecoder().decode(EntityDescription.self, from: Data(schemaJSON.utf8))
        let json = #"""
            [{"id": 1, "first_name": "Gob", "last_name": "Bluth", "lucky": 21, "created_at": 1392352210000, "tags": ["magic", "vip"]},
             {"id": 2, "first_name": "Lindsay", "last_name": "Fünke", "email": "l@f", "tags": ["vip"]}]
            """#
        let report = try store.importJSON(Data(json.utf8), entity: description)
        #expect(report.inserted == 2)
        #expect(try store.indexesConsistent())
        let gob = try #require(try store.read { tx in try tx.get(Member.self, key: 1) })
        #expect(gob.luckyNumber == 21 && gob.tags == ["magic", "vip"] && gob.createdDate == Date(timeIntervalSince1970: 1_392_352_210))
        // The indexes built from the description serve the typed queries.
        #expect(try store.read { tx in try tx.query(Member.self).where("lastName ==[cd] %@", "funke").ids() } == [2])
        let plan = try store.read { tx in
            try tx.query(Member.self).where("lastName ==[cd] %@", "funke").using(index: "lastName[cd]").explain().description
        }
        #expect(plan.hasPrefix("IndexScan(Member.lastName[cd]"))
        #expect(try store.read { tx in try tx.query(Member.self).where("ANY tags == 'vip'").using(index: "tags").ids() } == [1, 2])
        // A typed write to the same entity keeps the description's indexes in step.
        try store.write { tx in
            var lindsay = try #require(try tx.get(Member.self, key: 2))
            lindsay.lastName = "Bluth"
            try tx.upsert(lindsay)
        }
        #expect(try store.indexesConsistent())
        #expect(try store.read { tx in try tx.query(Member.self).where("lastName ==[cd] 'BLUTH'").count() } == 2)
    }

    @Test func descriptionImportsUpdateTypedRecordsAndKeepTheirIndexes() throws {
        try store.write { tx in
            var gob = Member(1, "Gob", "Bluth", lucky: 21, city: "Berlin", email: "gob@bluth")
            gob.tags = ["magic"]
            try tx.insert(gob)
        }
        let minimal = EntityDescription(name: "Member", primaryKey: "remoteID", fields: [
            FieldDescription("remoteID", .integer), FieldDescription("firstName", .string), FieldDescription("lastName", .string),
            FieldDescription("city", .string, optional: true),
        ])
        let report = try store.importJSON(Data(#"[{"id": 1, "city": "Rome"}, {"id": 2, "first_name": "Ann", "last_name": "Veal"}]"#.utf8), entity: minimal)
        #expect((report.updated, report.inserted) == (1, 1))
        let gob = try #require(try store.read { tx in try tx.get(Member.self, key: 1) })
        #expect(gob.city == "Rome" && gob.email == "gob@bluth" && gob.luckyNumber == 21 && gob.tags == ["magic"])
        #expect(try store.indexesConsistent())
        #expect(try store.read { tx in try tx.query(Member.self).where(\.luckyNumber == 21).ids() } == [1])
    }

    @Test func aDescriptionKeyedByAnotherFieldIsRefused() throws {
        try store.write { tx in try tx.insert(Member(1, "a", "b")) }
        let other = EntityDescription(name: "Member", primaryKey: "email", fields: [FieldDescription("email", .string)])
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data("[]".utf8), entity: other) }
        #expect(error.code == .incompatibleStore)
        #expect(error.message.contains("keys records by 'remoteID'"))
    }
}
