import Foundation
import Strata
import Testing
import TestSupport

/// Inference that chooses a primary key other than `id`, numbers records that have none, and
/// completes a partial description; and a root key the document lacks.
@Suite struct KeyInferenceTests {
    let json = #"{"3166-1": [{"alpha_2": "DE", "name": "Germany"}, {"alpha_2": "FR", "name": "France", "official_name": "French Republic"}]}"#

    @Test func aNamedPrimaryKeyKeepsItsConventionalNameAndItsJSONKey() throws {
        let description = try EntityDescription.inferred(name: "Country", fromJSON: Data(json.utf8), rootKey: "3166-1", primaryKey: "alpha_2")
        #expect(description.primaryKey == "alpha2")
        #expect(description.fields == [
            FieldDescription("alpha2", .string, jsonKey: "alpha_2"),
            FieldDescription("name", .string),
            FieldDescription("officialName", .string, optional: true, jsonKey: "official_name"),
        ])
        #expect(description.exportedKeys == ["alpha2": "alpha_2", "name": "name", "officialName": "official_name"])
        // The field name chooses it as well.
        #expect(try EntityDescription.inferred(name: "Country", fromJSON: Data(json.utf8), rootKey: "3166-1", primaryKey: "alpha2") == description)
    }

    @Test func recordsWithoutAKeyAreNumberedByPositionAndReimportedInPlace() throws {
        let rows = Data(#"[{"name": "a"}, {"name": "b"}]"#.utf8)
        #expect(throws: StrataError.self) { try EntityDescription.inferred(name: "Row", fromJSON: rows) }
        let description = try EntityDescription.inferred(name: "Row", fromJSON: rows, generatingKey: true)
        #expect(description.primaryKeyIsGenerated)
        #expect(description.primaryKey == "id")
        #expect(description.fields.first == FieldDescription("id", .integer))
        let dir = try TemporaryDirectory("strata-generated")
        let store = try Store(path: dir.path("store"))
        #expect(try store.importJSON(rows, entity: description).inserted == 2)
        let again = try store.importJSON(rows, entity: description)
        #expect(again.inserted == 0 && again.unchanged == 2)
        try store.read { tx throws in
            #expect(try tx.record(entity: "Row", key: .int(2))?["name"] == .string("b"))
            #expect(try tx.entityDescription(named: "Row").primaryKeyIsGenerated)
        }
        let sync = #expect(throws: StrataError.self) { try store.importJSON(rows, entity: description, options: ImportOptions(mode: .sync)) }
        #expect(sync?.message.contains("generated") == true, "\(sync?.message ?? "")")
        // The schema file keeps the mark.
        let file = SchemaFile(entities: [description])
        #expect(try SchemaFile(json: Data(file.jsonText.utf8)) == file)
    }

    @Test func aPartialDescriptionIsCompletedFromTheData() throws {
        let schema = #"{"entities": {"Country": {"primaryKey": "alpha_2", "fields": {"name": {"type": "string", "json": "name"}}, "indexes": [{"fields": ["officialName"]}]}}}"#
        #expect(throws: StrataError.self) { try SchemaFile(json: Data(schema.utf8)) }
        let partial = try #require(SchemaFile(json: Data(schema.utf8), allowingPartial: true).entity("Country"))
        let description = try EntityDescription.inferred(name: "Country", fromJSON: Data(json.utf8), rootKey: "3166-1", completing: partial)
        #expect(description.primaryKey == "alpha2")
        #expect(description.fields.map(\.name) == ["name", "alpha2", "officialName"])   // described first, as written
        #expect(description.field("name")?.jsonKey == "name")
        #expect(description.indexes == [IndexDescription(fields: ["officialName"])])
    }

    @Test func aMissingRootKeyIsNotMalformedJSON() throws {
        let error = #expect(throws: StrataError.self) {
            try EntityDescription.inferred(name: "Country", fromJSON: Data(json.utf8), rootKey: "nope")
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains(#"its member is "3166-1""#) == true, "\(error?.message ?? "")")
    }
}
