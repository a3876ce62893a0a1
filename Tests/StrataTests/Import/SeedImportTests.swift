import Foundation
import Testing
import TestSupport
@testable import Strata

/// The ancestors' README examples (../shared/seeds/), imported through Strata.
@Suite struct SeedImportTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// Kern's `kern_mappedAttributes`: remoteID ← "id" (the primary key), timeStamp ← "timestamp".
    struct KernUser: Record, Equatable {
        var remoteID: Int64
        var firstName: String?
        var lastName: String?
        var luckyNumber: Int?
        var timeStamp: Date?
        static let primaryKey = \KernUser.remoteID
        static let jsonKeys: JSONKeys<KernUser> = [
            \.remoteID: "id", \.firstName: "first_name", \.lastName: "last_name",
            \.luckyNumber: "lucky_number", \.timeStamp: "timestamp",
        ]
    }

    let gob = #"{"id": 99, "first_name": "Gob", "last_name": "Bluth", "lucky_number": 21, "timestamp": "1970-01-01T00:00:00Z"}"#

    @Test func kernUpdatesOrCreatesGobBluthFromTheMappedDictionary() throws {
        #expect(try store.importJSON(Data(gob.utf8), as: KernUser.self).inserted == 1)
        let expected = KernUser(remoteID: 99, firstName: "Gob", lastName: "Bluth", luckyNumber: 21, timeStamp: Date(timeIntervalSince1970: 0))
        #expect(try store.read { tx in try tx.get(KernUser.self, key: 99) } == expected)
        // updateOrCreateEntityUsingRemoteDictionary a second time finds the record by its primary key.
        let changed = gob.replacingOccurrences(of: "21", with: "22")
        let report = try store.importJSON(Data(changed.utf8), as: KernUser.self)
        #expect((report.inserted, report.updated) == (0, 1))
        #expect(try store.read { tx in try tx.count(KernUser.self) } == 1)
        #expect(try store.read { tx in try tx.get(KernUser.self, key: 99) }?.luckyNumber == 22)
        // updateOrCreateEntitiesUsingRemoteArray: the batch form.
        let array = "[" + gob + "," + gob.replacingOccurrences(of: "99", with: "100").replacingOccurrences(of: "Gob", with: "Buster") + "]"
        let batch = try store.importJSON(Data(array.utf8), as: KernUser.self)
        #expect((batch.inserted, batch.updated) == (1, 1))
    }

    @Test func kernsMappingFollowsFromConventionsAlone() throws {
        struct ConventionalUser: Record, Equatable {
            var remoteID: Int64
            var firstName: String
            var lastName: String
            var luckyNumber: Int?
            var timeStamp: Date?
            static let primaryKey = \ConventionalUser.remoteID
        }
        try store.importJSON(Data(gob.utf8), as: ConventionalUser.self)
        #expect(try store.read { tx in try tx.get(ConventionalUser.self, key: 99) }
                == ConventionalUser(remoteID: 99, firstName: "Gob", lastName: "Bluth", luckyNumber: 21, timeStamp: Date(timeIntervalSince1970: 0)))
    }

    /// Lidenbrock: a `syncID` matched by the JSON's `id`, `_id` or `syncID`; ingredients embedded.
    struct Recipe: Record, Equatable {
        struct Ingredient: Codable, Sendable, Equatable { var syncID: String; var name: String }
        var syncID: String
        var name: String
        var details: String?
        var ingredients: [Ingredient]
        static let primaryKey = \Recipe.syncID
    }

    @Test(arguments: ["id", "_id", "syncID"])
    func lidenbrockSyncsByIdUnderscoreIdOrSyncID(key: String) throws {
        let pancake = #"""
            {"\#(key)": "REC1", "name": "pancake", "details": "In a large bowl, sift together the flour, egg, milk...",
             "ingredients": [{"\#(key)": "INGR1", "name": "flour"}, {"\#(key)": "INGR2", "name": "egg"}, {"\#(key)": "INGR3", "name": "milk"}]}
            """#
        #expect(try store.importJSON(Data(pancake.utf8), as: Recipe.self).inserted == 1)
        let recipe = try #require(try store.read { tx in try tx.get(Recipe.self, key: "REC1") })
        #expect(recipe.ingredients.map(\.syncID) == ["INGR1", "INGR2", "INGR3"])
        #expect(recipe.ingredients.map(\.name) == ["flour", "egg", "milk"])
        // Synchronising again with a changed name updates the same record.
        let renamed = pancake.replacingOccurrences(of: "pancake", with: "crêpe")
        #expect(try store.importJSON(Data(renamed.utf8), as: Recipe.self).updated == 1)
        #expect(try store.read { tx in try tx.all(Recipe.self).map(\.name) } == ["crêpe"])
        // Lidenbrock's ORDER BY string finds it.
        #expect(try store.read { tx in try tx.query(Recipe.self, "name BEGINSWITH 'cr' ORDER BY name DESC").all().count } == 1)
    }

    /// Kipu's `processChanges`: insert, update and delete to match the server's JSON, by convention.
    struct KipuUser: Record, Equatable {
        struct Note: Codable, Sendable, Equatable {
            var remoteID: Int
            var text: String
            var createdDate: Date
            var updatedDate: Date
        }
        var remoteID: Int64
        var name: String
        var email: String
        var createdDate: Date
        var updatedDate: Date
        var notes: [Note]
        static let primaryKey = \KipuUser.remoteID
    }

    let kipuJSON = #"""
        [
        {
        "id": 6,
        "name": "Shawn Merrill",
        "email": "shawn@example.com",
        "created_at": "2014-02-14T04:30:10+00:00",
        "updated_at": "2014-02-17T10:01:12+00:00",
        "notes": [
        {
        "id": 0,
        "text": "Shawn Merril's diary, episode 1",
        "created_at": "2014-03-11T19:11:00+00:00",
        "updated_at": "2014-04-18T22:01:00+00:00"
        }
        ]
        }
        ]
        """#

    @Test func kipuProcessChangesInsertsUpdatesAndDeletesToMatchTheServer() throws {
        try store.write { tx in
            try tx.insert(KipuUser(remoteID: 5, name: "Gone", email: "g@example.com", createdDate: .distantPast, updatedDate: .distantPast, notes: []))
        }
        let report = try store.importJSON(Data(kipuJSON.utf8), as: KipuUser.self, options: ImportOptions(mode: .sync))
        #expect((report.inserted, report.deleted) == (1, 1))
        let shawn = try #require(try store.read { tx in try tx.get(KipuUser.self, key: 6) })
        #expect(shawn.name == "Shawn Merrill")
        #expect(shawn.createdDate == Date(timeIntervalSince1970: 1_392_352_210))
        #expect(shawn.updatedDate == Date(timeIntervalSince1970: 1_392_631_272))
        #expect(shawn.notes == [KipuUser.Note(remoteID: 0, text: "Shawn Merril's diary, episode 1",
                                              createdDate: Date(timeIntervalSince1970: 1_394_565_060),
                                              updatedDate: Date(timeIntervalSince1970: 1_397_858_460))])
        #expect(try store.read { tx in try tx.all(KipuUser.self).map(\.remoteID) } == [6])
        // The same changes again: nothing to do.
        let again = try store.importJSON(Data(kipuJSON.utf8), as: KipuUser.self, options: ImportOptions(mode: .sync))
        #expect((again.unchanged, again.inserted, again.updated, again.deleted) == (1, 0, 0, 0))
    }
}
