import Foundation
import Strata
import Testing
import TestSupport

/// Entities keyed by several fields (`country,year`): imported, upserted and synced by the whole
/// key, read by it, named by it in messages, exported and imported back, verified.
@Suite struct CompoundKeyImportTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        dir = try TemporaryDirectory("strata-compound")
        store = try Store(path: dir.path("store"))
    }

    static let rows = #"""
        [{"country": "DE", "year": 2021, "population": 83.2},
         {"country": "DE", "year": 2020, "population": 83.1},
         {"country": "FR", "year": 2021, "population": 67.7},
         {"country": "AT", "year": 2021, "population": 8.9}]
        """#

    static let description = EntityDescription(name: "Population", primaryKey: "country,year", fields: [
        FieldDescription("country", .string), FieldDescription("year", .integer), FieldDescription("population", .double),
    ], indexes: [IndexDescription(fields: ["population"])])

    func importRows(_ json: String, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try store.importJSON(Data(json.utf8), entity: Self.description, options: options)
    }

    func keys() throws -> [QueryValue] {
        try store.read { tx throws in try tx.query(entity: "Population").all().map(\.key) }
    }

    @Test func theKeyIsEveryFieldOfItAndRecordsSortByThemInOrder() throws {
        #expect(Self.description.primaryKeyFields == ["country", "year"])
        #expect(Self.description.hasCompoundKey)
        let report = try importRows(Self.rows)
        #expect(report.inserted == 4, "\(report)")
        // Two records share a country and two a year: only the pair tells them apart.
        #expect(try keys() == [.list([.string("AT"), .int(2021)]), .list([.string("DE"), .int(2020)]),
                               .list([.string("DE"), .int(2021)]), .list([.string("FR"), .int(2021)])])
        let again = try importRows(Self.rows)
        #expect(again.inserted == 0 && again.updated == 0 && again.unchanged == 4, "\(again)")
        let changed = try importRows(#"[{"country": "DE", "year": 2020, "population": 83.0}, {"country": "DE", "year": 2022, "population": 84.0}]"#)
        #expect(changed.inserted == 1 && changed.updated == 1, "\(changed)")
    }

    @Test func aRecordIsReadAndDeletedByItsWholeKey() throws {
        _ = try importRows(Self.rows)
        try store.read { tx throws in
            let record = try #require(try tx.record(entity: "Population", key: .list([.string("DE"), .string("2020")])))
            #expect(record["population"] == .double(83.1))
            #expect(record.key == .list([.string("DE"), .int(2020)]))
            #expect(try tx.record(entity: "Population", key: .list([.string("DE"), .int(1999)])) == nil)
            let one = #expect(throws: StrataError.self) { try tx.record(entity: "Population", key: .string("DE")) }
            #expect(one?.message.contains("the primary key (country, year) takes 2 values") == true, "\(one?.message ?? "")")
            let typed = #expect(throws: StrataError.self) { try tx.record(entity: "Population", key: .list([.string("DE"), .string("last")])) }
            #expect(typed?.message.contains("the primary key field 'year'") == true, "\(typed?.message ?? "")")
        }
        #expect(try store.write { tx in try tx.delete(entity: "Population", key: .list([.string("DE"), .int(2021)])) })
        #expect(try keys().count == 3)
    }

    @Test func aSyncDeletesByTheWholeKey() throws {
        _ = try importRows(Self.rows)
        let report = try importRows(#"[{"country": "DE", "year": 2021, "population": 83.2}, {"country": "FR", "year": 2021, "population": 67.7}]"#,
                                    options: ImportOptions(mode: .sync))
        #expect(report.deleted == 2 && report.unchanged == 2, "\(report)")
        #expect(try keys() == [.list([.string("DE"), .int(2021)]), .list([.string("FR"), .int(2021)])])
        let scoped = try importRows(#"[{"country": "FR", "year": 2021, "population": 67.7}]"#, options: ImportOptions(mode: .sync(scope: #"country == "DE""#)))
        #expect(scoped.deleted == 1, "\(scoped)")
        #expect(try keys() == [.list([.string("FR"), .int(2021)])])
    }

    @Test func aRecordLackingAFieldOfTheKeyIsAnErrorNamingTheRecordAndTheField() throws {
        let json = #"[{"country": "DE", "year": 2021, "population": 1}, {"country": "FR", "population": 2}]"#
        let error = #expect(throws: StrataError.self) { try importRows(json) }
        #expect(error?.record == 2, "\(String(describing: error))")
        #expect(error?.message.contains("has no 'year'") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(country, year)") == true, "\(error?.message ?? "")")
        #expect(try store.read { tx throws in try tx.count(entity: "Population") } == 0)
        let skipped = try importRows(json, options: ImportOptions(onError: .skip))
        #expect(skipped.inserted == 1 && skipped.skipped == 1, "\(skipped)")
    }

    @Test func messagesAndVerifyNameARecordByItsKeyValues() throws {
        _ = try importRows(Self.rows)
        let verification = try store.read { tx throws in try tx.verifyIndexes(entity: "Population") }
        #expect(verification.isConsistent, "\(verification.problems)")
        #expect(verification.recordsChecked == 4)
        let unique = EntityDescription(name: "Population", primaryKey: "country,year", fields: Self.description.fields,
                                       indexes: [IndexDescription(fields: ["year"], unique: true)])
        let clash = #expect(throws: StrataError.self) { try store.importJSON(Data(Self.rows.utf8), entity: unique) }
        #expect(clash?.message.contains("(DE, 2020)") == true || clash?.message.contains("(AT, 2021)") == true, "\(clash?.message ?? "")")
    }

    @Test func anExportImportsBackUnchanged() throws {
        _ = try importRows(Self.rows)
        let exported = try store.read { tx throws in try tx.query(entity: "Population").all().map { $0.jsonObject() } }
        let copy = try Store(path: dir.path("copy"))
        let report = try copy.importJSON(Data(JSONValue.array(exported).jsonText.utf8), entity: Self.description)
        #expect(report.inserted == 4)
        let copied = try copy.read { tx throws in try tx.query(entity: "Population").all() }
        let original = try store.read { tx throws in try tx.query(entity: "Population").all() }
        #expect(copied == original)
    }

    @Test func aConditionOnTheFirstFieldOfTheKeyIsAKeyRangeAndFindsWhatAScanFinds() throws {
        let countries = ["A", "AT", "ATX", "B", "DE", "DEU", "FR", "Z"]
        let rows = countries.flatMap { country in (2019...2021).map { #"{"country": "\#(country)", "year": \#($0), "population": 1}"# } }
        _ = try importRows("[" + rows.joined(separator: ",") + "]")
        let conditions: [(String, (String) -> Bool)] = [
            (#"country == "DE""#, { $0 == "DE" }), (#"country == "AT""#, { $0 == "AT" }), (#"country == "Q""#, { _ in false }),
            (#"country > "AT""#, { $0 > "AT" }), (#"country >= "AT""#, { $0 >= "AT" }),
            (#"country < "DE""#, { $0 < "DE" }), (#"country <= "DE""#, { $0 <= "DE" }),
            (#"country BETWEEN {"AT", "DE"}"#, { $0 >= "AT" && $0 <= "DE" }), (#"country BEGINSWITH "A""#, { $0.hasPrefix("A") }),
            (#"country BEGINSWITH "DE""#, { $0.hasPrefix("DE") }),
            (#"country > "A" AND country < "DEU""#, { $0 > "A" && $0 < "DEU" }),
        ]
        for (condition, matches) in conditions {
            let plan = try store.read { tx throws in try tx.query(entity: "Population").where(condition).explain() }
            #expect("\(plan)".hasPrefix("KeyRange(Population.country"), "\(condition): \(plan)")
            let found = try store.read { tx throws in try tx.query(entity: "Population").where(condition).all().map(\.key) }
            let expected = countries.filter(matches).flatMap { country in (2019...2021).map { QueryValue.list([.string(country), .int(Int64($0))]) } }
            #expect(found == expected, "\(condition)")
        }
        // The second field is no range: a scan with the condition as a filter.
        let years = try store.read { tx throws in try tx.query(entity: "Population").where("year == 2021").all() }
        #expect(years.count == countries.count)
        #expect("\(try store.read { tx throws in try tx.query(entity: "Population").where("year == 2021").explain() })".hasPrefix("FullScan"))
    }

    @Test func aNumericFirstFieldIsRangedWithConstantsOfEitherNumberType() throws {
        let description = EntityDescription(name: "Reading", primaryKey: "level,station", fields: [
            FieldDescription("level", .double), FieldDescription("station", .string),
        ])
        let rows = [-2.5, -1, 0, 1, 1.5, 2, 3].map { #"{"level": \#($0), "station": "s"}"# }
        _ = try store.importJSON(Data(("[" + rows.joined(separator: ",") + "]").utf8), entity: description)
        func levels(_ condition: String) throws -> [QueryValue] {
            try store.read { tx throws in try tx.query(entity: "Reading").where(condition).all().compactMap { record in
                if case .list(let parts) = record.key { return parts.first } else { return nil }
            } }
        }
        #expect(try levels("level == 1") == [.double(1)])
        #expect(try levels("level > 1") == [.double(1.5), .double(2), .double(3)])
        #expect(try levels("level <= -1") == [.double(-2.5), .double(-1)])
        #expect(try levels("level BETWEEN {0, 2}") == [.double(0), .double(1), .double(1.5), .double(2)])
    }

    @Test func inferenceAndTheSchemaFileTakeACompoundKey() throws {
        let json = Data(#"[{"country_code": "DE", "year": 2021, "n": 1}, {"country_code": "DE", "year": 2020, "n": 2}]"#.utf8)
        let inferred = try EntityDescription.inferred(name: "P", fromJSON: json, primaryKey: "country_code, year")
        #expect(inferred.primaryKey == "countryCode,year")
        #expect(inferred.field("countryCode")?.isOptional == false && inferred.field("year")?.isOptional == false)
        let file = SchemaFile(entities: [inferred])
        #expect(file.jsonText.contains(#""primaryKey":["countryCode","year"]"#) || file.jsonText.contains(#""primaryKey": ["countryCode", "year"]"#),
                "\(file.jsonText)")
        #expect(try SchemaFile(json: Data(file.jsonText.utf8)) == file)
        let partial = try #require(try SchemaFile(json: Data(#"{"entities": {"P": {"primaryKey": ["country_code", "year"]}}}"#.utf8),
                                                  allowingPartial: true).entity("P"))
        #expect(try EntityDescription.inferred(name: "P", fromJSON: json, completing: partial).primaryKey == "countryCode,year")
        let lacking = #expect(throws: StrataError.self) {
            try EntityDescription.inferred(name: "P", fromJSON: Data(#"[{"country_code": "DE", "n": 1}]"#.utf8), primaryKey: "country_code,year")
        }
        #expect(lacking?.message.contains("no record has a field 'year'") == true, "\(lacking?.message ?? "")")
        let twice = #expect(throws: StrataError.self) { try EntityDescription.inferred(name: "P", fromJSON: json, primaryKey: "year,year") }
        #expect(twice?.message.contains("'year' twice") == true, "\(twice?.message ?? "")")
        let aliased = #expect(throws: StrataError.self) { try EntityDescription.inferred(name: "P", fromJSON: json, primaryKey: "country_code,countryCode") }
        #expect(aliased?.message.contains("names 'countryCode' twice") == true, "\(aliased?.message ?? "")")
        var optional = Self.description
        optional.fields[1].isOptional = true
        let invalid = #expect(throws: StrataError.self) { try optional.validate() }
        #expect(invalid?.message.contains("the field 'year' of the primary key (country, year) cannot be optional") == true, "\(invalid?.message ?? "")")
    }

    @Test func anEntityWithACompoundKeyCanHaveNoRelationships() throws {
        let country = EntityDescription(name: "Country", primaryKey: "code", fields: [FieldDescription("code", .string)])
        _ = try store.importJSON(Data(#"[{"code": "DE"}]"#.utf8), entity: country)
        var linked = Self.description
        linked.fields.append(FieldDescription("countryCode", .string, optional: true))
        linked.relationships = [RelationshipDescription("countryOf", .toOne, target: "Country", keyField: "countryCode")]
        let error = #expect(throws: StrataError.self) { try store.importJSON(Data(Self.rows.utf8), entity: linked) }
        #expect(error?.message.contains("an entity with a compound primary key (country, year) cannot have relationships") == true,
                "\(error?.message ?? "")")
    }

    @Test func aKeyOfOneFieldTakesOneValue() throws {
        let country = EntityDescription(name: "Country", primaryKey: "code", fields: [FieldDescription("code", .string)])
        _ = try store.importJSON(Data(#"[{"code": "DE"}]"#.utf8), entity: country)
        try store.read { tx throws in
            #expect(try tx.record(entity: "Country", key: .string("DE")) != nil)
            let error = #expect(throws: StrataError.self) { try tx.record(entity: "Country", key: .list([.string("DE"), .int(1)])) }
            #expect(error?.message.contains("the primary key 'code' is one field; give one value, not (DE, 1)") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aRecordTypeKeyedByOneFieldCannotReadACompoundKeyedEntity() throws {
        _ = try importRows(Self.rows)
        struct Population: Record {
            var country: String
            var year: Int
            var population: Double
            static let primaryKey = \Population.country
        }
        #expect(throws: StrataError.self) { try store.read { tx throws in try tx.all(Population.self) } }
    }
}
