import Foundation
import Testing
import TestSupport
@testable import Strata

/// A user with a field of each type a comparison can get wrong.
struct TypedMember: Record, Equatable {
    var id: Int64
    var name: String
    var luckyNumber: Int?
    var score: Double
    var active: Bool
    var createdAt: Date
    var tags: [String]
    var token: UUID
    static let primaryKey = \TypedMember.id

    static func make(_ id: Int) -> TypedMember {
        let lucky: Int? = id % 5 == 0 ? nil : id % 10
        let created = Date(timeIntervalSince1970: 1_600_000_000 + Double(id * 86_400 * 30))
        let tags: [String] = id % 3 == 0 ? ["vip"] : []
        return TypedMember(id: Int64(id), name: "member\(id)", luckyNumber: lucky, score: Double(id) * 50,
                           active: id % 2 == 0, createdAt: created, tags: tags, token: UUID())
    }

    static let all: [TypedMember] = (1...20).map(make)
}

/// A comparison whose constant cannot be compared with its field's type is an `.invalidQuery`
/// error when the predicate is given, before any record is read or deleted.
@Suite struct PredicateTypeCheckTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(TypedMember.all) }
    }

    /// The error `where(format)` throws, or nil.
    func error(_ format: String, _ arguments: any Sendable...) -> StrataError? {
        do {
            _ = try store.read { tx in try tx.query(TypedMember.self).where(format, arguments: arguments) }
            return nil
        } catch {
            return error as? StrataError
        }
    }

    @Test(arguments: [
        (#"luckyNumber != "7""#, "luckyNumber", "integer", #"the string "7""#, 16),
        (#"luckyNumber == "seven""#, "luckyNumber", "integer", #"the string "seven""#, 16),
        (#"luckyNumber > "90""#, "luckyNumber", "integer", #"the string "90""#, 15),
        ("active > 5", "active", "bool", "the number 5", 10),
        ("active == 1", "active", "bool", "the number 1", 11),
        (#"score > "500""#, "score", "double", #"the string "500""#, 9),
        (#"createdAt > "2021-01-01""#, "createdAt", "date", #"the string "2021-01-01""#, 13),
        ("createdAt > 1609459200", "createdAt", "date", "the number 1609459200", 13),
        ("name == 5", "name", "string", "the number 5", 9),
        (#"luckyNumber BEGINSWITH "7""#, "luckyNumber", "integer", #"the string "7""#, 24),
        (#"luckyNumber IN {1, "2"}"#, "luckyNumber", "integer", #"the string "2""#, 16),
        ("ANY tags == 5", "tags", "[string]", "the number 5", 13),
        (#"token == "1234""#, "token", "uuid", #"the string "1234""#, 10),
        ("5 < name", "name", "string", "the number 5", 1),
    ])
    func aConstantOfAnotherTypeIsAnErrorNamingFieldTypeConstantAndColumn(
        format: String, field: String, type: String, constant: String, column: Int
    ) throws {
        let failure = try #require(error(format), "\(format) must be refused")
        #expect(failure.code == .invalidQuery)
        #expect(failure.field == field)
        #expect(failure.entity == "TypedMember")
        #expect(failure.message.contains("\(field) (\(type))"), "\(failure.message)")
        #expect(failure.message.contains(constant), "\(failure.message)")
        #expect(failure.message.contains("at column \(column)"), "\(failure.message)")
    }

    @Test func theMessageForADateSuggestsCastOrADateArgument() throws {
        let failure = try #require(error(#"createdAt > "2021-01-01""#))
        #expect(failure.message.contains(#"CAST("2021-01-01", "NSDate")"#), "\(failure.message)")
        #expect(failure.message.contains("date argument"), "\(failure.message)")
        #expect(try #require(error(#"luckyNumber != "7""#)).message.contains("luckyNumber != 7"))
    }

    @Test(arguments: ["active > true", "active BETWEEN {false, true}", "active <= NO"])
    func orderingBoolsIsAnError(format: String) throws {
        let failure = try #require(error(format), "\(format) must be refused")
        #expect(failure.message.contains("active (bool)"), "\(failure.message)")
        #expect(failure.message.contains("==") && failure.message.contains("!="), "\(failure.message)")
    }

    @Test(arguments: [
        "luckyNumber == nil", "luckyNumber != nil", "luckyNumber > 5.5", "luckyNumber IN {1, 2, nil}", "score > 5",
        "active == true", "active != NO", "active IN {true}", #"createdAt > CAST("2021-01-01T00:00:00Z", "NSDate")"#,
        "name ==[cd] 'x'", "name BEGINSWITH 'm'", "tags CONTAINS 'vip'", "ANY tags BEGINSWITH 'v'", "tags == {'a', 'b'}",
        "tags == nil", "NOT (luckyNumber BETWEEN {1, 3})", "'vip' IN tags", "3 < luckyNumber", "TRUEPREDICATE",
    ])
    func comparableConstantsAreAccepted(format: String) {
        #expect(error(format) == nil, "\(format)")
    }

    @Test func argumentsAreCheckedLikeLiterals() throws {
        #expect(error("createdAt > %@", Date()) == nil)
        #expect(error("token == %@", UUID()) == nil)
        #expect(try #require(error("createdAt > %@", "2021-01-01")).message.contains("the string \"2021-01-01\""))
        #expect(try #require(error("luckyNumber == %@", true)).message.contains("the Bool true"))
    }

    @Test func dictionaryConditionsAreChecked() throws {
        try store.read { tx throws in
            #expect(throws: StrataError.self) { try tx.query(TypedMember.self).where(["luckyNumber": "7"]) }
            #expect(throws: StrataError.self) { try tx.query(TypedMember.self).where(["active": 1]) }
            #expect(try tx.query(TypedMember.self).where(["luckyNumber": 7]).count() == 2)
        }
    }

    @Test func untypedQueriesOfADescribedEntityAreChecked() throws {
        let description = EntityDescription(name: "Person", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("luckyNumber", .integer, optional: true),
            FieldDescription("extra", .any, optional: true),
        ])
        _ = try store.importJSON(Data(#"[{"id": 1, "luckyNumber": 7}, {"id": 2, "luckyNumber": 8, "extra": "x"}]"#.utf8), entity: description)
        try store.read { tx throws in
            #expect(throws: StrataError.self) { try tx.query(entity: "Person").where(#"luckyNumber != "7""#) }
            // A field of type `any` holds values of every kind: nothing to check.
            #expect(try tx.query(entity: "Person").where(#"extra == "x""#).count() == 1)
            #expect(try tx.query(entity: "Person").where("extra == 3").count() == 0)
        }
    }

    @Test func deletingByAMismatchedPredicateDeletesNothing() throws {
        let description = EntityDescription(name: "Person", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("luckyNumber", .integer, optional: true),
        ])
        _ = try store.importJSON(Data(#"[{"id": 1, "luckyNumber": 7}, {"id": 2, "luckyNumber": 8}]"#.utf8), entity: description)
        #expect(throws: StrataError.self) {
            try store.write { tx in try tx.delete(entity: "Person", where: #"luckyNumber != "7""#) }
        }
        #expect(throws: StrataError.self) {
            try store.write { tx in try tx.deleteAll(TypedMember.self, where: "luckyNumber != %@", "7") }
        }
        try store.read { tx throws in
            #expect(try tx.query(entity: "Person").count() == 2)
            #expect(try tx.count(TypedMember.self) == 20)
        }
    }

    @Test func aSyncScopeOfAnotherTypeIsRefusedAndDeletesNothing() throws {
        let description = EntityDescription(name: "Person", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("luckyNumber", .integer, optional: true),
        ])
        _ = try store.importJSON(Data(#"[{"id": 1, "luckyNumber": 7}, {"id": 2, "luckyNumber": 8}]"#.utf8), entity: description)
        #expect(throws: StrataError.self) {
            try store.importJSON(Data(#"[{"id": 3, "luckyNumber": 7}]"#.utf8), entity: description,
                                 options: ImportOptions(mode: .sync(scope: "luckyNumber != %@", "7")))
        }
        #expect(try store.read { tx in try tx.query(entity: "Person").count() } == 2)
    }
}
