import Foundation
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage
@_spi(Format) import StrataFormat

/// A part that refers to a component by its key, through a case-insensitive index that leads with
/// the reference field (so no index of its own is added for the relationship): the index finds
/// the parts of "A" and of "a" alike.
private struct Part: Record, Equatable {
    var id: Int64
    var componentID: String?
    var rank: Int
    static let primaryKey = \Part.id
    static let indexes: [IndexDefinition<Part>] = [.index(\.componentID, collation: .caseInsensitive)]
    static let component = ToOne<Part, Component>("component", \.componentID, deleteRule: .cascade)
    static let relationships: [AnyRelationship<Part>] = [.init(component)]
}

/// Delete rules find the records that refer to a deleted one in the storage layer (`referringKeys`):
/// through the index that leads with the reference field, each candidate checked against its
/// record, or, without such an index, by reading every record of the holding entity.
@Suite struct DeleteRuleProbeTests {
    @Test func aFoldedReferenceIndexLeadsOnlyToTheRecordsThatHoldTheDeletedKey() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx throws in
            try tx.upsert([Component(id: "A", name: "upper"), Component(id: "a", name: "lower")])
            try tx.upsert([Part(id: 1, componentID: "A", rank: 1), Part(id: 2, componentID: "a", rank: 2),
                           Part(id: 3, componentID: "A", rank: 3), Part(id: 4, componentID: nil, rank: 4)])
        }
        try store.read { tx throws in
            let context = try #require(try tx.context(named: "Part"))
            let relationship = try #require(context.schema.relationships.first)
            #expect(context.schema.indexes.count == 1)   // the declared folded index serves the relationship
            let keys = try tx.referringKeys(to: .string("A"), through: relationship, in: context)
            #expect(try keys.map { try OrderedKey.primaryKeyValue(from: $0) } == [.int(1), .int(3)])
        }
        try store.write { tx throws in #expect(try tx.delete(Component.self, key: "A")) }
        #expect(try store.read { tx throws in try tx.all(Part.self).map(\.id) } == [2, 4])
    }

    @Test func withoutAnIndexOnTheReferenceFieldEveryRecordIsRead() throws {
        let (store, dir) = try makeStore()
        _ = dir
        try store.write { tx throws in
            try tx.upsert([Component(id: "A", name: "upper"), Component(id: "B", name: "other")])
            try tx.upsert([Part(id: 1, componentID: "A", rank: 1), Part(id: 2, componentID: "B", rank: 2),
                           Part(id: 3, componentID: "A", rank: 3)])
        }
        try store.write { tx throws in
            let context = try #require(try tx.context(named: "Part"))
            let index = try #require(context.schema.indexes.first?.name)
            try tx.dropIndex(named: index, fromEntity: "Part")
            #expect(context.schema.indexes.isEmpty)
            let relationship = try #require(context.schema.relationships.first)
            let keys = try tx.referringKeys(to: .string("A"), through: relationship, in: context)
            #expect(try keys.map { try OrderedKey.primaryKeyValue(from: $0) } == [.int(1), .int(3)])
            // The untyped delete the tool uses brings no record type, so the index stays dropped.
            #expect(try tx.delete(entity: "Component", key: .string("A")))
            #expect(try tx.context(named: "Part")?.schema.indexes.isEmpty == true)
        }
        #expect(try store.read { tx throws in try tx.all(Part.self).map(\.id) } == [2])
    }
}
