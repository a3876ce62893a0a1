@_spi(Format) import StrataFormat

import Foundation
import Testing
import TestSupport
@testable import Strata

/// After `addField(_:to:default:)` (or a type's ``Record/defaults``), every later write that lacks
/// the field stores its default, whoever writes it: a type without the field, an import as that
/// type or by a description without it, another `Store`. And a write by a type without the field
/// keeps the value a record holds.
@Suite struct DefaultedWritesTests {
    let dir: TemporaryDirectory
    let store: Store

    /// Members 1...5 written by version 1; then "plan" added with the default "free", member 1's
    /// plan set to "pro" and an index on plan.
    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...5).map { DefaultsV1.Member(id: $0, name: "m\($0)") }) }
        try store.write { tx in
            try tx.addField("plan", to: "Member", default: "free")
            try tx.addIndex(IndexDescription(fields: ["plan"]), toEntity: "Member")
        }
        try store.write { tx in
            let one = try #require(try tx.record(entity: "Member", key: .int(1)))
            #expect(one["plan"] == .string("free"))
        }
        let report = try store.importJSON(Data(#"[{"id": 1, "plan": "pro"}]"#.utf8),
                                          entity: try store.read { tx in try tx.entityDescription(named: "Member") })
        #expect(report.updated == 1)
    }

    func plan(_ key: Int64) throws -> JSONValue? {
        try store.read { tx in try tx.record(entity: "Member", key: .int(key))?["plan"] }
    }

    func expectConsistent() throws {
        try store.read { tx throws in #expect(try tx.verifyIndexes(entity: "Member").isConsistent) }
    }

    @Test func aTypeWithoutTheFieldInsertsAndUpsertsRecordsWithTheDefault() throws {
        try store.write { tx in
            try tx.insert(DefaultsV1.Member(id: 6, name: "m6"))
            try tx.upsert(DefaultsV1.Member(id: 7, name: "m7"))
            try tx.upsert([DefaultsV1.Member(id: 8, name: "m8"), DefaultsV1.Member(id: 9, name: "m9")])
        }
        for key in Int64(6)...9 { #expect(try plan(key) == .string("free")) }
        #expect(try store.read { tx in try tx.query(entity: "Member").where("plan == 'free'").count() } == 8)
        try expectConsistent()
    }

    @Test func aTypeWithoutTheFieldKeepsTheStoredValueWhenItUpdates() throws {
        try store.write { tx in
            try tx.update(DefaultsV1.Member(id: 1, name: "renamed"))
            try tx.upsert([DefaultsV1.Member(id: 1, name: "again"), DefaultsV1.Member(id: 2, name: "two")])
        }
        #expect(try plan(1) == .string("pro"))
        #expect(try store.read { tx in try tx.record(entity: "Member", key: .int(1))?["name"] } == .string("again"))
        #expect(try plan(2) == .string("free"))
        // Writing what is stored changes nothing.
        #expect(try store.write { tx in try tx.upsert(DefaultsV1.Member(id: 1, name: "again")) } == .unchanged)
        try expectConsistent()
    }

    @Test func importsAsTheTypeOrByADescriptionWithoutTheFieldStoreTheDefaultAndKeepStoredValues() throws {
        let typed = try store.importJSON(Data(#"[{"id": 1, "name": "one"}, {"id": 10, "name": "ten"}]"#.utf8), as: DefaultsV1.Member.self)
        #expect(typed.inserted == 1 && typed.updated == 1)
        let old = EntityDescription(name: "Member", primaryKey: "id", fields: [FieldDescription("id", .integer), FieldDescription("name", .string)])
        let described = try store.importJSON(Data(#"[{"id": 11, "name": "eleven"}]"#.utf8), entity: old)
        #expect(described.inserted == 1)
        #expect(try plan(1) == .string("pro"))
        #expect(try plan(10) == .string("free"))
        #expect(try plan(11) == .string("free"))
        try expectConsistent()
    }

    @Test func anotherStoreOpenedBeforeTheFieldWasAddedStoresTheDefault() throws {
        let path = dir.path("other")
        let first = try Store(path: path)
        try first.write { tx in try tx.insert(DefaultsV1.Member(id: 1, name: "a")) }
        // A second opening (its own state) adds the field, as another process would.
        let second = try Store(path: path)
        try second.write { tx in try tx.addField("plan", to: "Member", default: "basic") }
        try first.write { tx in try tx.insert(DefaultsV1.Member(id: 2, name: "b")) }
        #expect(try first.read { tx in try tx.record(entity: "Member", key: .int(2))?["plan"] } == .string("basic"))
    }

    @Test func aTypesDeclaredDefaultIsStoredByWritesOfATypeWithoutTheField() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.prepare(DefaultsV2.Member.self)   // records the defaults of plan and tags
        try store.write { tx in
            try tx.insert(DefaultsV2.Member(id: 1, name: "a", plan: "team", tags: ["x"]))
            try tx.insert(DefaultsV1.Member(id: 2, name: "b"))
            try tx.upsert(DefaultsV1.Member(id: 1, name: "a2"))
        }
        try store.read { tx throws in
            #expect(try tx.get(DefaultsV2.Undefaulted.self, key: 2)?.plan == "free")
            #expect(try tx.get(DefaultsV2.Undefaulted.self, key: 2)?.tags == [])
            let one = try tx.get(DefaultsV2.Member.self, key: 1)
            #expect(one == DefaultsV2.Member(id: 1, name: "a2", plan: "team", tags: ["x"]))
            #expect(try tx.query(DefaultsV2.Member.self).where(\.plan == "free").count() == 1)
            #expect(try tx.verifyIndexes(entity: "Member").isConsistent)
        }
    }

    @Test func aRemovedFieldIsNotKeptByTypedWrites() throws {
        try store.write { tx in try tx.removeField("plan", from: "Member") }
        try store.write { tx in try tx.upsert(DefaultsV1.Member(id: 1, name: "one")) }
        let count = try store.read { tx throws in
            let context = try #require(try tx.context(named: "Member"))
            let bytes = try #require(try tx.storedBytes(forKey: try tx.storedPrimaryKey(.int(1), context), context))
            let reader = CBORReader(bytes: bytes)
            var cursor = try RecordCursor(reader)
            return try cursor.entries(in: reader).count
        }
        #expect(count == 2)   // id and name: the removed plan's bytes are gone
    }
}
