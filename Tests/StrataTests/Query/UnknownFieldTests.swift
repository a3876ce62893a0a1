import Foundation
import Testing
import TestSupport
@testable import Strata

/// A record type with a never-set optional, an embedded struct and a computed property.
private struct Contact: Record {
    struct Place: Codable, Sendable { var city: String; var zip: String? }
    var id: Int64
    var name: String
    var nickname: String?
    var address: Place
    var fullName: String { "\(name) (\(address.city))" }
    static let primaryKey = \Contact.id
}

/// A record type whose stored name differs from its property's: key paths name `lastName`,
/// the records hold `last_name`.
private struct RenamedStored: Record {
    var id: Int64
    var lastName: String
    enum CodingKeys: String, CodingKey { case id, lastName = "last_name" }
    static let primaryKey = \RenamedStored.id
}

/// The same stored shape, with an index declared on the key path that names no stored field.
private struct RenamedStoredIndexed: Record {
    var id: Int64
    var lastName: String
    enum CodingKeys: String, CodingKey { case id, lastName = "last_name" }
    static let primaryKey = \RenamedStoredIndexed.id
    static let indexes: [IndexDefinition<RenamedStoredIndexed>] = [.index(\.lastName)]
}

/// Every front end checks a field path against the entity's fields with one function
/// (``KnownFields/check(_:column:for:)``), with a "did you mean …?" suggestion: format and
/// sort strings, dictionaries, `#Predicate`s, `SortDescriptor`s, key-path predicates and
/// orderings, declared and added indexes.
@Suite struct UnknownFieldTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert([Contact(id: 1, name: "Ann", address: .init(city: "Bern")),
                           Contact(id: 2, name: "Bob", address: .init(city: "Oslo", zip: "0150"))])
            try tx.insert([RenamedStored(id: 1, lastName: "Bluth"), RenamedStored(id: 2, lastName: "Fünke")])
        }
    }

    private func queryError(_ body: (ReadTransaction) throws -> Void) throws -> StrataError {
        try #require(throws: StrataError.self) { try store.read { tx in try body(tx) } }
    }

    @Test func aKeyPathPredicateOnAFieldThatIsNotStoredIsAnErrorWithASuggestion() throws {
        let renamed = try queryError { tx in _ = try tx.query(RenamedStored.self).where(\.lastName == "Bluth").all() }
        #expect(renamed.code == .unknownField)
        #expect(renamed.message == "unknown field 'lastName' in RenamedStored (did you mean 'last_name'?)", "\(renamed.message)")
        #expect(renamed.field == "lastName")
        // A computed property is no stored field either: it used to match nothing, silently.
        let computed = try queryError { tx in _ = try tx.query(Contact.self).where(\.fullName == "Ann (Bern)").count() }
        #expect(computed.code == .unknownField && computed.message.hasPrefix("unknown field"), "\(computed.message)")
        // Every way of running the query checks it, explain included.
        _ = try queryError { tx in _ = try tx.query(RenamedStored.self).where(\.lastName == "Bluth").explain() }
        _ = try queryError { tx in _ = try tx.query(RenamedStored.self).where(\.lastName == "Bluth").exists() }
    }

    @Test func aKeyPathOrderingOnAFieldThatIsNotStoredIsAnError() throws {
        let error = try queryError { tx in _ = try tx.query(RenamedStored.self).sorted(by: \.lastName).all() }
        #expect(error.message == "unknown field 'lastName' in RenamedStored (did you mean 'last_name'?)", "\(error.message)")
        let descriptor = try queryError { tx in _ = try tx.query(RenamedStored.self).sorted(by: [SortDescriptor(\RenamedStored.lastName)]).all() }
        #expect(descriptor.message.contains("did you mean 'last_name'?"), "\(descriptor.message)")
    }

    @Test func foundationPredicatesAndDictionariesGetTheSuggestionToo() throws {
        let predicate = try queryError { tx in _ = try tx.query(RenamedStored.self).where(#Predicate<RenamedStored> { $0.lastName == "Bluth" }) }
        #expect(predicate.message == "unknown field 'lastName' in RenamedStored (did you mean 'last_name'?)", "\(predicate.message)")
        let dictionary = try queryError { tx in _ = try tx.query(entity: "Contact").where(["nmae": "Ann"]) }
        #expect(dictionary.message == "unknown field 'nmae' in Contact (did you mean 'name'?)", "\(dictionary.message)")
    }

    @Test func aRecordTypesOwnFieldsAreKnownBeforeAnyRecordStoresThem() throws {
        try store.read { tx throws in
            // `nickname` was never set, so no record stored it: the type declares it all the same.
            #expect(try tx.query(Contact.self).where("nickname == nil").count() == 2)
            #expect(try tx.query(Contact.self).where(\.nickname == nil).count() == 2)
            #expect(try tx.query(Contact.self).where(["nickname": "x"]).count() == 0)
            #expect(try tx.query(Contact.self).sorted(by: "nickname").count() == 2)
            // Untyped, the store knows only what it stored.
            let untyped = try #require(throws: StrataError.self) { try tx.query(entity: "Contact").where("nicknme == nil") }
            #expect(untyped.message.hasPrefix("unknown field 'nicknme' in Contact"), "\(untyped.message)")
        }
    }

    @Test func embeddedFieldsAreCheckedWhereTheirShapeIsKnown() throws {
        try store.read { tx throws in
            #expect(try tx.query(Contact.self).where("address.city == 'Bern'").count() == 1)
            #expect(try tx.query(Contact.self).where("address.zip == nil").count() == 1)
            let typo = try #require(throws: StrataError.self) { try tx.query(Contact.self).where("address.ctiy == 'Bern'") }
            #expect(typo.message == "unknown field 'address.ctiy' in Contact: Contact.address has no field 'ctiy' (did you mean 'city'?) at column 1",
                    "\(typo.message)")
            #expect(typo.field == "address.ctiy")
            // Without the type, stored records say nothing of an embedded struct's fields: not checked.
            #expect(try tx.query(entity: "Contact").where("address.ctiy == 'Bern'").count() == 0)
        }
    }

    @Test func queriesOfAnEntityTheStoreDoesNotHaveAreNotChecked() throws {
        let (empty, emptyDir) = try makeStore()
        try empty.read { tx throws in
            #expect(try tx.query(Contact.self).where("nickname == 'x' AND address.city == 'Bern'").count() == 0)
            #expect(try tx.query(Contact.self).where(\.name == "Ann").sorted(by: \.name).all().isEmpty)
            #expect(try tx.query(Contact.self).where(["name": "Ann"]).count() == 0)
        }
        withExtendedLifetime(emptyDir) {}
    }

    @Test func aDeclaredIndexOnAFieldThatIsNotStoredIsRefusedAtTheFirstWrite() throws {
        let error = try #require(throws: StrataError.self) {
            try store.write { tx in try tx.insert(RenamedStoredIndexed(id: 1, lastName: "Bluth")) }
        }
        #expect(error.code == .unknownField)
        #expect(error.message == "the index on 'lastName' of RenamedStoredIndexed: unknown field 'lastName' in RenamedStoredIndexed (did you mean 'last_name'?)",
                "\(error.message)")
        #expect(try store.read { tx in try tx.count(entity: "RenamedStoredIndexed") } == 0)
    }

    @Test func aggregatesOfAFieldTheEntityDoesNotHaveAreErrorsNotNil() throws {
        let cases: [(String, (QueryRequest<Contact>) throws -> Any)] = [
            ("sum(nmae)", { try $0.sum("nmae") as Any }), ("average(nmae)", { try $0.average("nmae") as Any }),
            ("min(nmae)", { try $0.min("nmae") as Any }), ("max(nmae)", { try $0.max("nmae") as Any }),
            ("distinct(nmae)", { try $0.distinct("nmae") }), ("group(by: nmae)", { try $0.group(by: "nmae") }),
            ("sum(nmae)", { try $0.group(by: "name", aggregating: .sum("nmae")) }),
        ]
        for (usage, aggregate) in cases {
            let error = try #require(throws: StrataError.self) { try store.read { tx in _ = try aggregate(tx.query(Contact.self)) } }
            #expect(error.code == .unknownField)
            #expect(error.message == "\(usage): unknown field 'nmae' in Contact (did you mean 'name'?)", "\(error.message)")
        }
        // Untyped too, and a field that only some records hold is known.
        try store.read { tx throws in
            #expect(throws: StrataError.self) { try tx.query(entity: "Contact").average("agee") }
            #expect(try tx.query(entity: "Contact").distinct("name") == [.string("Ann"), .string("Bob")])
            #expect(try tx.query(Contact.self).distinct("nickname") == [.null])   // the type declares it
            #expect(try tx.query(Contact.self).group(by: "address.zip").count == 2)
        }
    }

    @Test func migrationsCheckFieldNamesWithTheSameCheckAndCode() throws {
        let renamed = try #require(throws: StrataError.self) {
            try store.write { tx in try tx.renameField("nmae", to: "label", in: "Contact") }
        }
        #expect(renamed.code == .unknownField)
        #expect(renamed.message == "unknown field 'nmae' in Contact (did you mean 'name'?)", "\(renamed.message)")
        let removed = try #require(throws: StrataError.self) { try store.write { tx in try tx.removeField("nmae", from: "Contact") } }
        #expect(removed.code == .unknownField && removed.message.hasPrefix("unknown field 'nmae' in Contact"), "\(removed.message)")
        let changed = try #require(throws: StrataError.self) { try store.write { tx in try tx.changeFieldType("nmae", in: "Contact", to: .string) } }
        #expect(changed.code == .unknownField && changed.message.hasPrefix("unknown field 'nmae' in Contact"), "\(changed.message)")
    }

    @Test func anIndexAddedByNameIsCheckedWithASuggestion() throws {
        let error = try #require(throws: StrataError.self) {
            try store.write { tx in try tx.addIndex(IndexDescription(fields: ["nmae"]), toEntity: "Contact") }
        }
        #expect(error.code == .unknownField)
        #expect(error.message == "the index on 'nmae' of Contact: unknown field 'nmae' in Contact (did you mean 'name'?)", "\(error.message)")
        try store.write { tx in try tx.addIndex(IndexDescription(fields: ["name"]), toEntity: "Contact") }
        #expect(try store.read { tx in try tx.verifyIndexes(entity: "Contact").isConsistent })
    }
}
