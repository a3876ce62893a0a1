@_spi(Format) import StrataFormat

import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// `strata changes … | strata replicate - R` with one line altered: a replica checks each change
/// as a local write would and refuses the forged one, staying at its last whole commit with
/// records and indexes that `verify` passes (issue 29: each of these was applied before).
@Suite struct ForgedFeedTests {
    static let person = EntityDescription(name: "Person", primaryKey: "id", fields: [
        FieldDescription("id", .integer), FieldDescription("name", .string), FieldDescription("city", .string, optional: true),
    ], indexes: [IndexDescription(fields: ["name"])])

    /// One altered line of the feed.
    enum Forgery: String, CaseIterable, CustomStringConvertible {
        case fieldIDNotInTheFieldTable, keyFieldOfTheWrongType, emptyMapForRequiredFields, valueNestedAMillionDeep
        case storedKeyOfAnotherEncoding, storedKeyDisagreeingWithTheKeyField, schemaIndexingAPathNoFieldHas
        case twoFieldIDsWithOneName, fieldTableOfAHundredThousandFields, newEntityClaimingUsersRecordsDatabase
        case userMovedToAnotherRecordsDatabase, newEntityInADatabaseThatIsNoRecordsDatabase
        var description: String { rawValue }
    }

    let dir: TemporaryDirectory
    let primary: Store
    let replica: Store

