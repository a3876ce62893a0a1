import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataFormat

/// The catalog's entries read with the store's own parser (`EntitySchema(catalogEntry:)`) give what
/// `JSONDecoder` gave with the types' `Decodable` forms (CatalogJSONReference.swift): on random
/// entries as the catalog writes them, on entries written by earlier versions or by hand, and in
/// refusing the same broken ones.
@Suite struct CatalogJSONTests {
    /// The bytes `Catalog.save` writes for `schema`.
    static func saved(_ schema: EntitySchema) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(schema))
    }

    /// What `JSONDecoder` made of `bytes`, or nil where it refused them.
    static func reference(_ bytes: [UInt8]) -> EntitySchema? {
        try? JSONDecoder().decode(EntitySchema.self, from: Data(bytes))
    }

    /// Both readers read `text` to the same schema.
    static func expectAgreement(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let read = try? EntitySchema(catalogEntry: bytes)
        #expect(read != nil, "\(text)", sourceLocation: sourceLocation)
        #expect(read == reference(bytes), "\(text)", sourceLocation: sourceLocation)
    }

    @Test func randomEntriesReadAsJSONDecoderReadsThem() throws {
        var random = SeededGenerator(seed: 0x5EED_CA7A)
        for round in 0..<400 {
            let schema = RandomCatalog.schema(&random)
            let bytes = try Self.saved(schema)
            let read = try EntitySchema(catalogEntry: bytes)
            let reference = try #require(Self.reference(bytes), "round \(round)")
            #expect(read == reference, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func entriesOfEarlierVersionsAndByHandReadAsJSONDecoderReadsThem() {
        let field = #"{"path":["name"],"collation":"caseAndDiacriticInsensitive","kind":"string"}"#
        let base = #""name":"User","primaryKey":"id","recordsDatabase":"records\/User","fields":{"fields":{"1":"id","2":"name"}}"#
        for text in [
            "{\(base)}",                                                                 // before indexes were written
            #"{\#(base),"indexes":[{"name":"n","fields":[\#(field)],"isUnique":false,"isMultiValue":false}]}"#,   // no foldingVersion: 1
            #"{\#(base),"indexes":[{"name":"n","fields":[\#(field)],"isUnique":true,"isMultiValue":false,"foldingVersion":null}]}"#,
            #"{\#(base),"primaryKeyKind":null,"description":null,"relationships":null,"defaults":null}"#,
            #"{\#(base),"primaryKeyKind":"integer","unknown":{"nested":[1,2]},"alsoUnknown":true}"#,
            #"{"name":"First","name":"Second","primaryKey":"id","recordsDatabase":"r","fields":{"fields":{"1":"a","1":"b"}}}"#,
            #"{\#(base),"statistics":{"n":{"fields":[\#(field)],"entries":2.0,"distinctLeading":1e1,"distinctKeys":3,"frequent":[{"key":[1.0,255],"entries":-0}]}}}"#,
            #"{\#(base),"defaults":{"name":[0,1,2],"name":[3]},"renamedFields":{"old":"name"},"indexDatabases":{"n":"index\/X\/n"}}"#,
            #"{\#(base),"relationships":[{"name":"c","kind":"toOne","target":"C","keyField":"cID","inverse":null,"deleteRule":"cascade"}]}"#,
            #"{\#(base),"fullTextIndexes":[{"name":"t","fields":["name"],"weights":[2,1e0,0.5,18446744073709551616],"stemming":"english","stopWords":"none","positions":true,"tokenizerVersion":1.0,"foldingVersion":1}]}"#,
            #"{\#(base),"fullTextIndexes":null}"#,
            "\n  {\(base)}  \n",
            // The description, in its Codable form, with defaults of every kind of JSON value.
            #"{\#(base),"description":{"name":"User","primaryKey":"id","fields":[{"name":"id","type":"integer"},"#
                + #"{"name":"a","type":{"array":"string"},"optional":true,"jsonKey":"A","dateFormat":null,"default":[1,2.0,"x",null,{"b":1,"a":[true]}]},"#
                + #"{"name":"o","type":{"array":null,"object":[{"name":"d","type":"date","dateFormat":"secondsSince1970"}]},"default":null},"#
                + #"{"name":"n","type":"double","default":9223372036854775808},{"name":"m","type":"double","default":-0.0},"#
                + #"{"name":"p","type":"double","default":1e300},{"name":"q","type":"any","default":{"k":1,"k":2}}],"#
                + #""indexes":[{"fields":["a"],"unique":true},{"fields":["n"],"collation":"caseInsensitive","multiValue":false}],"#
                + #""relationships":[{"name":"r","kind":"toMany","target":"T","keyField":"a","deleteRule":"deny"}],"generatedKey":true}}"#,
        ] {
            Self.expectAgreement(text)
        }
    }

    @Test func brokenEntriesAreRefusedByBoth() {
        let base = #""name":"User","primaryKey":"id","recordsDatabase":"r""#
        let field = #"{"path":["a"],"collation":"binary","kind":"string"}"#
        for text in [
            "", "{", "[]", "null", #"{\#(base)}"#,                                       // no field table
            #"{\#(base),"fields":{"fields":{"0":"a"}}}"#, #"{\#(base),"fields":{"fields":{"x":"a"}}}"#,
            #"{\#(base),"fields":{"fields":{"1":2}}}"#, #"{\#(base),"fields":null}"#, #"{\#(base),"fields":{}}"#,
            #"{\#(base),"fields":{"fields":{}}} x"#, #"{"name":1,"primaryKey":"id","recordsDatabase":"r","fields":{"fields":{}}}"#,
            #"{\#(base),"fields":{"fields":{}},"primaryKeyKind":"integr"}"#,
            #"{\#(base),"fields":{"fields":{}},"indexes":[{"name":"n","fields":[\#(field)],"isUnique":0,"isMultiValue":false}]}"#,
            #"{\#(base),"fields":{"fields":{}},"indexes":[{"name":"n","fields":[\#(field)],"isUnique":false}]}"#,
            #"{\#(base),"fields":{"fields":{}},"indexes":[{"name":"n","fields":[\#(field)],"isUnique":false,"isMultiValue":false,"foldingVersion":1.5}]}"#,
            #"{\#(base),"fields":{"fields":{}},"defaults":{"a":[256]}}"#, #"{\#(base),"fields":{"fields":{}},"defaults":{"a":[-1]}}"#,
            #"{\#(base),"fields":{"fields":{}},"defaults":{"a":"AAE="}}"#, #"{\#(base),"fields":{"fields":{}},"renamedFields":[]}"#,
            #"{\#(base),"fields":{"fields":{}},"relationships":[{"name":"c","kind":"toMany","target":"C","keyField":"k","deleteRule":"nullify"}]}"#,
            #"{\#(base),"fields":{"fields":{}},"description":{"name":"U","primaryKey":"id","fields":[{"name":"id","type":"integr"}]}}"#,
            #"{\#(base),"fields":{"fields":{}},"description":{"name":"U","primaryKey":"id","fields":[{"name":"id","type":{}}]}}"#,
            #"{\#(base),"fields":{"fields":{}},"description":{"name":"U","primaryKey":"id","fields":[{"name":"id","type":7}]}}"#,
            #"{\#(base),"fields":{"fields":{}},"description":{"name":"U","primaryKey":"id","fields":[{"name":"id","type":"string","optional":"yes"}]}}"#,
            #"{\#(base),"fields":{"fields":{}},"description":{"name":"U","primaryKey":"id","fields":[{"name":"id","type":"string","default":1e999}]}}"#,
            #"{\#(base),"fields":{"fields":{}},"description":{"name":"U","fields":[]}}"#,
            #"{\#(base),"fields":{"fields":{}},"fullTextIndexes":[{"name":"t","fields":["a"],"weights":[1],"stemming":"porter","stopWords":"none","positions":true,"tokenizerVersion":1,"foldingVersion":1}]}"#,
            #"{\#(base),"fields":{"fields":{}},"fullTextIndexes":[{"name":"t","fields":["a"],"weights":["1"],"stemming":"none","stopWords":"none","positions":true,"tokenizerVersion":1,"foldingVersion":1}]}"#,
            #"{\#(base),"fields":{"fields":{}},"fullTextIndexes":[{"name":"t","fields":["a"],"weights":[1],"stemming":"none","stopWords":"none","positions":true,"foldingVersion":1}]}"#,
            #"{\#(base),"fields":{"fields":{}},"fullTextIndexes":{"name":"t"}}"#,
            #"{\#(base),"fields":{"fields":{}},"statistics":{"n":{"fields":[],"entries":1,"distinctLeading":1,"distinctKeys":1,"frequent":[{"key":[1],"entries":1e30}]}}}"#,
        ] {
            #expect((try? EntitySchema(catalogEntry: Array(text.utf8))) == nil, "\(text)")
            #expect(Self.reference(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func theFormatEntryReadsAsJSONDecoderReadsIt() throws {
        for text in [#"{"version":1}"#, #"{"version":1.0,"other":"x"}"#, #"{"version":"1"}"#, #"{}"#, #"{"version":null}"#, "1"] {
            let read = try? Catalog.Format(catalogEntry: Array(text.utf8)).version
            let reference = try? JSONDecoder().decode(Catalog.Format.self, from: Data(text.utf8)).version
            #expect(read == reference, "\(text)")
        }
    }

    @Test func anUnreadableEntryNamesWhereItIsBroken() {
        let text = #"{"name":"U","primaryKey":"id","recordsDatabase":"r","fields":{"fields":{}},"indexes":[{"name":"n","fields":[],"isUnique":"no","isMultiValue":false}]}"#
        #expect(throws: StrataError.self) { try EntitySchema(catalogEntry: Array(text.utf8)) }
        do {
            _ = try EntitySchema(catalogEntry: Array(text.utf8))
        } catch let error as StrataError {
            #expect(error.message == "indexes[0].isUnique: expected true or false, found a string")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
