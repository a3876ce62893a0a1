import Foundation
import Testing
@testable import Strata

struct Box<Payload: Codable & Sendable>: Record {
    var key: UUID
    var payload: Payload
    static var primaryKey: WritableKeyPath<Box, UUID> & Sendable { \Box.key }
}

struct Renamed: Record {
    var code: String
    static let primaryKey = \Renamed.code
    static var entityName: String { "Product" }
}

@Suite struct RecordTests {
    @Test func thePrimaryKeyNameComesFromTheKeyPath() {
        #expect(User.primaryKeyName == "id")
        #expect(Tag.primaryKeyName == "name")
        #expect(Box<Int>.primaryKeyName == "key")
        #expect(Box<[String: Int]>.primaryKeyName == "key")
    }

    @Test func theEntityNameIsTheTypeNameUnlessOverridden() {
        #expect(User.entityName == "User")
        #expect(Renamed.entityName == "Product")
    }

    @Test func aGenericRecordTypeIsStoredUnderItsOwnName() throws {
        let (store, dir) = try makeStore()
        let box = Box(key: UUID(), payload: [1, 2, 3])
        try store.write { tx in try tx.insert(box) }
        #expect(try store.read { tx in try tx.get(Box<[Int]>.self, key: box.key)?.payload } == [1, 2, 3])
        withExtendedLifetime(dir) {}
    }
}
