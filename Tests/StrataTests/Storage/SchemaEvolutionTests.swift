import Foundation
import Testing
import TestSupport
@testable import Strata

/// Versions of one entity, "Person", as a program's type changes over releases.
enum V1 {
    struct Person: Record, Equatable {
        var id: Int64
        var name: String
        var nickname: String
        static let primaryKey = \Person.id
        static var entityName: String { "Person" }
    }
}

enum V2 {
    /// Adds an optional field, removes `nickname`.
    struct Person: Record, Equatable {
        var id: Int64
        var name: String
        var email: String?
        static let primaryKey = \Person.id
        static var entityName: String { "Person" }
    }
    /// Changes `name`'s type.
    struct PersonWithNumericName: Record {
        var id: Int64
        var name: Int
        static let primaryKey = \PersonWithNumericName.id
        static var entityName: String { "Person" }
    }
    /// Adds a required field.
    struct PersonWithRequiredAge: Record {
        var id: Int64
        var name: String
        var age: Int
        static let primaryKey = \PersonWithRequiredAge.id
        static var entityName: String { "Person" }
    }
    /// Keys the entity by a different field.
    struct PersonByName: Record {
        var id: Int64
        var name: String
        static let primaryKey = \PersonByName.name
        static var entityName: String { "Person" }
    }
}

@Suite struct SchemaEvolutionTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in try tx.insert(V1.Person(id: 7, name: "Ada", nickname: "Countess")) }
    }

    @Test func anAddedOptionalFieldReadsAsNilAndARemovedFieldIsIgnored() throws {
        let person = try store.read { tx in try tx.get(V2.Person.self, key: 7) }
        #expect(person == V2.Person(id: 7, name: "Ada", email: nil))
    }

    @Test func newFieldsGetNewIdsAndOldRecordsStillReadWithTheOldType() throws {
        try store.write { tx in try tx.insert(V2.Person(id: 8, name: "Grace", email: "g@navy.mil")) }
        let table = try store.read { tx in try #require(try tx.context(for: V2.Person.self)).schema.fields }
        #expect(table.id(for: "nickname") != nil)      // ids are never reused
        #expect(table.id(for: "email") == 4)
        #expect(try store.read { tx in try tx.get(V2.Person.self, key: 8)?.email } == "g@navy.mil")
        #expect(try store.read { tx in try tx.get(V1.Person.self, key: 7)?.nickname } == "Countess")
    }

    @Test func aChangedFieldTypeIsAnErrorNamingEntityFieldAndKey() throws {
        do {
            _ = try store.read { tx in try tx.get(V2.PersonWithNumericName.self, key: 7) }
            Issue.record("expected typeMismatch")
        } catch let error as StrataError {
            #expect(error.code == .typeMismatch)
            #expect(error.entity == "Person")
            #expect(error.field == "name")
            #expect(error.key == "7")
            #expect(error.message.contains("Person") && error.message.contains("name") && error.message.contains("7"))
        }
    }

    @Test func aNewRequiredFieldIsAMissingFieldError() throws {
        #expect {
            try store.read { tx in try tx.all(V2.PersonWithRequiredAge.self) }
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .missingField && error?.field == "age" && error?.key == "7"
        }
    }

    @Test func aChangedPrimaryKeyIsRefused() throws {
        #expect {
            try store.read { tx in try tx.count(V2.PersonByName.self) }
        } throws: { ($0 as? StrataError)?.code == .incompatibleStore }
    }
}
