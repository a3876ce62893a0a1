import Foundation
import Testing
import TestSupport
@testable import Strata

@Suite struct ImportMappingTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    @Test func conventionsMapSnakeCaseIdAcronymsAndAtSuffixes() throws {
        let json = #"""
            [{"id": 6, "first_name": "Shawn", "LAST-NAME": "Merrill", "avatar_url": "https://example.com/a.png",
              "created_at": "2014-02-14T04:30:10+00:00", "updated_at": "2014-02-17T10:01:12Z", "unknown": 1, "other": {"x": 1}}]
            """#
        let report = try store.importJSON(Data(json.utf8), as: Member.self)
        #expect(report.inserted == 1)
        #expect(report.ignoredKeys == ["unknown": 1, "other": 1])
        let shawn = try #require(try store.read { tx in try tx.get(Member.self, key: 6) })
        #expect(shawn.firstName == "Shawn")
        #expect(shawn.lastName == "Merrill")
        #expect(shawn.avatarURL == URL(string: "https://example.com/a.png"))
        #expect(shawn.createdDate == Date(timeIntervalSince1970: 1_392_352_210))
        #expect(shawn.updatedAt == Date(timeIntervalSince1970: 1_392_631_272))
    }

    @Test func explicitJSONKeysWinOverConventions() throws {
        struct Gob: Record, Equatable {
            var remoteID: Int64
            var luckyNumber: Int?
            var nickname: String?
            static let primaryKey = \Gob.remoteID
            static let jsonKeys: JSONKeys<Gob> = [\.luckyNumber: "lucky"]
        }
        let json = #"{"id": 1, "lucky": 21, "lucky_number": 99, "nick": "G"}"#
        try store.importJSON(Data(json.utf8), as: Gob.self, options: ImportOptions(jsonKeys: ["nickname": "nick"]))
        #expect(try store.read { tx in try tx.get(Gob.self, key: 1) } == Gob(remoteID: 1, luckyNumber: 21, nickname: "G"))
    }

    @Test func transformsRunBeforeMapping() throws {
        let options = ImportOptions(transforms: ["lastName": { value in
            guard case .string(let text) = value else { return value }
            return .string(text.uppercased())
        }])
        try store.importJSON(Data(#"{"id": 1, "first_name": "a", "last_name": "bluth"}"#.utf8), as: Member.self, options: options)
        #expect(try store.members().first?.lastName == "BLUTH")
    }

    @Test func numbersBooleansAndStringsAreCoercedWhereTheFieldAsks() throws {
        let json = #"""
            [{"id": "1", "first_name": 42, "last_name": "x", "lucky_number": "13", "score": "2.5", "active": "true"},
             {"id": 2.0, "first_name": "b", "last_name": "y", "lucky_number": 7.0, "score": 3, "active": 0},
             {"id": 3, "first_name": "c", "last_name": "z", "active": 1}]
            """#
        try store.importJSON(Data(json.utf8), as: Member.self)
        let members = try store.members()
        #expect(members.map(\.firstName) == ["42", "b", "c"])
        #expect(members.map(\.luckyNumber) == [13, 7, nil])
        #expect(members.map(\.score) == [2.5, 3, nil])
        #expect(members.map(\.active) == [true, false, true])
    }

    @Test(arguments: [
        ("2014-02-14T04:30:10Z", 1_392_352_210.0),
        ("2014-02-14T04:30:10.250Z", 1_392_352_210.25),
        ("2014-02-14T06:30:10+02:00", 1_392_352_210.0),
        ("2014-02-14T00:30:10-0400", 1_392_352_210.0),
        ("2014-02-14 04:30:10", 1_392_352_210.0),
        ("2014-02-14", 1_392_336_000.0),
        ("1392352210", 1_392_352_210.0),
    ])
    func datesFromISO8601VariantsAndTimestamps(text: String, seconds: Double) throws {
        try store.importJSON(Data(#"{"id": 1, "first_name": "a", "last_name": "b", "created_at": "\#(text)"}"#.utf8), as: Member.self)
        #expect(try store.members().first?.createdDate == Date(timeIntervalSince1970: seconds))
    }

    @Test func unixSecondsMillisecondsAndPerFieldFormats() throws {
        let json = #"[{"id": 1, "first_name": "a", "last_name": "b", "created_at": 1392352210, "updated_at": 1392352210250},"#
            + #"{"id": 2, "first_name": "a", "last_name": "b", "created_at": 5000}]"#
        try store.importJSON(Data(json.utf8), as: Member.self)
        #expect(try store.members().map(\.createdDate) == [Date(timeIntervalSince1970: 1_392_352_210), Date(timeIntervalSince1970: 5000)])
        #expect(try store.members().first?.updatedAt == Date(timeIntervalSince1970: 1_392_352_210.25))
        let options = ImportOptions(dateFormats: ["createdDate": .millisecondsSince1970])
        try store.importJSON(Data(#"{"id": 2, "created_at": 5000}"#.utf8), as: Member.self, options: options)
        #expect(try store.read { tx in try tx.get(Member.self, key: 2) }?.createdDate == Date(timeIntervalSince1970: 5))
    }

    @Test(arguments: [
        (#""lucky_number": "seven""#, #"'lucky_number' is "seven", expected an integer"#),
        (#""lucky_number": 1.5"#, "'lucky_number' is 1.5, expected an integer"),
        (#""active": "maybe""#, #"'active' is "maybe", expected a boolean"#),
        (#""created_at": "yesterday""#, "expected a date"),
        (#""avatar_url": 5"#, "expected a URL string"),
        (#""tags": "a,b""#, "expected an array"),
        (#""tags": ["a", 5, {}]"#, "'tags' element 2 is {}, expected a string"),
        (#""first_name": null"#, "'first_name' is null, but 'firstName' is not optional"),
        (#""first_name": true"#, "expected a string"),
    ])
    func wrongTypesNameTheRecordAndKey(member: String, expected: String) throws {
        let json = #"[{"id": 1, "first_name": "a", "last_name": "b"}, {"id": 2, "first_name": "a", "last_name": "b", \#(member)}]"#
        let error = try #require(throws: StrataError.self) { try store.importJSON(Data(json.utf8), as: Member.self) }
        #expect(error.code == .invalidRecord)
        #expect(error.record == 2)
        #expect(error.message.hasPrefix("record 2: "))
        #expect(error.message.contains(expected), "\(error.message)")
        #expect(error.position?.line == 1)
        #expect(try store.members().isEmpty)   // .abort: nothing written
        #expect(try store.indexesConsistent())
    }

    @Test func missingPrimaryKeysRequiredFieldsAndOverlongKeysAreReported() throws {
        let cases = [
            (#"{"first_name": "a", "last_name": "b"}"#, "has no primary key"),
            (#"{"id": null, "first_name": "a", "last_name": "b"}"#, "'id' is null, but 'remoteID' is not optional"),
            (#"{"id": 1, "first_name": "a"}"#, "has no value for the required field 'lastName'"),
            (#"{"id": "x", "first_name": "a", "last_name": "b"}"#, #"'id' is "x", expected an integer"#),
            (#"[1]"#, "is an integer, not an object"),
        ]
        for (json, expected) in cases {
            let error = try #require(throws: StrataError.self) { try store.importJSON(Data(json.utf8), as: Member.self) }
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.record == 1)
        }
        let longKey = String(repeating: "k", count: 600)
        let error = try #require(throws: StrataError.self) {
            try store.importJSON(Data(#"{"name": "\#(longKey)", "uses": 1}"#.utf8), as: Tag.self)
        }
        #expect(error.message.contains("LMDB keys are limited to 511"))
    }

    @Test func nestedObjectsAndArraysBecomeEmbeddedStructs() throws {
        struct Recipe: Record, Equatable {
            struct Ingredient: Codable, Sendable, Equatable { var name: String; var grams: Int? }
            var syncID: String
            var name: String
            var ingredients: [Ingredient]
            var author: Ingredient?
            var ratings: [Int]
            var attributes: [String: String]?
            static let primaryKey = \Recipe.syncID
        }
        let json = #"""
            {"id": "REC1", "name": "pancake", "ingredients": [{"id": "INGR1", "name": "flour", "grams": "200"}, {"name": "egg"}],
             "author": {"name": "Ann"}, "ratings": [5, "4"], "attributes": {"b": "2", "a": "1"}}
            """#
        try store.importJSON(Data(json.utf8), as: Recipe.self)
        let recipe = try #require(try store.read { tx in try tx.get(Recipe.self, key: "REC1") })
        #expect(recipe == Recipe(syncID: "REC1", name: "pancake",
                                 ingredients: [.init(name: "flour", grams: 200), .init(name: "egg", grams: nil)],
                                 author: .init(name: "Ann", grams: nil), ratings: [5, 4], attributes: ["a": "1", "b": "2"]))
        // The imported bytes are exactly what the Codable encoder writes: upserting the decoded value changes nothing.
        #expect(try store.write { tx in try tx.upsert(recipe) } == .unchanged)
        let error = try #require(throws: StrataError.self) {
            try store.importJSON(Data(#"{"id": "R2", "name": "x", "ingredients": [{"grams": 1}], "ratings": []}"#.utf8), as: Recipe.self)
        }
        #expect(error.message.contains("has no value for the required field 'ingredients.name'"))
    }

    @Test func importedBytesEqualCodableBytesForEveryFieldType() throws {
        let sample = Everything.sample()
        let json = #"""
            {"id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "flag": true, "int8": -8, "int16": -1600, "int32": -320000,
             "int64": -9223372036854775808, "int": 42, "uint8": 255, "uint16": 65535, "uint32": 4000000000,
             "uint64": 18446744073709551615, "uint": 7, "double": -12.5, "float": 3.25, "text": "Fünke ÉLAN ✓",
             "date": 1700000000.25, "data": "AAEC/w==", "url": "https://example.com/a?b=c", "decimal": "12.345",
             "mood": "busy", "numbers": [1, -2, 3], "address": {"street": "Main"}, "addresses": [{"street": "A", "zip": 1}],
             "attributes": {"ü": "ö", "k": "v"}}
            """#
        // UInt64.max is read exactly (a wide integer literal, not a double), one above it is refused, named.
        let error = try #require(throws: StrataError.self) {
            try store.importJSON(Data(json.replacingOccurrences(of: "18446744073709551615", with: "18446744073709551616").utf8), as: Everything.self)
        }
        #expect(error.message.contains("'uint64'") && error.message.contains("out of range"), "\(error.message)")
        try store.importJSON(Data(json.utf8), as: Everything.self)
        var expected = sample
        expected.uint64 = .max
        let stored = try #require(try store.read { tx in try tx.get(Everything.self, key: sample.id) })
        #expect(stored == expected)
        #expect(try store.write { tx in try tx.upsert(expected) } == .unchanged)
    }
}
