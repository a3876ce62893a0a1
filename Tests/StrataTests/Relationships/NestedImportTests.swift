import Foundation
import Testing
import TestSupport
@testable import Strata

/// Kipu's users with their notes, as its README's payload nests them.
struct KipuUser: Record, Equatable {
    var id: Int64
    var name: String
    var email: String
    var createdDate: Date
    var updatedDate: Date
    static let primaryKey = \KipuUser.id
}

struct KipuNote: Record, Equatable {
    var id: Int64
    var text: String
    var createdDate: Date
    var updatedDate: Date
    var userID: Int64?
    static let primaryKey = \KipuNote.id
    static let indexes: [IndexDefinition<KipuNote>] = [.index(\.text)]
    static let user = ToOne<KipuNote, KipuUser>("user", \.userID, inverse: "notes", deleteRule: .cascade)
    static let relationships: [AnyRelationship<KipuNote>] = [.init(user)]
}

@Suite struct NestedImportTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws { (store, dir) = try makeStore() }

    /// Kipu's payload (../shared/seeds/004), with a second user and more notes.
    static let kipuPayload = #"""
    [
      {"id": 6, "name": "Shawn Merrill", "email": "shawn@example.com",
       "created_at": "2014-02-14T04:30:10+00:00", "updated_at": "2014-02-17T10:01:12+00:00",
       "notes": [
         {"id": 0, "text": "Shawn Merril's diary, episode 1", "created_at": "2014-03-11T19:11:00+00:00", "updated_at": "2014-04-18T22:01:00+00:00"},
         {"id": 1, "text": "Shawn Merril's diary, episode 2", "created_at": "2014-03-12T19:11:00+00:00", "updated_at": "2014-04-19T22:01:00+00:00"},
         {"id": 2, "text": "Shawn Merril's diary, episode 3", "created_at": "2014-03-13T19:11:00+00:00", "updated_at": "2014-04-20T22:01:00+00:00"}
       ]},
      {"id": 7, "name": "Gob Bluth", "email": "gob@example.com",
       "created_at": "2014-02-15T04:30:10+00:00", "updated_at": "2014-02-18T10:01:12+00:00",
       "notes": [{"id": 10, "text": "Illusions", "created_at": "2014-03-11T19:11:00+00:00", "updated_at": "2014-04-18T22:01:00+00:00"}]}
    ]
    """#

    private var kipuOptions: ImportOptions { ImportOptions(related: [.record(KipuNote.self)]) }

    private func notes(of user: Int64) throws -> [KipuNote] {
        try store.read { tx throws in try tx.query(KipuNote.self).where(\.userID == user).all() }
    }

    private func expectConsistentIndexes(_ entities: String...) throws {
        for entity in entities {
            let verification = try store.read { tx throws in try tx.verifyIndexes(entity: entity) }
            #expect(verification.isConsistent, "\(entity): \(verification.problems.prefix(3))")
        }
    }

    @Test func kipusUsersWithNotesInsertThenReimportWithANoteRemovedAndOneChanged() throws {
        let first = try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self, options: kipuOptions)
        #expect(first.inserted == 2)
        #expect(first.related["KipuNote"]?.inserted == 4)
        #expect(first.ignoredKeys.isEmpty, "\(first.ignoredKeys)")
        #expect(try notes(of: 6).map(\.id) == [0, 1, 2])
        #expect(try notes(of: 7).map(\.text) == ["Illusions"])
        let shawn = try #require(try store.read { tx throws in try tx.get(KipuUser.self, key: 6) })
        #expect(shawn.createdDate == ISO8601DateFormatter().date(from: "2014-02-14T04:30:10Z"))
        #expect(try store.read { tx throws in try tx.related(KipuNote.user, of: shawn).count } == 3)

        // The server dropped episode 2 and edited episode 3: a sync makes the store match.
        var changed = Self.kipuPayload.replacingOccurrences(
            of: #"{"id": 1, "text": "Shawn Merril's diary, episode 2", "created_at": "2014-03-12T19:11:00+00:00", "updated_at": "2014-04-19T22:01:00+00:00"},"#, with: "")
        changed = changed.replacingOccurrences(of: "diary, episode 3", with: "diary, episode 3 (edited)")
        #expect(changed != Self.kipuPayload)
        var options = kipuOptions
        options.mode = .sync
        let second = try store.importJSON(Data(changed.utf8), as: KipuUser.self, options: options)
        #expect(second.unchanged == 2)
        #expect(second.related["KipuNote"] == {
            var counts = RelatedImportCounts()
            counts.updated = 1
            counts.unchanged = 2
            counts.deleted = 1
            return counts
        }())
        #expect(try notes(of: 6).map(\.text) == ["Shawn Merril's diary, episode 1", "Shawn Merril's diary, episode 3 (edited)"])
        #expect(try store.read { tx throws in try tx.get(KipuNote.self, key: 1) } == nil)
        #expect(try store.read { tx throws in try tx.query(KipuNote.self).where("text BEGINSWITH 'Shawn'").count() } == 2)
        try expectConsistentIndexes("KipuNote", "KipuUser")

        // Upsert mode adds and updates but never removes.
        let third = try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self, options: kipuOptions)
        #expect(third.related["KipuNote"]?.inserted == 1)
        #expect(third.related["KipuNote"]?.updated == 1)
        #expect(try notes(of: 6).count == 3)
    }

    @Test func aSyncThatDropsAUserCascadesToItsNotes() throws {
        try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self, options: kipuOptions)
        var options = kipuOptions
        options.mode = .sync
        let report = try store.importJSON(Data(#"[{"id": 7, "name": "Gob Bluth", "email": "gob@example.com", "created_at": "2014-02-15T04:30:10+00:00", "updated_at": "2014-02-18T10:01:12+00:00"}]"#.utf8),
                                          as: KipuUser.self, options: options)
        #expect(report.deleted == 1)
        #expect(try store.read { tx throws in try tx.count(KipuNote.self) } == 1)
        #expect(try notes(of: 6).isEmpty)
        #expect(try notes(of: 7).map(\.id) == [10], "an absent 'notes' member leaves the notes as stored")
        try expectConsistentIndexes("KipuNote", "KipuUser")
    }

    @Test func nullClearsARelationshipAndAbsenceLeavesIt() throws {
        try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self, options: kipuOptions)
        // `null` detaches every note, by the cascade rule, even in upsert mode.
        let report = try store.importJSON(Data(#"{"id": 6, "notes": null}"#.utf8), as: KipuUser.self, options: kipuOptions)
        #expect(report.updated == 0 && report.unchanged == 1)
        #expect(report.related["KipuNote"]?.deleted == 3)
        #expect(try notes(of: 6).isEmpty)
        #expect(try notes(of: 7).count == 1)

        // A to-one reference: null clears it, absence leaves it.
        try store.importJSON(Data(#"[{"id": 1, "name": "Acme"}]"#.utf8), as: Company.self)
        try store.importJSON(Data(#"[{"id": 20, "name": "Tobias", "company_id": 1}, {"id": 21, "name": "Lindsay", "company_id": 1}]"#.utf8), as: Author.self)
        try store.importJSON(Data(#"[{"id": 20, "company": null}, {"id": 21, "email": "l@example.com"}]"#.utf8), as: Author.self)
        let authors = try store.read { tx throws in try tx.query(Author.self).all() }
        #expect(authors == [Author(id: 20, name: "Tobias", companyID: nil), Author(id: 21, name: "Lindsay", email: "l@example.com", companyID: 1)])
        try expectConsistentIndexes("KipuNote", "Author")
    }

    @Test func aNestedToOneObjectIsUpsertedAndReferenced() throws {
        let report = try store.importJSON(Data(#"""
        [{"id": 20, "name": "Tobias", "company": {"id": 7, "name": "Fünke Analysis"}},
         {"id": 21, "name": "Lindsay", "company": {"id": 7, "name": "Fünke Analysis"}}]
        """#.utf8), as: Author.self, options: ImportOptions(related: [.record(Company.self)]))
        #expect(report.inserted == 2)
        #expect(report.related["Company"]?.inserted == 1)
        #expect(report.related["Company"]?.unchanged == 1)
        try store.read { tx throws in
            #expect(try tx.query(Author.self).all().map(\.companyID) == [7, 7])
            #expect(try tx.query(Author.self, "company.name BEGINSWITH[c] 'fün'").count() == 2)
        }
    }

    @Test func lidenbrocksRecipeLoadsItsIngredientsAndResyncsById() throws {
        let options = ImportOptions(related: [.record(Component.self)])
        let pancake = #"""
        {"id": "REC1", "name": "pancake", "details": "In a large bowl, sift together the flour, egg, milk...",
         "ingredients": [{"id": "INGR1", "name": "flour"}, {"id": "INGR2", "name": "egg"}, {"id": "INGR3", "name": "milk"}]}
        """#
        try store.importJSON(Data(pancake.utf8), as: Dish.self, options: options)
        try store.importJSON(Data(#"{"id": "REC2", "name": "meringue", "details": "Whisk", "ingredients": [{"id": "INGR2", "name": "egg"}, {"id": "INGR4", "name": "sugar"}]}"#.utf8),
                             as: Dish.self, options: options)
        try store.read { tx throws in
            #expect(try tx.count(Component.self) == 4, "ingredients are unique by id across recipes")
            let dish = try #require(try tx.get(Dish.self, key: "REC1"))
            #expect(dish.ingredientIDs == ["INGR1", "INGR2", "INGR3"])
            #expect(try tx.related(Dish.ingredients, of: dish).map(\.name) == ["flour", "egg", "milk"])
            #expect(try tx.query(Dish.self, "ANY ingredients.name == %@ ORDER BY name DESC", "egg").all().map(\.name) == ["pancake", "meringue"])
        }
        // Re-sync by id: the same recipe with one ingredient renamed and one dropped.
        let resynced = try store.importJSON(Data(#"""
        {"id": "REC1", "name": "pancake", "details": "In a large bowl, sift together the flour, egg, milk...",
         "ingredients": [{"id": "INGR1", "name": "wheat flour"}, {"id": "INGR2", "name": "egg"}]}
        """#.utf8), as: Dish.self, options: options)
        #expect(resynced.updated == 1)
        #expect(resynced.related["Component"]?.updated == 1)
        #expect(resynced.related["Component"]?.unchanged == 1)
        try store.read { tx throws in
            #expect(try tx.count(Dish.self) == 2)
            #expect(try tx.count(Component.self) == 4, "a dropped ingredient is unlinked, not deleted: other recipes may use it")
            #expect(try tx.get(Dish.self, key: "REC1")?.ingredientIDs == ["INGR1", "INGR2"])
            #expect(try tx.query(Dish.self, "ANY ingredients.name == %@ ORDER BY name DESC", "milk").count() == 0)
            #expect(try tx.query(Dish.self, "ANY ingredients.name == %@ ORDER BY name DESC", "wheat flour").all().map(\.id) == ["REC1"])
        }
        try expectConsistentIndexes("Dish", "Component")
    }

    @Test func idListsLinkStoredRecords() throws {
        try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self, options: kipuOptions)
        // Notes 0 and 10 move to user 7; in upsert mode user 7 keeps note 10 anyway.
        let report = try store.importJSON(Data(#"{"id": 7, "notes_ids": [0, 10]}"#.utf8), as: KipuUser.self, options: kipuOptions)
        #expect(report.related["KipuNote"]?.linked == 1)
        #expect(try notes(of: 7).map(\.id) == [0, 10])
        #expect(try notes(of: 6).map(\.id) == [1, 2])
        // In a sync, the list is the whole relationship: note 10 is no longer user 7's, so it is deleted.
        var sync = kipuOptions
        sync.mode = .sync(scope: "id == 7")
        let synced = try store.importJSON(Data(#"{"id": 7, "notes_ids": [0]}"#.utf8), as: KipuUser.self, options: sync)
        #expect(synced.related["KipuNote"]?.deleted == 1)
        #expect(try notes(of: 7).map(\.id) == [0])

        // Key lists and to-one keys the record holds: `<relationship>_ids` and `<relationship>_id`.
        try store.importJSON(Data(#"[{"id": "INGR1", "name": "flour"}, {"id": "INGR2", "name": "egg"}]"#.utf8), as: Component.self)
        try store.importJSON(Data(#"{"id": "REC9", "name": "crêpe", "details": "Thin", "ingredients_ids": ["INGR2", "INGR1"]}"#.utf8), as: Dish.self)
        #expect(try store.read { tx throws in try tx.get(Dish.self, key: "REC9")?.ingredientIDs } == ["INGR2", "INGR1"])

        // A key that names no stored record fails the record: whole, with nothing of it written.
        #expect(throws: StrataError.self) {
            try store.importJSON(Data(#"{"id": 6, "name": "Renamed", "notes_ids": [2, 99]}"#.utf8), as: KipuUser.self, options: kipuOptions)
        }
        var skip = kipuOptions
        skip.onError = .skip
        let skipped = try store.importJSON(Data(#"[{"id": 6, "name": "Renamed", "notes_ids": [99]}, {"id": 8, "name": "Buster", "email": "b@example.com", "created_at": 0, "updated_at": 0}]"#.utf8),
                                           as: KipuUser.self, options: skip)
        #expect(skipped.skipped == 1 && skipped.inserted == 1)
        #expect(skipped.failures.first?.message.contains("KipuNote 99") == true, "\(skipped.failures)")
        #expect(try store.read { tx throws in try tx.get(KipuUser.self, key: 6)?.name } == "Shawn Merrill")
        try expectConsistentIndexes("KipuNote", "KipuUser", "Dish")
    }

    @Test func aDeniedOrNullifiedChildIsUnlinkedNotDeleted() throws {
        // Invoices may not lose their customer by a delete (deny), but a sync that no longer nests one clears its reference.
        try store.importJSON(Data(#"{"id": 1, "name": "Acme", "invoices": [{"id": 100, "amount": 12.5}, {"id": 101, "amount": 99}]}"#.utf8),
                             as: Company.self, options: ImportOptions(related: [.record(Invoice.self)]))
        #expect(try store.read { tx throws in try tx.query(Invoice.self).all().map(\.customerID) } == [1, 1])
        var sync = ImportOptions(related: [.record(Invoice.self)])
        sync.mode = .sync
        let report = try store.importJSON(Data(#"{"id": 1, "name": "Acme", "invoices": [{"id": 101, "amount": 99}]}"#.utf8), as: Company.self, options: sync)
        #expect(report.related["Invoice"]?.unlinked == 1)
        #expect(try store.read { tx throws in try tx.query(Invoice.self).all().map(\.customerID) } == [nil, 1])
        // Deleting the company through a sync is still denied while an invoice refers to it.
        #expect(throws: StrataError.self) { try store.importJSON(Data("[]".utf8), as: Company.self, options: sync) }
        #expect(try store.read { tx throws in try tx.count(Company.self) } == 1)
    }

    @Test func anInverseKeyListAddsTheRecordToTheListingRecords() throws {
        try store.importJSON(Data(#"{"id": "REC1", "name": "pancake", "details": "Mix", "ingredients_ids": []}"#.utf8), as: Dish.self)
        let report = try store.importJSON(Data(#"{"id": "INGR2", "name": "egg", "recipes_ids": ["REC1"]}"#.utf8), as: Component.self,
                                          options: ImportOptions(related: [.record(Dish.self)]))
        #expect(report.related["Dish"]?.linked == 1)
        #expect(try store.read { tx throws in try tx.get(Dish.self, key: "REC1")?.ingredientIDs } == ["INGR2"])
        var sync = ImportOptions(related: [.record(Dish.self)])
        sync.mode = .sync
        try store.importJSON(Data(#"{"id": "INGR2", "name": "egg", "recipes": []}"#.utf8), as: Component.self, options: sync)
        #expect(try store.read { tx throws in try tx.get(Dish.self, key: "REC1")?.ingredientIDs } == [])
        try expectConsistentIndexes("Dish", "Component")
    }

    @Test func nestedValuesThatDoNotMapNameTheirPlace() throws {
        var skip = kipuOptions
        skip.onError = .skip
        let report = try store.importJSON(Data(#"""
        [{"id": 1, "name": "A", "email": "a@x", "created_at": 0, "updated_at": 0, "notes": 5},
         {"id": 2, "name": "B", "email": "b@x", "created_at": 0, "updated_at": 0, "notes": [{"text": "no id", "created_at": 0, "updated_at": 0}]},
         {"id": 3, "name": "C", "email": "c@x", "created_at": 0, "updated_at": 0, "notes": [7]},
         {"id": 4, "name": "D", "email": "d@x", "created_at": 0, "updated_at": 0, "notes": [{"id": 1, "text": "x", "created_at": "yesterday", "updated_at": 0}]}]
        """#.utf8), as: KipuUser.self, options: skip)
        #expect(report.skipped == 4)
        let messages = report.failures.map(\.message)
        try #require(messages.count == 4)
        #expect(messages[0].contains("'notes' is an integer, expected an array of KipuNote objects"), "\(messages[0])")
        #expect(messages[1].contains("'notes' element 0: has no primary key"), "\(messages[1])")
        #expect(messages[2].contains("'notes' element 0 is an integer, expected a KipuNote object (link stored records by key with 'notes_ids')"), "\(messages[2])")
        #expect(messages[3].contains("'notes' element 0: 'created_at'"), "\(messages[3])")
        #expect(try store.read { tx throws in try tx.count(KipuUser.self) } == 0)
        #expect(try store.read { tx throws in try tx.count(KipuNote.self) } == 0)
    }

    @Test func entitiesTheStoreKnowsNeedNotBeNamed() throws {
        try store.write { tx throws in _ = try tx.insert(KipuNote(id: 99, text: "seed", createdDate: .now, updatedDate: .now, userID: nil)) }
        let report = try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self)
        #expect(report.related["KipuNote"]?.inserted == 4)
        #expect(try notes(of: 6).count == 3)
        try expectConsistentIndexes("KipuNote")
    }

    @Test func anExportImportsAgainIntoAnEmptyStore() throws {
        try store.importJSON(Data(Self.kipuPayload.utf8), as: KipuUser.self, options: kipuOptions)
        let exported = try store.read { tx throws in
            try [6, 7].map { try #require(try tx.exportJSON(entity: "KipuUser", key: .int($0), jsonKeys: true)) }
        }
        let (copy, copyDir) = try makeStore()
        defer { withExtendedLifetime(copyDir) {} }
        let report = try copy.importJSON(Data(JSONValue.array(exported).jsonText.utf8), as: KipuUser.self, options: kipuOptions)
        #expect(report.inserted == 2 && report.related["KipuNote"]?.inserted == 4, "\(report)")
        let (original, copied) = (try store.read { tx throws in try tx.query(KipuNote.self).all() },
                                  try copy.read { tx throws in try tx.query(KipuNote.self).all() })
        #expect(original == copied)
    }
}

/// Many-to-many through a link entity: an enrollment refers to a student and a course.
struct Student: Record, Equatable {
    var id: Int64
    var name: String
    static let primaryKey = \Student.id
}

struct Course: Record, Equatable {
    var id: Int64
    var title: String
    static let primaryKey = \Course.id
    static let indexes: [IndexDefinition<Course>] = [.index(\.title)]
}

struct Enrollment: Record, Equatable {
    var id: String
    var studentID: Int64?
    var courseID: Int64?
    var grade: String?
    static let primaryKey = \Enrollment.id
    static let student = ToOne<Enrollment, Student>("student", \.studentID, inverse: "enrollments", deleteRule: .cascade)
    static let course = ToOne<Enrollment, Course>("course", \.courseID, inverse: "enrollments", deleteRule: .cascade)
    static let relationships: [AnyRelationship<Enrollment>] = [.init(student), .init(course)]
}

@Suite struct LinkEntityTests {
    @Test func aLinkEntityImportsNestedTwoLevelsAndIsQueriedThroughBothToOnes() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let options = ImportOptions(related: [.record(Enrollment.self), .record(Course.self)])
        let report = try store.importJSON(Data(#"""
        [{"id": 1, "name": "Maeby", "enrollments": [
            {"id": "1-10", "grade": "A", "course": {"id": 10, "title": "Marketing"}},
            {"id": "1-11", "course": {"id": 11, "title": "Film"}}]},
         {"id": 2, "name": "George Michael", "enrollments": [{"id": "2-10", "grade": "B", "course": {"id": 10, "title": "Marketing"}}]}]
        """#.utf8), as: Student.self, options: options)
        #expect(report.inserted == 2)
        #expect(report.related["Enrollment"]?.inserted == 3)
        #expect(report.related["Course"]?.inserted == 2 && report.related["Course"]?.unchanged == 1)
        try store.read { tx throws in
            #expect(try tx.query(Student.self, "ANY enrollments.course.title == 'Marketing'").all().map(\.id) == [1, 2])
            #expect(try tx.query(Student.self, "ANY enrollments.course.title == 'Film'").all().map(\.name) == ["Maeby"])
            #expect(try tx.query(Course.self, "ANY enrollments.student.name BEGINSWITH 'George'").all().map(\.title) == ["Marketing"])
            #expect(try tx.query(Course.self, "enrollments.@count >= 2").all().map(\.id) == [10])
        }
        // Deleting a course cascades to its enrollments, not to the students.
        try store.write { tx throws in #expect(try tx.delete(Course.self, key: 10)) }
        try store.read { tx throws in
            #expect(try tx.query(Enrollment.self).all().map(\.id) == ["1-11"])
            #expect(try tx.count(Student.self) == 2)
            #expect(try tx.verifyIndexes(entity: "Enrollment").isConsistent)
        }
    }
}
