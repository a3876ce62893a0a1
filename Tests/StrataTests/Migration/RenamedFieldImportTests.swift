import Foundation
import Testing
import TestSupport
@testable import Strata

/// A renamed field keeps its JSON key, so the JSON it came from imports again; and an import
/// that fails under `.abort` names its first failing record and writes nothing.
@Suite struct RenamedFieldImportTests {
    let dir: TemporaryDirectory
    let store: Store
    static let description = EntityDescription(name: "Country", primaryKey: "code", fields: [
        FieldDescription("code", .string), FieldDescription("name", .string), FieldDescription("capital", .string, jsonKey: "capital_city"),
    ])

    /// `count` countries as JSON, from code C0.
    static func countries(_ count: Int) -> Data {
        let items = (0..<count).map { #"{"code": "C\#($0)", "name": "country \#($0)", "capital_city": "city \#($0)"}"# }
        return Data(("[" + items.joined(separator: ",") + "]").utf8)
    }

    /// 59 countries imported by their description.
    init() throws {
        (store, dir) = try makeStore()
        #expect(try store.importJSON(Self.countries(59), entity: Self.description).inserted == 59)
    }

    func stored() throws -> EntityDescription {
        try store.read { tx in try tx.entityDescription(named: "Country") }
    }

    /// Every record's bytes and the catalog entry, to see that nothing was written.
    func snapshot() throws -> [[UInt8]] {
        try store.read { tx throws in
            let context = try #require(try tx.context(named: "Country"))
            var result = [context.catalogBytes]
            try tx.forEachStoredRecord(context) { key, bytes in result += [key, bytes]; return true }
            return result
        }
    }

    @Test func theOriginalJSONImportsAgainAfterARename() throws {
        try store.migrate(with: MigrationPlan(migrations: [.init(name: "short", steps: [
            .renameField(entity: "Country", field: "name", to: "shortName"),
            .renameField(entity: "Country", field: "capital", to: "capitalCity"),
        ])]).migrator)
        #expect(try stored().field("shortName")?.jsonKey == "name")
        #expect(try stored().field("capitalCity")?.jsonKey == "capital_city")   // an explicit key stays
        let report = try store.importJSON(Self.countries(60), entity: try stored())
        #expect(report.inserted == 1 && report.unchanged == 59 && report.ignoredKeys.isEmpty)
        let c59 = try store.read { tx in try tx.record(entity: "Country", key: .string("C59")) }
        #expect(c59?["shortName"] == .string("country 59") && c59?["capitalCity"] == .string("city 59"))
    }

    @Test func aRenameCanGiveTheFieldANewJSONKey() throws {
        try store.write { tx in try tx.renameField("name", to: "shortName", in: "Country", jsonKey: "short_name") }
        #expect(try stored().field("shortName")?.jsonKey == "short_name")
        let report = try store.importJSON(Data(#"[{"code": "C1", "short_name": "one"}]"#.utf8), entity: try stored())
        #expect(report.updated == 1)
        #expect(try store.read { tx in try tx.record(entity: "Country", key: .string("C1"))?["shortName"] } == .string("one"))
    }

    @Test func aFailingImportUnderAbortNamesItsFirstFailingRecordAndWritesNothing() throws {
        let before = try snapshot()
        // Records 1–59 change (their capital), record 60 is new and lacks the required name.
        var items = (0..<59).map { #"{"code": "C\#($0)", "capital_city": "new city \#($0)"}"# }
        items.append(#"{"code": "C59", "capital_city": "x"}"#)
        items.append(#"{"code": "C60", "capital_city": "y"}"#)
        #expect {
            try store.importJSON(Data(("[" + items.joined(separator: ",") + "]").utf8), entity: try stored())
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .invalidRecord && error.record == 60 && error.message.hasPrefix("record 60: ")
                && error.message.contains("'name'")
        }
        #expect(try snapshot() == before)
    }
}
