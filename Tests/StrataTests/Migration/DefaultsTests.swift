import Foundation
import Testing
import TestSupport
@testable import Strata

/// Versions of "Member" for defaults: version 2 adds two non-optional fields with defaults and an
/// index on one of them.
enum DefaultsV1 {
    struct Member: Record, Equatable {
        var id: Int64
        var name: String
        static let primaryKey = \Member.id
        static var entityName: String { "Member" }
    }
}

enum DefaultsV2 {
    struct Member: Record, Equatable {
        var id: Int64
        var name: String
        var plan: String
        var tags: [String]
        static let primaryKey = \Member.id
        static var entityName: String { "Member" }
        static let defaults: [FieldDefault<Member>] = [FieldDefault(\.plan, "free"), FieldDefault(\.tags, [])]
        static let indexes: [IndexDefinition<Member>] = [.index(\.plan)]
    }

    /// The same fields without defaults.
    struct Undefaulted: Record {
        var id: Int64
        var name: String
        var plan: String
        var tags: [String]
        static let primaryKey = \Undefaulted.id
        static var entityName: String { "Member" }
    }

    /// A default for an optional field, which cannot be one.
    struct OptionalDefault: Record {
        var id: Int64
        var nickname: String?
        static let primaryKey = \OptionalDefault.id
        static var entityName: String { "Member" }
        static let defaults: [FieldDefault<OptionalDefault>] = [FieldDefault(\.nickname, "x")]
    }
}

@Suite struct DefaultsTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert((1...5).map { DefaultsV1.Member(id: $0, name: "m\($0)") })
        }
    }

    @Test func aStoredRecordWithoutTheFieldDecodesWithTheDefaultBeforeAnyWrite() throws {
        // Without the default the record does not read (the test for the declaration below).
        #expect(throws: StrataError.self) { try store.read { tx in try tx.get(DefaultsV2.Undefaulted.self, key: 1) } }
        let member = try store.read { tx in try tx.get(DefaultsV2.Member.self, key: 1) }
        #expect(member == DefaultsV2.Member(id: 1, name: "m1", plan: "free", tags: []))
        let all = try store.read { tx in try tx.query(DefaultsV2.Member.self).all() }
        #expect(all.count == 5 && all.allSatisfy { $0.plan == "free" && $0.tags == [] })
    }

    @Test func theFirstWriteFillsOldRecordsSoQueriesAndIndexesSeeTheDefault() throws {
        try store.prepare(DefaultsV2.Member.self)
        try store.write { tx in try tx.upsert(DefaultsV2.Member(id: 6, name: "m6", plan: "pro", tags: ["a"])) }
        try store.read { tx throws in
            #expect(try tx.query(entity: "Member").where("plan == 'free'").count() == 5)
            #expect(try tx.query(DefaultsV2.Member.self).where("plan == 'pro'").count() == 1)
            let plan = try tx.query(DefaultsV2.Member.self).where("plan == 'free'").explain()
            #expect(plan.description.contains("plan"))
            #expect(try tx.verifyIndexes(entity: "Member").isConsistent)
            // The old records now hold the field, and a type without the default reads them.
            #expect(try tx.get(DefaultsV2.Undefaulted.self, key: 2)?.plan == "free")
            #expect(try tx.record(entity: "Member", key: .int(3))?["tags"] == .array([]))
        }
        let defaults = try store.read { tx in try #require(try tx.context(named: "Member")).schema.defaults }
        #expect(Set(defaults.keys) == ["plan", "tags"])
    }

    @Test func theImporterFillsTheDefaultForJSONWithoutTheKey() throws {
        let report = try store.importJSON(Data(#"[{"id": 10, "name": "new"}, {"id": 11, "name": "n", "plan": "team"}]"#.utf8),
                                          as: DefaultsV2.Member.self)
        #expect(report.inserted == 2)
        try store.read { tx throws in
            #expect(try tx.get(DefaultsV2.Member.self, key: 10) == DefaultsV2.Member(id: 10, name: "new", plan: "free", tags: []))
            #expect(try tx.get(DefaultsV2.Member.self, key: 11)?.plan == "team")
            #expect(try tx.query(DefaultsV2.Member.self).where("plan == 'free'").count() == 6)
        }
    }

    @Test func aDefaultForAnOptionalFieldIsRefusedAtTheFirstWrite() throws {
        #expect {
            try store.prepare(DefaultsV2.OptionalDefault.self)
        } throws: { error in
            (error as? StrataError)?.code == .invalidValue && (error as? StrataError)?.field == "nickname"
        }
    }

    @Test func aSchemaFileDefaultFillsUntypedImportsAndOldRecords() throws {
        let schema = #"""
        {"name": "Member", "primaryKey": "id", "fields": [
          {"name": "id", "type": "integer"}, {"name": "name", "type": "string"},
          {"name": "score", "type": "double", "default": 1.5}, {"name": "joined", "type": "date", "default": "2020-01-01T00:00:00Z"}
        ], "indexes": [{"fields": ["score"]}]}
        """#
        let description = try JSONDecoder().decode(EntityDescription.self, from: Data(schema.utf8))
        #expect(description.field("score")?.defaultValue == .double(1.5))
        let report = try store.importJSON(Data(#"[{"id": 20, "name": "x"}]"#.utf8), entity: description)
        #expect(report.inserted == 1)
        try store.read { tx throws in
            #expect(try tx.query(entity: "Member").where("score == 1.5").count() == 6)
            #expect(try tx.record(entity: "Member", key: .int(1))?["joined"] == .string("2020-01-01T00:00:00Z"))
            #expect(try tx.verifyIndexes(entity: "Member").isConsistent)
        }
        // The description round-trips with its default.
        let again = try JSONDecoder().decode(EntityDescription.self, from: JSONEncoder().encode(description))
        #expect(again == description)
    }

    @Test func aDefaultThatDoesNotFitItsFieldIsAnInvalidValue() throws {
        var description = EntityDescription(name: "Member", primaryKey: "id",
                                            fields: [FieldDescription("id", .integer), FieldDescription("name", .string),
                                                     FieldDescription("age", .integer, default: .string("old"))])
        #expect(throws: StrataError.self) { try description.validate() }
        description.fields[2].defaultValue = .int(3)
        try description.validate()
    }
}
