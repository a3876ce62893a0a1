import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataImport

/// The formats an import reads (`ImportOptions.InputFormat`): JSON Lines and keyed objects beside
/// JSON documents, told from the input or named; the errors that name a bad line or member; and
/// the limit on a record's fields.
@Suite struct InputFormatTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// Five members as an API sends them, as one JSON array and as JSON Lines.
    static let members: [(id: Int, first: String, last: String, city: String)] = [
        (1, "Gob", "Bluth", "Berlin"), (2, "Lindsay", "Fünke", "Paris"), (3, "Tobias", "Fünke", "Berlin"),
        (4, "Buster", "Bluth", "Paris"), (5, "Lucille", "Bluth", "Berlin"),
    ]
    static let array = membersJSON(members)
    static let lines = Data(members.map { m in
        #"{"id": \#(m.id), "first_name": "\#(m.first)", "last_name": "\#(m.last)", "city": "\#(m.city)", "lucky_number": \#(m.id % 7)}"#
    }.joined(separator: "\n").utf8)

    // MARK: JSON Lines

    @Test(arguments: [1, 3, 7, 1 << 20])
    func jsonLinesHoldTheRecordsOfTheArrayWithTheirLines(chunk: Int) throws {
        let array = #"[{"id": 1, "tags": ["a"]}, {"id": 2, "nested": {"b": null}}, {"id": 3}]"#
        let lines = "{\"id\": 1, \"tags\": [\"a\"]}\r\n\n   \n  {\"id\": 2, \"nested\": {\"b\": null}}\n{\"id\": 3}\n\n"
        let expected = try parseRecords(array)
        #expect(try parseRecords(lines, chunk: chunk, format: .jsonLines) == expected)
        #expect(try parseRecords(lines, chunk: chunk, format: .detected) == expected)
        #expect(try parseRecords("", chunk: chunk, format: .jsonLines) == [])
        #expect(try parseRecords("\n\n", chunk: chunk, format: .jsonLines) == [])
        #expect(try parseRecords(#"{"id": 9}"#, chunk: chunk, format: .jsonLines) == [.object([JSONMember(key: "id", value: .int(9))])])
    }

    @Test(arguments: [
        // The line that ends inside its record is named where it ends.
        ("{\"id\": 1}\n{\"id\": 2\n{\"id\": 3}\n", 2, 9, "line 2 ends inside its record"),
        ("{\"id\": 1}\n[1, 2\n", 2, 6, "line 2 ends inside its record"),
        ("{\"id\": 1,\n \"name\": \"x\"}\n", 1, 10, "line 1 ends inside its record"),
        // A second value on one line.
        ("{\"id\": 1} {\"id\": 2}\n", 1, 11, "after the record on line 1"),
        ("{\"id\": 1}\n{\"id\": 2}, \n", 2, 10, "unexpected ',' after the record on line 2"),
        // Malformed JSON inside a line, at its place in that line.
        ("{\"id\": 1}\n\n{\"id\": 2,}\n", 3, 10, "a trailing comma before '}'"),
        ("{\"id\": 1}\n{\"id\": 2, \"name\": \"a\u{01}\"}\n", 2, 21, "unescaped control character 0x1"),
        // A line that ends inside a string.
        ("{\"id\": 1, \"name\": \"Ann\n{\"id\": 2}\n", 1, 23, "line 1 ends inside its record"),
    ])
    func aBadLineIsNamedByItsLineAndColumn(text: String, line: Int, column: Int, message: String) throws {
        for chunk in [1, 2, 5, 1 << 20] {
            let error = try #require(parseFailure(text, chunk: chunk, format: .jsonLines))
            #expect(error.code == .malformedJSON)
            #expect(error.position?.line == line && error.position?.column == column, "\(error.message)")
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    // MARK: Telling the format

    @Test(arguments: [
        ("[{\"id\": 1}]", nil, ImportOptions.InputFormat.json),
        ("  {\"id\": 1, \"address\": {\"city\": \"x\"}}", nil, .json),
        ("{\"a\": {\"id\": 1}, \"b\": {}}", nil, .keyedObjects),
        ("{\"a\": {\"id\": 1}, \"b\": 2}", nil, .json),
        ("{\"version\": 2, \"a\": {\"id\": 1}}", nil, .json),
        ("{}", nil, .json),
        ("{\"id\": 1}\n{\"id\": 2}", nil, .jsonLines),
        ("{\"id\": 1}\r\n\r\n   {\"id\": 2}\n", nil, .jsonLines),
        ("{\"a\": {}}\n{\"b\": {}}", nil, .jsonLines),
        ("{\n  \"id\": 1\n}\n{\"id\": 2}", nil, .jsonLines),
        ("{\"id\": 1} {\"id\": 2}", nil, .json),
        ("{\"id\": 1}\n[1]", nil, .json),
        ("", nil, .json),
        ("42", nil, .json),
        ("{\"data\": {\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}, \"page\": 1}", "data", .keyedObjects),
        ("{\"data\": [{\"x\": 1}]}", "data", .json),
        ("{\"data\": {\"x\": 1}}", "data", .json),
    ] as [(String, String?, ImportOptions.InputFormat)])
    func theFormatIsToldFromTheInput(text: String, rootKey: String?, format: ImportOptions.InputFormat) throws {
        for chunk in [1, 3, 1 << 20] {
            let told = try JSONParser.detectedFormat(of: TinyChunks(bytes: Array(text.utf8), size: chunk), rootKey: rootKey, limits: JSONLimits())
            #expect(told == format, "\(text)")
        }
    }

    @Test func aPrettyPrintedRecordBeforeASecondIsNamedAsTheLineThatEndsInsideIt() throws {
        let error = try #require(parseFailure("{\n  \"id\": 1\n}\n{\"id\": 2}\n", format: .detected))
        #expect(error.code == .malformedJSON && error.position?.line == 1 && error.position?.column == 2, "\(error.message)")
        #expect(error.message.contains("line 1 ends inside its record; JSON Lines hold each record whole on one line"))
    }

    // MARK: Keyed objects

    @Test(arguments: [1, 4, 1 << 20])
    func keyedObjectsAreRecordsWithTheirNamesInTheKeyField(chunk: Int) throws {
        let text = #"{"3040051": {"name": "les Escaldes"}, "7": {"name": "b", "id": 7}, "x": {"id": "x"}, "e": {}}"#
        let records = try parseRecords(text, chunk: chunk, format: .detected)
        #expect(records == [
            .object([JSONMember(key: "id", value: .string("3040051")), JSONMember(key: "name", value: .string("les Escaldes"))]),
            .object([JSONMember(key: "name", value: .string("b")), JSONMember(key: "id", value: .int(7))]),   // its own id, the name
            .object([JSONMember(key: "id", value: .string("x"))]),
            .object([JSONMember(key: "id", value: .string("e"))]),
        ])
        let coded = try parseRecords(#"{"DE": {"name": "Germany"}}"#, chunk: chunk, format: .keyedObjects, keyField: "code")
        #expect(coded == [.object([JSONMember(key: "code", value: .string("DE")), JSONMember(key: "name", value: .string("Germany"))])])
        let wrapped = try parseRecords(#"{"page": 1, "data": {"a": {"n": 1}}, "more": false}"#, rootKey: "data", chunk: chunk, format: .detected)
        #expect(wrapped == [.object([JSONMember(key: "id", value: .string("a")), JSONMember(key: "n", value: .int(1))])])
        #expect(try parseRecords("{}", chunk: chunk, format: .keyedObjects) == [])
    }

    @Test(arguments: [
        (#"{"a": {"id": "a"}, "b": {"name": "x", "id": "c"}}"#, 2, 20, #"record 2 (the member "b") holds "id": "c", not its name"#),
        (#"{"7": {"id": 8}}"#, 1, 2, #"record 1 (the member "7") holds "id": 8, not its name"#),
        (#"{"a": {"id": "a"}, "b": 5}"#, 2, 20, #"record 2 (the member "b") is an integer, not an object"#),
    ])
    func aKeyedObjectThatIsNotItsNamesRecordIsRefusedNamingTheMember(text: String, record: Int, column: Int, message: String) throws {
        let error = try #require(parseFailure(text, format: .keyedObjects))
        #expect(error.code == .invalidRecord && error.record == record, "\(error)")
        #expect(error.position?.line == 1 && error.position?.column == column, "\(error.message)")
        #expect(error.message.contains(message), "\(error.message)")
        // Another value where the name belongs: the key field can be named otherwise.
        #expect(error.message.contains("not its name") == error.message.contains("(ImportOptions.keyField, strata import --key-field NAME)"),
                "\(error.message)")
    }

    // MARK: The import API

    /// Every `importJSON` that reads a file or a stream reads JSON Lines, through the one pipeline.
    @Test func jsonLinesImportThroughEveryEntryPoint() async throws {
        try await store.importJSON(Self.array, as: Member.self)
        let expected = try store.members()
        let url = URL(fileURLWithPath: dir.path("members.jsonl"))
        try Self.lines.write(to: url)
        // The synchronous forms, called where they are the only candidates.
        let synchronous: [(String, (Store) throws -> ImportReport)] = [
            ("data", { try $0.importJSON(Self.lines, as: Member.self) }),
            ("file", { try $0.importJSON(contentsOf: url, as: Member.self) }),
            ("batches", { try $0.importJSON(Self.lines, as: Member.self, options: ImportOptions(batchSize: 2)) }),
            ("named", { try $0.importJSON(Self.lines, as: Member.self, options: ImportOptions(inputFormat: .jsonLines)) }),
            ("described", { try $0.importJSON(contentsOf: url, entity: try EntityDescription(Member.self)) }),
        ]
        let imports: [(String, (Store) async throws -> ImportReport)] = synchronous.map { name, run in (name, { try run($0) }) } + [
            ("async data", { try await $0.importJSON(Self.lines, as: Member.self) }),
            ("async file", { try await $0.importJSON(contentsOf: url, as: Member.self) }),
            ("bytes", { store in
                let stream = AsyncStream<UInt8> { continuation in
                    for byte in Self.lines { continuation.yield(byte) }
                    continuation.finish()
                }
                return try await store.importJSON(bytes: stream, as: Member.self)
            }),
        ]
        for (name, run) in imports {
            let (other, otherDir) = try makeStore()
            let report = try await run(other)
            #expect(report.inserted == 5, "\(name): \(report)")
            #expect(try other.members() == expected, "\(name)")
            #expect(try other.indexesConsistent(), "\(name)")
            withExtendedLifetime(otherDir) {}
        }
        // Named as a JSON document, JSON Lines are the malformed JSON they are as one.
        let error = try #require(throws: StrataError.self) {
            try store.importJSON(Self.lines, as: Member.self, options: ImportOptions(inputFormat: .json))
        }
        #expect(error.code == .malformedJSON && error.position?.line == 2 && error.position?.column == 1, "\(error.message)")
    }

    /// The pipeline reads JSON Lines records straight from the parser's bytes: what it maps is
    /// what the general path maps, and what the array's elements map to.
    @Test(arguments: [1, 3, 16, 1 << 20])
    func jsonLinesMapAsTheArraysElementsDoOnBothPaths(chunk: Int) throws {
        let elements = try parseRecords(DirectMappingTests.records)
        let lines = elements.map(\.jsonText).joined(separator: "\n")
        let array = "[" + elements.map(\.jsonText).joined(separator: ",\n") + "]"
        let options = ImportOptions(inputFormat: .jsonLines)
        let direct = try DirectMappingTests.run(lines, chunk: chunk, options: options, direct: true)
        let general = try DirectMappingTests.run(lines, chunk: chunk, options: options, direct: false)
        let fromArray = try DirectMappingTests.run(array, chunk: chunk, direct: true)
        #expect(direct.error == nil && general.error == nil)
        #expect(direct.items == general.items)
        #expect(direct.items.count == elements.count)
        for (line, (item, element)) in zip(direct.items, fromArray.items).enumerated() {
            #expect(item.position.line == line + 1 && item.position.column == 1)
            #expect((item.failure, item.key, item.fields) == (element.failure, element.key, element.fields))
        }
    }

    @Test func keyedObjectsImportARecordAMember() throws {
        let places = Data(#"{"3040051": {"name": "les Escaldes", "population": 15853}, "3041563": {"name": "Andorra la Vella", "population": 20430}}"#.utf8)
        let described = try EntityDescription.inferred(name: "Place", fromJSON: places)
        #expect(described.primaryKey == "id" && described.field("id")?.type == .string && !described.primaryKeyIsGenerated)
        let report = try store.importJSON(places, entity: described)
        #expect(report.inserted == 2)
        let names = try store.read { tx in try tx.query(entity: "Place").all().map { "\($0["id"]!) \($0["name"]!)" } }
        #expect(names == [#""3040051" "les Escaldes""#, #""3041563" "Andorra la Vella""#])

        // The objects' own field for the key, numbers equal to the names, keeps its type.
        let numbered = Data(#"{"3040051": {"geonameid": 3040051, "name": "les Escaldes"}}"#.utf8)
        let byID = try EntityDescription.inferred(name: "Geo", fromJSON: numbered, keyField: "geonameid")
        #expect(byID.primaryKey == "geonameid" && byID.field("geonameid")?.type == .integer)
        #expect(try store.importJSON(numbered, entity: byID, options: ImportOptions(keyField: "geonameid")).inserted == 1)
        // A batched import reads them the same way.
        let batched = try store.importJSON(places, entity: described, options: ImportOptions(batchSize: 1))
        #expect(batched.unchanged == 2 && batched.records == 2 && batched.transactions > 1, "\(batched)")
        // Named as a JSON document, the object is one record, as before keyed objects were told.
        let whole = try #require(throws: StrataError.self) {
            try EntityDescription.inferred(name: "Place", fromJSON: places, inputFormat: .json)
        }
        #expect(whole.code == .invalidValue && whole.message.contains("no record field is named 'id'"), "\(whole.message)")
    }

    @Test func aKeyFieldWithoutKeyedObjectsAndARootKeyWithJSONLinesAreRefused() throws {
        let keyField = try #require(throws: StrataError.self) {
            try store.importJSON(Self.array, as: Member.self, options: ImportOptions(keyField: "code"))
        }
        #expect(keyField.code == .invalidValue && keyField.message.contains(#"the key field "code""#), "\(keyField.message)")
        #expect(keyField.message.contains("a JSON array or one record object"), "\(keyField.message)")
        let rootKey = try #require(throws: StrataError.self) {
            try store.importJSON(Self.lines, as: Member.self, options: ImportOptions(rootKey: "users", inputFormat: .jsonLines))
        }
        #expect(rootKey.code == .invalidValue && rootKey.message.contains("no root key"), "\(rootKey.message)")
        #expect(try store.members().isEmpty)
    }

    // MARK: Wide records

    /// A record of `count` members: the key and `count - 1` string fields.
    static func wideRecord(_ count: Int, id: Int = 1) -> String {
        "{\"id\": \(id), " + (1..<count).map { "\"f\($0)\": \"v\"" }.joined(separator: ", ") + "}"
    }

    @Test func aRecordWithMoreFieldsThanTheLimitFailsOnEveryPath() throws {
        let description = EntityDescription(name: "Wide", primaryKey: "id", fields: [FieldDescription("id", .integer)])
        let limits = JSONLimits(maximumRecordFields: 4)
        let inputs = [
            ("array", "[\(Self.wideRecord(4)), \(Self.wideRecord(5, id: 2))]", 2),   // read from the parser's bytes
            ("object", Self.wideRecord(5), 1),                                        // parsed whole
            ("lines", "\(Self.wideRecord(4))\n\(Self.wideRecord(5, id: 2))", 2),
            ("keyed", #"{"1": {"f1": 1, "f2": 2, "f3": 3, "f4": 4}}"#, 1),           // four members, and its key
        ]
        for (name, text, record) in inputs {
            let error = try #require(throws: StrataError.self, "\(name)") {
                try store.importJSON(Data(text.utf8), entity: description, options: ImportOptions(limits: limits))
            }
            #expect(error.code == .invalidRecord && error.record == record, "\(name): \(error)")
            #expect(error.message.hasPrefix("record \(record): has 5 fields, more than the 4 a record may have (JSONLimits.maximumRecordFields"),
                    "\(name): \(error.message)")
            #expect(error.message.contains("keyed objects"), "\(error.message)")
            let skipped = try store.importJSON(Data(text.utf8), entity: description, options: ImportOptions(onError: .skip, dryRun: true, limits: limits))
            #expect(skipped.skipped == 1, "\(name): \(skipped)")
            let allowed = try store.importJSON(Data(text.utf8), entity: description,
                                               options: ImportOptions(dryRun: true, limits: JSONLimits(maximumRecordFields: 5)))
            #expect(allowed.skipped == 0 && allowed.failures.isEmpty, "\(name): \(allowed)")
        }
        // The default limit: 4,096 fields.
        let wide = Data(Self.wideRecord(4_097).utf8)
        let error = try #require(throws: StrataError.self) { try store.importJSON(wide, entity: description) }
        #expect(error.message.contains("has 4,097 fields, more than the 4,096"), "\(error.message)")
        #expect(try store.importJSON(Data(Self.wideRecord(4_096).utf8), entity: description).inserted == 1)
    }

    @Test func inferenceRefusesAWideRecordNamingTheMembersThatAreNotObjects() throws {
        let mostlyObjects = "{\"version\": 3, " + (1...5).map { "\"\($0)\": {\"n\": \($0)}" }.joined(separator: ", ") + "}"
        let error = try #require(throws: StrataError.self) {
            try EntityDescription.inferred(name: "P", fromJSON: Data(mostlyObjects.utf8), generatingKey: true, limits: JSONLimits(maximumRecordFields: 5))
        }
        #expect(error.code == .invalidRecord && error.record == 1, "\(error)")
        #expect(error.message.hasPrefix("P record 1: has 6 fields, more than the 5 a record may have"), "\(error.message)")
        #expect(error.message.hasSuffix(#"all its members are objects but 1: "version" (an integer)"#), "\(error.message)")
        let strings = "{" + (1...6).map { "\"k\($0)\": \"v\"" }.joined(separator: ", ") + "}"
        let plain = try #require(throws: StrataError.self) {
            try EntityDescription.inferred(name: "P", fromJSON: Data(strings.utf8), generatingKey: true, limits: JSONLimits(maximumRecordFields: 5))
        }
        #expect(!plain.message.contains("all its members are objects"), "\(plain.message)")
    }
}