    init() throws {
        (primary, dir) = try makeStore()
        try primary.enableChangeLog()
        try primary.importJSON(Data(#"[{"id": 1, "name": "Ann", "city": "Bern"}, {"id": 2, "name": "Bob"}]"#.utf8), entity: Self.person)
        try primary.write { tx in try tx.insert([User.sample(1), User.sample(2)]) }
        replica = try Store(path: dir.path("replica"))
        #expect(try replica.replicate(from: primary) == 2)
        try primary.importJSON(Data(#"[{"id": 3, "name": "Cy"}]"#.utf8), entity: Self.person)   // commit 3: one insert
    }

    /// The one line of commit 3, as an object.
    func lastLine() throws -> [String: Any] {
        let bytes = try primary.read { tx in
            var output: [UInt8] = []
            for commit in try tx.loggedCommits(after: 2) { try ChangeFeedLines.append(commit, from: tx, to: &output) }
            return output
        }
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        try #require(lines.count == 1)
        return try #require(try JSONSerialization.jsonObject(with: Data(lines[0])) as? [String: Any])
    }

    func schema(_ entity: String) throws -> EntitySchema {
        try #require(try primary.read { tx in try tx.context(named: entity)?.schema })
    }

    /// A record of Person: the fields given, by name, as CBOR written by `write`.
    func person(_ fields: [(String, (inout CBORWriter) -> Void)], extra: [(Int, (inout CBORWriter) -> Void)] = []) throws -> [UInt8] {
        let ids = try schema("Person").fields.ids
        var writer = CBORWriter(capacity: 64)
        writer.writeHead(.map, UInt64(fields.count + extra.count))
        for (name, value) in fields {
            writer.writeInteger(try #require(ids[name]))
            value(&writer)
        }
        for (id, value) in extra {
            writer.writeInteger(id)
            value(&writer)
        }
        return writer.bytes
    }

    func intKey(_ value: Int64) -> [UInt8] {
        var key: [UInt8] = []
        value.appendOrderedKey(to: &key)
        return key
    }

    func schemaLine(_ line: inout [String: Any], _ schema: EntitySchema) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        line["entity"] = schema.name
        line["operation"] = "schema"
        line["key"] = NSNull()
        line["storedKey"] = ""
        line["stored"] = try encoder.encode(schema).base64EncodedString()
    }

    /// Alters `line` (an insert of Person 3) as `forgery` says.
    func forge(_ forgery: Forgery, _ line: inout [String: Any]) throws {
        let valid: [(String, (inout CBORWriter) -> Void)] = [("id", { $0.writeInteger(3) }), ("name", { $0.writeText("Cy") })]
        switch forgery {
        case .fieldIDNotInTheFieldTable:
            line["stored"] = Data(try person(valid, extra: [(99, { $0.writeText("x") })])).base64EncodedString()
        case .keyFieldOfTheWrongType:
            line["stored"] = Data(try person([("id", { $0.writeText("3") }), ("name", { $0.writeText("Cy") })])).base64EncodedString()
        case .emptyMapForRequiredFields:
            line["stored"] = Data([0xA0]).base64EncodedString()
        case .valueNestedAMillionDeep:
            let deep = [UInt8](repeating: 0x81, count: 1_000_000) + [0x01]
            line["stored"] = Data(try person([("id", { $0.writeInteger(3) }), ("name", { $0.bytes.append(contentsOf: deep) })])).base64EncodedString()
        case .storedKeyOfAnotherEncoding:
            line["storedKey"] = Data([0x50] + Array("3".utf8) + [0, 0]).base64EncodedString()
        case .storedKeyDisagreeingWithTheKeyField:
            line["storedKey"] = Data(intKey(4)).base64EncodedString()
        case .schemaIndexingAPathNoFieldHas:
            var schema = try schema("Person")
            schema.indexes.append(IndexDescriptor(name: "nope", fields: [IndexedField(path: ["nope"], collation: .binary, kind: .string)],
                                                  isUnique: false, isMultiValue: false))
            try schemaLine(&line, schema)
        case .twoFieldIDsWithOneName:
            var schema = try schema("Person")
            schema.fields = FieldTable(names: schema.fields.names.merging([(40, "name")]) { old, _ in old })
            try schemaLine(&line, schema)
        case .fieldTableOfAHundredThousandFields:
            var schema = try schema("Person")
            var names = schema.fields.names
            for id in 10...100_000 { names[id] = "f\(id)" }
            schema.fields = FieldTable(names: names)
            try schemaLine(&line, schema)
        case .newEntityClaimingUsersRecordsDatabase:
            let user = try schema("User")
            var schema = EntitySchema(name: "Evil", primaryKey: "id", recordsDatabase: user.recordsDatabase, fields: FieldTable(names: [1: "id", 2: "x"]),
                                      primaryKeyKind: .integer)
            schema.indexes = []
            try schemaLine(&line, schema)
        case .userMovedToAnotherRecordsDatabase:
            var schema = try schema("User")
            schema.recordsDatabase = "records/Elsewhere"
            try schemaLine(&line, schema)
        case .newEntityInADatabaseThatIsNoRecordsDatabase:
            var schema = EntitySchema(name: "Evil", primaryKey: "id", recordsDatabase: "changelog", fields: FieldTable(names: [1: "id", 2: "x"]),
                                      primaryKeyKind: .integer)
            schema.indexes = []
            try schemaLine(&line, schema)
        }
    }

    /// Every entity of `store` decodes and its indexes match (what `strata verify` checks).
    func verify(_ store: Store) throws -> [String] {
        try store.read { tx in try tx.entityNames().flatMap { try tx.verifyIndexes(entity: $0).problems } }
    }

    @Test func theLineUnalteredIsApplied() throws {
        var reader = ChangeFeedLines.Reader()
        let commit = try #require(try reader.read(line: Array(try JSONSerialization.data(withJSONObject: try lastLine()))))
        #expect(try replica.applyChanges([commit]) == 3)
        #expect(try verify(replica).isEmpty)
        #expect(try replica.read { tx in try tx.query(entity: "Person").count() } == 3)
    }

    @Test(arguments: Forgery.allCases)
    func aForgedLineIsRefusedAndTheReplicaStaysAtItsLastCommit(_ forgery: Forgery) throws {
        var line = try lastLine()
        try forge(forgery, &line)
        var reader = ChangeFeedLines.Reader()
        let commit = try #require(try reader.read(line: Array(try JSONSerialization.data(withJSONObject: line))))
        let error = #expect(throws: StrataError.self) { try replica.applyChanges([commit]) }
        #expect(error?.message.contains("commit 3") == true, "\(String(describing: error))")
        #expect(try replica.replicaPosition() == 2)
        #expect(try verify(replica).isEmpty)
        #expect(try replica.read { tx in try tx.entityNames().sorted() } == ["Person", "User"])
        #expect(try replica.read { tx in try tx.query(entity: "Person").count() } == 2)
        #expect(try replica.read { tx in try tx.count(User.self) } == 2)
    }
}
