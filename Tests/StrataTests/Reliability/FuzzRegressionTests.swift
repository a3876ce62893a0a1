import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// Inputs the fuzz targets under Fuzz/ found, kept as tests. Each input is also in the target's
/// seed corpus (Fuzz/corpus/<target>/regression-*), so the fuzzers start from it.
@Suite struct FuzzRegressionTests {
    /// A map whose key is a map whose key is a map…, `depth` deep, ending in a text key holding a
    /// quote: `{{{"\"": 0}: 0}: 0}`.
    static func nestedMapKeys(depth: Int) -> [UInt8] {
        var item: [UInt8] = [0x61, 0x22]
        for _ in 0..<depth { item = [0xA1] + item + [0x00] }
        return item
    }

    static let fields = FieldTable(names: [1: "a", 2: "b"])

    /// Found by `tools/fuzz record` (Fuzz/corpus/record/regression-nested-map-keys, 446 bytes):
    /// the untyped reader behind `strata get`, `export` and `verify` spelled a map key that is
    /// itself a map as JSON text, and the key of that as JSON text again, so every level escaped
    /// the quotes of the level below: time and memory doubled with each level of nesting, and 40
    /// levels hung the process. Containers as map keys are now a corrupt record.
    @Test(.timeLimit(.minutes(1)))
    func mapKeysThatAreMapsAreCorruptInsteadOfExponential() throws {
        let record: [UInt8] = [0xA2, 0x01, 0x01, 0x02, 0xA1] + Self.nestedMapKeys(depth: 40) + [0x00]
        let error = try #require(throws: StrataError.self) {
            try StoredRecord(key: Int64(7).orderedKey, bytes: record, fields: Self.fields, entity: "Fuzz")
        }
        #expect(error.code == .corruptRecord)
        #expect(error.message.contains("a map key that is an array or a map"), "\(error.message)")
        // An array as a key is refused the same way; scalar keys still read.
        let arrayKey: [UInt8] = [0xA1, 0x02, 0xA1, 0x81, 0x01, 0x00]
        #expect(throws: StrataError.self) { try StoredRecord(key: Int64(7).orderedKey, bytes: arrayKey, fields: Self.fields, entity: "Fuzz") }
        let integerKey: [UInt8] = [0xA1, 0x02, 0xA1, 0x05, 0x61, 0x78]
        let read = try StoredRecord(key: Int64(7).orderedKey, bytes: integerKey, fields: Self.fields, entity: "Fuzz")
        #expect(read["b"] == .object([JSONMember(key: "5", value: .string("x"))]))
    }

    /// The fuzzer's own input, through the store: written as a stored record behind the codec's
    /// back, then read untyped, queried and verified. Each reports the record, none hangs.
    @Test(.timeLimit(.minutes(1)))
    func theFuzzedRecordIsReportedByEveryUntypedReader() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/record/regression-nested-map-keys")
        let bytes = Array(try Data(contentsOf: corpus))
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let description = EntityDescription(name: "Doc", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("name", .string, optional: true),
        ], indexes: [IndexDescription(fields: ["name"])])
        try store.importJSON(Data(#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]"#.utf8), entity: description)
        // The fuzzed bytes as the value of `name` (the fuzz target nests them the same way).
        let ids = try store.read { tx throws in try #require(try tx.context(named: "Doc")).schema.fields }
        let idField = try #require(ids.id(for: "id")), nameField = try #require(ids.id(for: "name"))
        try #require(idField < 24 && nameField < 24)
        let record = [0xA2, UInt8(idField), 0x02, UInt8(nameField)] + bytes
        try store.environment.write { txn in
            let records = try #require(try txn.openDatabase("records/Doc"))
            try txn.put(record, forKey: Int64(2).orderedKey, in: records)
        }
        try store.read { tx throws in
            #expect(throws: StrataError.self) { try tx.record(entity: "Doc", key: .int(2)) }
            #expect(try tx.record(entity: "Doc", key: .int(1))?["name"] == .string("a"))
            #expect(throws: StrataError.self) { try tx.query(entity: "Doc").all() }
            let verification = try tx.verifyIndexes(entity: "Doc")
            #expect(!verification.isConsistent)
            #expect(verification.problems.contains { $0.contains("does not decode") }, "\(verification.problems)")
        }
    }

    /// Found by `tools/fuzz predicate` on its own seed `%K == %@` (Fuzz/corpus/predicate/seed-3)
    /// once the target's store had more arguments: `%K` given the value "Ann" names a field the
    /// entity does not have, which a query refuses with `.unknownField` (naming it and the
    /// column), a typed error the target did not yet accept. Nothing traps.
    @Test func aKeyPathArgumentNamingNoFieldIsAnUnknownField() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx in try tx.insert(User.sample(1)) }
        let error = try #require(throws: StrataError.self) {
            try store.read { tx in try tx.query(entity: "User").where("%K == %@", arguments: ["Ann", 3]).all() }
        }
        #expect(error.code == .unknownField)
        #expect(error.message.contains("unknown field 'Ann' in User at column 1"), "\(error.message)")
    }
}
