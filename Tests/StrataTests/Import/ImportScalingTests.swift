import Foundation
import Testing
import TestSupport
@testable import Strata

/// Inputs that are legal but extreme: many distinct field names, deeply nested schema types,
/// and values at the edges of what a field can hold.
@Suite struct ImportScalingTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    // MARK: many field names

    @Test func addingFieldsToATableCopiesItOnlyWhenACopyIsShared() {
        var table = FieldTable()
        for index in 0..<20_000 { table.assign("field\(index)") }
        #expect(table.count == 20_000 && table.id(for: "field19999") == 20_000 && table.name(for: 1) == "field0")
        #expect(table.storageCopies == 0, "\(table.storageCopies) copies of the table for 20,000 additions")
        let shared = table
        table.assign("one more")
        #expect(table.storageCopies == 1 && shared.count == 20_000 && shared.id(for: "one more") == nil)
        table.assign("and another")
        #expect(table.storageCopies == 1 && table.id(for: "and another") == 20_002)
    }

    /// A regression guard rather than a benchmark: with field-table additions and schema
    /// inference linear, one record of 20,000 keys imports in a few seconds even in a debug build
    /// (it took tens of seconds with a copy of the whole table per new field); and 20,000 records
    /// each adding a key of its own import as fast, since mapping and merging a record cost its
    /// own keys rather than the entity's fields (they took over a minute with a scan of every
    /// field per record).
    @Test func manyDistinctFieldNamesImportWithoutQuadraticTableWork() throws {
        let wide = "[{\"id\": 1, " + (0..<20_000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + "}]"
        let many = "[" + (0..<20_000).map { "{\"id\": \($0), \"k\($0)\": \($0)}" }.joined(separator: ",") + "]"
        // A record that wide is refused unless the limit allows it (JSONLimits.maximumRecordFields).
        let limits = JSONLimits(maximumRecordFields: 20_001)
        for (name, json, records) in [("Wide", wide, 1), ("Many", many, 20_000)] {
            let started = Date()
            let description = try EntityDescription.inferred(name: name, fromJSON: Data(json.utf8), limits: limits)
            #expect(description.fields.count == 20_001)
            let report = try store.importJSON(Data(json.utf8), entity: description, options: ImportOptions(limits: limits))
            #expect(report.records == records)
            let seconds = Date().timeIntervalSince(started)
            #expect(seconds < 15, "\(name): \(seconds) s")
        }
        let record = try #require(try store.read { tx in try tx.record(entity: "Wide", key: .int(1)) })
        #expect(record["k19999"] == .int(19_999))
    }

    // MARK: nested types

    @Test(arguments: [65, 5_000])
    func schemaTypesNestedTooDeeplyAreRefused(depth: Int) throws {
        let type = String(repeating: "[", count: depth) + "string" + String(repeating: "]", count: depth)
        let json = #"{"entities": {"E": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "deep": {"type": "\#(type)"}}}}}"#
        let started = Date()
        #expect {
            try SchemaFile(json: Data(json.utf8))
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .invalidValue && error?.message.contains("nested") == true && error?.field == "deep"
        }
        #expect(Date().timeIntervalSince(started) < 2)
        var nested = FieldType.string
        for _ in 0..<depth { nested = .array(nested) }
        let description = EntityDescription(name: "E", primaryKey: "id", fields: [FieldDescription("id", .integer), FieldDescription("deep", nested)])
        #expect(throws: StrataError.self) { try description.validate() }
    }

    @Test func schemaTypesNestedToTheLimitAreAccepted() throws {
        let type = String(repeating: "[", count: 64) + "string" + String(repeating: "]", count: 64)
        let json = #"{"entities": {"E": {"primaryKey": "id", "fields": {"id": {"type": "int"}, "deep": {"type": "\#(type)"}}}}}"#
        #expect(try SchemaFile(json: Data(json.utf8)).entities.count == 1)
    }

    // MARK: value ranges in typed writes

    struct Event: Record, Equatable {
        var id: Int
        var at: Date
        static let primaryKey = \Event.id
    }

    @Test(arguments: [1e300, -1e300, -62_167_219_201, 253_402_300_800])
    func typedWritesRefuseDatesOutsideTheRangeExportCanPrint(seconds: Double) throws {
        #expect {
            try store.write { tx in try tx.insert(Event(id: 1, at: Date(timeIntervalSince1970: seconds))) }
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .invalidValue && error?.field == "at" && error?.message.contains("out of range") == true
        }
        try store.write { tx in try tx.insert(Event(id: 2, at: Date(timeIntervalSince1970: -62_167_219_200))) }
        #expect(try store.read { tx in try tx.get(Event.self, key: 2) }?.at == Date(timeIntervalSince1970: -62_167_219_200))
    }
}
