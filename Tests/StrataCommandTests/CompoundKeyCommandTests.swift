import Foundation
import Testing
import TestSupport

/// `strata import --primary-key country_code,year`: records keyed by two fields, none of which is
/// unique alone; `get` and `delete` by both values, `verify` and errors naming a record `(DE, 2021)`.
@Suite struct CompoundKeyCommandTests {
    let dir: TemporaryDirectory
    var store: String { dir.path("store") }

    init() throws { dir = try TemporaryDirectory("strata-compound-cli") }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let rows = #"""
        [{"country_code": "DE", "year": 2021, "population": 83.2},
         {"country_code": "DE", "year": 2020, "population": 83.1},
         {"country_code": "FR", "year": 2021, "population": 67.7},
         {"country_code": "AT", "year": 2021, "population": 8.9, "note": "a, \"b\""}]
        """#

    func importRows(_ json: String, _ more: [String] = []) throws -> StrataCLI.Result {
        try StrataCLI.run(["import", store, try file("rows.json", json), "--entity", "Population", "--primary-key", "country_code,year"] + more)
    }

    /// The (country, year) pairs stored, in key order.
    func pairs(_ store: String? = nil) throws -> [String] {
        let result = try StrataCLI.run(["query", store ?? self.store, "Population", "--format", "csv", "--fields", "countryCode,year"])
        #expect(result.status == 0, "\(result.error)")
        return result.output.split(separator: "\n").dropFirst().map(String.init)
    }

    @Test func importKeysByBothFieldsAndAReimportChangesNothing() throws {
        let first = try importRows(Self.rows)
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("inserted 4 · updated 0"), "\(first.output)")
        #expect(first.error.contains("primary key (countryCode, year)"), "\(first.error)")
        #expect(try pairs() == ["AT,2021", "DE,2020", "DE,2021", "FR,2021"])
        let again = try importRows(Self.rows)
        #expect(again.output.contains("inserted 0 · updated 0 · unchanged 4"), "\(again.output) \(again.error)")
        // The stored key is used again without --primary-key, and a different one is refused.
        let plain = try StrataCLI.run(["import", store, try file("rows.json", Self.rows), "--entity", "Population"])
        #expect(plain.output.contains("unchanged 4"), "\(plain.output) \(plain.error)")
        let other = try StrataCLI.run(["import", store, try file("rows.json", Self.rows), "--entity", "Population", "--primary-key", "year,country_code"])
        #expect(other.status == 1)
        #expect(other.error.contains("stored with the primary key 'countryCode,year'"), "\(other.error)")
        let schema = try StrataCLI.run(["schema", store])
        #expect(schema.output.contains(#""primaryKey": ["countryCode", "year"]"#), "\(schema.output)")
    }

    @Test func aSyncDeletesTheRecordsWhoseWholeKeyIsMissing() throws {
        #expect(try importRows(Self.rows).status == 0)
        let sync = try importRows(#"[{"country_code": "DE", "year": 2021, "population": 83.2}, {"country_code": "FR", "year": 2021, "population": 67.7}]"#,
                                  ["--sync"])
        #expect(sync.status == 0, "\(sync.error)")
        #expect(sync.output.contains("deleted 2"), "\(sync.output)")
        #expect(try pairs() == ["DE,2021", "FR,2021"])
    }

    @Test func getAndDeleteTakeOneValuePerKeyField() throws {
        #expect(try importRows(Self.rows).status == 0)
        let get = try StrataCLI.run(["get", store, "Population", "DE", "2020", "--format", "jsonl"])
        #expect(get.status == 0, "\(get.error)")
        #expect(get.output == #"{"countryCode":"DE","year":2020,"population":83.1}"# + "\n", "\(get.output)")
        let missing = try StrataCLI.run(["get", store, "Population", "DE", "1999"])
        #expect(missing.status == 1)
        #expect(missing.error.contains("no record with key (DE, 1999)"), "\(missing.error)")
        let short = try StrataCLI.run(["get", store, "Population", "DE"])
        #expect(short.status == 1)
        #expect(short.error.contains("the primary key (countryCode, year) takes 2 values"), "\(short.error)")
        let delete = try StrataCLI.run(["delete", store, "Population", "--key", "DE", "--key", "2020"])
        #expect(delete.status == 0, "\(delete.error)")
        #expect(try pairs() == ["AT,2021", "DE,2021", "FR,2021"])
    }

    @Test func aRecordLackingAFieldOfTheKeyIsAnError() throws {
        let lacking = #"[{"country_code": "DE", "year": 2021, "population": 1}, {"country_code": "FR", "population": 2}]"#
        // Named by the importer whether the schema is inferred from the file (the key named by
        // --primary-key stays the key: the record is at fault, not the key)
        let inferred = try importRows(lacking)
        #expect(inferred.status == 1)
        #expect(inferred.error.contains("record 2: has no 'year' (JSON key 'year'), a field of the primary key (countryCode, year)"),
                "\(inferred.error)")
        // or stored.
        #expect(try importRows(Self.rows).status == 0)
        let mapped = try importRows(lacking)
        #expect(mapped.status == 1)
        #expect(mapped.error.contains("record 2: has no 'year' (JSON key 'year'), a field of the primary key (countryCode, year)"), "\(mapped.error)")
        let skipped = try importRows(lacking, ["--on-error", "skip"])
        #expect(skipped.output.contains("skipped 1"), "\(skipped.output) \(skipped.error)")
    }

    @Test func anExportImportsBackAndVerifyIsClean() throws {
        #expect(try importRows(Self.rows).status == 0)
        let verify = try StrataCLI.run(["verify", store])
        #expect(verify.status == 0, "\(verify.output) \(verify.error)")
        #expect(verify.output.contains("Population: 4 records"), "\(verify.output)")
        let exported = try StrataCLI.run(["export", store, "Population", "--json-keys"])
        #expect(exported.status == 0, "\(exported.error)")
        #expect(exported.output.contains(#""country_code":"AT""#), "\(exported.output)")
        let copy = dir.path("copy")
        let back = try StrataCLI.run(["import", copy, try file("exported.json", exported.output), "--entity", "Population",
                                      "--primary-key", "country_code,year"])
        #expect(back.status == 0, "\(back.error)")
        #expect(try StrataCLI.run(["export", copy, "Population", "--json-keys"]).output == exported.output)
    }

    @Test func aUniqueViolationNamesTheRecordByItsKeyValues() throws {
        #expect(try importRows(Self.rows).status == 0)
        let index = try StrataCLI.run(["index", "add", store, "Population", "year", "--unique"])
        #expect(index.status == 1)
        #expect(index.error.contains("(DE, 2021)") || index.error.contains("(AT, 2021)") || index.error.contains("(FR, 2021)"), "\(index.error)")
    }

    /// The IANA language subtag registry's shape: records keyed by Type and Subtag, but the
    /// `redundant` and `grandfathered` ones have a Tag instead of a Subtag.
    static let subtags = #"""
        [{"Type": "language", "Subtag": "de", "Description": ["German"], "Added": "2005-10-16"},
         {"Type": "language", "Subtag": "fr", "Description": ["French"], "Added": "2005-10-16"},
         {"Type": "region", "Subtag": "DE", "Description": ["Germany"], "Added": "2005-10-16"},
         {"Type": "script", "Subtag": "Latn", "Description": ["Latin"], "Added": "2005-10-16"},
         {"Type": "grandfathered", "Tag": "i-klingon", "Description": ["Klingon"], "Added": "1999-05-26", "Deprecated": "2004-02-24"},
         {"Type": "redundant", "Tag": "zh-Hans", "Description": ["simplified Chinese"], "Added": "2003-05-30"}]
        """#

    static let subtagOptions: [[String]] = [
        ["--primary-key", "Type,Subtag"],
        ["--schema", "SCHEMA"],
    ]

    @Test(arguments: subtagOptions)
    func aTwoFieldKeySomeRecordsLackSkipsThemWithOnErrorSkip(_ keyOptions: [String]) throws {
        let schema = try file("schema.json", #"{"entities": {"Subtag": {"primaryKey": ["type", "subtag"]}}}"#)
        let options = ["--entity", "Subtag"] + keyOptions.map { $0 == "SCHEMA" ? schema : $0 }
        let path = try file("subtags.json", Self.subtags)
        let refused = try StrataCLI.run(["import", store, path] + options)
        #expect(refused.status == 1)
        #expect(refused.error.contains("record 5: has no 'subtag' (JSON key 'Subtag'), a field of the primary key (type, subtag)"), "\(refused.error)")
        let skipped = try StrataCLI.run(["import", store, path, "--on-error", "skip"] + options)
        #expect(skipped.status == 0, "\(skipped.error)")
        #expect(skipped.output.contains("inserted 4") && skipped.output.contains("skipped 2"), "\(skipped.output)")
        let german = try StrataCLI.run(["get", store, "Subtag", "language", "de"])
        #expect(german.status == 0 && german.output.contains("German"), "\(german.output) \(german.error)")
        #expect(try StrataCLI.run(["schema", store]).output.contains(#""primaryKey": ["type", "subtag"]"#))
        let exported = try StrataCLI.run(["export", store, "Subtag", "--json-keys", "--format", "jsonl"])
        #expect(exported.output.split(separator: "\n").allSatisfy { $0.contains(#""Type":"#) && $0.contains(#""Subtag":"#) }, "\(exported.output)")
    }
}
