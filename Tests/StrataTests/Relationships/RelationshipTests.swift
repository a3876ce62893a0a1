import Foundation
import Testing
import TestSupport
@testable import Strata

@Suite struct RelationshipTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx throws in
            try tx.upsert([Company(id: 1, name: "Acme"), Company(id: 2, name: "Bluth Company"), Company(id: 3, name: "Sitwell")])
            try tx.upsert([
                Author(id: 6, name: "Shawn Merrill", email: "shawn@example.com", companyID: 1),
                Author(id: 7, name: "Gob Bluth", companyID: 2),
                Author(id: 8, name: "Lucille Bluth", companyID: 2),
                Author(id: 9, name: "Ann Veal", companyID: nil),
            ])
            try tx.upsert([
                Note(id: 0, text: "Shawn Merril's diary, episode 1", score: 5, authorID: 6),
                Note(id: 1, text: "Shawn Merril's diary, episode 2", score: 8, authorID: 6),
                Note(id: 2, text: "Illusions", score: 9, authorID: 7),
                Note(id: 3, text: "Magic tricks", score: 2, authorID: 7),
                Note(id: 4, text: "More illusions", score: 7, authorID: 7),
                Note(id: 5, text: "Vodka", score: 1, authorID: 8),
                Note(id: 6, text: "An orphan", score: 3, authorID: nil),
            ])
        }
    }

    private func authors(_ format: String, _ arguments: any Sendable...) throws -> [Int64] {
        try store.read { tx throws in try tx.query(Author.self).where(format, arguments: arguments).all().map(\.id) }
    }

    @Test func toOneAndItsInverseAreReadThroughTheReferenceIndex() throws {
        try store.read { tx throws in
            let gob = try #require(try tx.get(Author.self, key: 7))
            #expect(try tx.parent(Author.company, of: gob)?.name == "Bluth Company")
            #expect(try tx.parent(Author.company, of: Author(id: 9, name: "Ann Veal")) == nil)
            #expect(try tx.related(Note.author, of: gob).map(\.id) == [2, 3, 4])
            #expect(try tx.count(Note.author, of: gob) == 3)
            #expect(try tx.related(Author.company, of: Company(id: 2, name: "")).map(\.id) == [7, 8])
            // The reference fields are indexed without being declared (nil references too).
            #expect(try tx.query(Note.self, "authorID == 7").using(index: "authorID").explain().description == "IndexScan(Note.authorID = 7)")
        }
    }

    @Test func conditionsThroughRelationshipsUseSemiJoins() throws {
        #expect(try authors("company.name BEGINSWITH[c] %@", "bluth") == [7, 8])
        #expect(try authors("ANY notes.text CONTAINS[c] %@", "illusions") == [7])
        #expect(try authors("NONE notes.score > 4") == [8, 9])
        #expect(try authors("ALL notes.score > 4") == [6, 9])   // Ann has no notes: ALL of nothing holds
        #expect(try authors("notes.@count >= 2") == [6, 7])
        #expect(try authors("notes.@count == 0") == [9])
        #expect(try authors("notes.@count < 2 AND company != nil") == [8])
        #expect(try authors("ANY notes.score > 6 AND company.name == 'Acme'") == [6])
        #expect(try authors("company == nil OR ANY notes.text == 'Vodka'") == [8, 9])
        try store.read { tx throws in
            let plan = try tx.query(Author.self, "ANY notes.text == 'Vodka'").explain()
            #expect(plan.semiJoins.count == 1)
            #expect(plan.description == "SemiJoin(notes via Note.authorID: FullScan(Note) → Filter(text == \"Vodka\") ⇒ 1 keys) → KeyLookup(Author.id = 8)")
            let scored = try tx.query(Author.self, "ANY notes.score >= 9").explain()
            #expect(scored.semiJoins.first?.plan?.description == "IndexScan(Note.score >= 9)")   // keys in any order: no sort
            // Counts read from the reference index, not from notes.
            #expect(try tx.query(Author.self, "notes.@count > 1").explain().description.hasPrefix("SemiJoin(notes.@count via Note.authorID: count of index entries ⇒ 2 keys)"))
            // The inverse of a to-one from the notes' side: the company of a note's author.
            #expect(try tx.query(Note.self, "author.company.name == 'Acme'").all().map(\.id) == [0, 1])
            #expect(try tx.query(Company.self, "ANY authors.name BEGINSWITH 'Gob'").all().map(\.id) == [2])
            // Untyped queries, as the command-line tool runs them, resolve relationships the same way.
            #expect(try tx.query(entity: "Author").where("ANY notes.score > 8", arguments: []).all().map(\.key) == [.int(7)])
        }
    }

    @Test func lidenbrocksRecipesAreFoundByTheirIngredients() throws {
        try store.write { tx throws in
            try tx.upsert([Component(id: "INGR1", name: "flour"), Component(id: "INGR2", name: "egg"), Component(id: "INGR3", name: "milk"),
                           Component(id: "INGR4", name: "sugar")])
            try tx.upsert([
                Dish(id: "REC1", name: "pancake", details: "In a large bowl, sift together the flour, egg, milk...", ingredientIDs: ["INGR1", "INGR2", "INGR3"]),
                Dish(id: "REC2", name: "meringue", details: "Whisk", ingredientIDs: ["INGR2", "INGR4"]),
                Dish(id: "REC3", name: "bread", details: "Knead", ingredientIDs: ["INGR1"]),
            ])
        }
        try store.read { tx throws in
            let withEgg = try tx.query(Dish.self, "ANY ingredients.name == %@ ORDER BY name DESC", "egg").all()
            #expect(withEgg.map(\.name) == ["pancake", "meringue"])
            let pancake = try #require(try tx.get(Dish.self, key: "REC1"))
            #expect(try tx.related(Dish.ingredients, of: pancake).map(\.name) == ["flour", "egg", "milk"])
            #expect(try tx.related(Dish.ingredients, listing: Component(id: "INGR1", name: "flour")).map(\.id) == ["REC1", "REC3"])
            #expect(try tx.query(Component.self, "ANY recipes.name == 'meringue'").all().map(\.name) == ["egg", "sugar"])
            #expect(try tx.query(Component.self, "recipes.@count >= 2").all().map(\.name) == ["flour", "egg"])
            #expect(try tx.query(Dish.self, "ingredients.@count > 1").all().map(\.id) == ["REC1", "REC2"])
            #expect(try tx.query(Dish.self, "NONE ingredients.name == 'egg'").all().map(\.id) == ["REC3"])
            let plan = try tx.query(Dish.self, "ANY ingredients.name == 'egg'").explain().description
            #expect(plan == "SemiJoin(ingredients via Component.id: IndexScan(Component.name = \"egg\") ⇒ 1 keys) → FullScan(Dish) → Filter(ANY ingredientIDs IN {\"INGR2\"})")
            // With more dishes, the multi-value index on the key list finds them.
            let hinted = try tx.query(Dish.self, "ANY ingredients.name == 'egg'").using(index: "ingredientIDs").explain().description
            #expect(hinted.hasSuffix("→ IndexScan(Dish.ingredientIDs = \"INGR2\")"), "\(hinted)")
        }
    }

    @Test func cascadeDeletesLeaveNoOrphanIndexEntries() throws {
        try store.write { tx throws in #expect(try tx.delete(Author.self, key: 7)) }
        try store.read { tx throws in
            #expect(try tx.all(Note.self).map(\.id) == [0, 1, 5, 6])
            #expect(try tx.query(Note.self, "authorID == 7").count() == 0)
            #expect(try tx.query(Note.self, "score >= 7").all().map(\.id) == [1])
        }
        #expect(try store.indexesConsistent("Note"))
        #expect(try store.indexesConsistent("Author"))
        // Through the untyped delete the command-line tool uses, too.
        try store.write { tx throws in #expect(try tx.delete(entity: "Author", key: .string("6"))) }
        #expect(try store.read { tx throws in try tx.all(Note.self).map(\.id) } == [5, 6])
        #expect(try store.indexesConsistent("Note"))
    }

    @Test func nullifyClearsReferencesAndTheirIndexEntries() throws {
        try store.write { tx throws in #expect(try tx.delete(Company.self, key: 2)) }
        try store.read { tx throws in
            #expect(try tx.get(Author.self, key: 7)?.companyID == nil)
            #expect(try tx.get(Author.self, key: 7)?.name == "Gob Bluth")
            #expect(try tx.query(Author.self, "companyID == nil").all().map(\.id) == [7, 8, 9])
            #expect(try tx.query(Author.self, "company == nil").all().map(\.id) == [7, 8, 9])
        }
        #expect(try store.indexesConsistent("Author"))
        try store.write { tx throws in
            try tx.upsert([Component(id: "A", name: "a"), Component(id: "B", name: "b")])
            try tx.upsert(Dish(id: "R", name: "r", details: "", ingredientIDs: ["A", "B", "A"]))
            #expect(try tx.delete(Component.self, key: "A"))
            #expect(try tx.get(Dish.self, key: "R")?.ingredientIDs == ["B"])
        }
        #expect(try store.indexesConsistent("Dish"))
    }

    @Test func denyRefusesADeleteAndChangesNothing() throws {
        try store.write { tx throws in try tx.upsert(Invoice(id: 1, amount: 99.5, customerID: 3)) }
        let error = #expect(throws: StrataError.self) { try store.write { tx throws in try tx.delete(Company.self, key: 3) } }
        #expect(error?.code == .deleteDenied)
        #expect(error?.message == "Company 3: 1 Invoice record refer to it through 'customer', whose delete rule is deny")
        #expect(try store.read { tx throws in try tx.get(Company.self, key: 3) } != nil)
        try store.write { tx throws in
            #expect(try tx.delete(Invoice.self, key: 1))
            #expect(try tx.delete(Company.self, key: 3))
        }
    }

    @Test func recordsExportWithTheirRelatedRecordsNested() throws {
        try store.read { tx throws in
            let author = try #require(try tx.get(Author.self, key: 7))
            let gob = try #require(try tx.exportJSON(author))
            #expect(gob.jsonText == #"{"id":7,"name":"Gob Bluth","company_id":2,"company":{"id":2,"name":"Bluth Company"},"#
                + #""notes":[{"id":2,"text":"Illusions","score":9,"author_id":7},{"id":3,"text":"Magic tricks","score":2,"author_id":7},"#
                + #"{"id":4,"text":"More illusions","score":7,"author_id":7}]}"#)
            let ann = try #require(try tx.exportJSON(entity: "Author", key: .int(9)))
            #expect(ann.jsonText == #"{"id":9,"name":"Ann Veal","company":null,"notes":[]}"#)
            #expect(try tx.exportJSON(entity: "Author", key: .int(99)) == nil)
        }
        // The export imports again, with its related records, into a store that knows their types.
        let (copy, copyDir) = try makeStore()
        _ = copyDir
        let exported = try store.read { tx in try tx.exportJSON(entity: "Author", key: .int(6), jsonKeys: true) }
        let json = Data(try #require(exported).jsonText.utf8)
        #expect(throws: StrataError.self, "nested objects of an entity the store does not know are an error, not dropped") {
            try copy.importJSON(json, as: Author.self)
        }
        let report = try copy.importJSON(json, as: Author.self, options: ImportOptions(related: [.record(Company.self), .record(Note.self)]))
        #expect(report.inserted == 1)
        #expect(report.related["Company"]?.inserted == 1 && report.related["Note"]?.inserted == 2, "\(report)")
        #expect(try copy.read { tx in try tx.get(Author.self, key: 6) } == Author(id: 6, name: "Shawn Merrill", email: "shawn@example.com", companyID: 1))
        #expect(try copy.read { tx in try tx.query(Note.self).all() } == (try store.read { tx in try tx.query(Note.self).where(\.authorID == 6).all() }))
    }

    @Test func unknownRelationshipsAndMisuseAreQueryErrors() throws {
        let unknown = #expect(throws: StrataError.self) { try authors("ANY notez.text == 'x'") }
        #expect(unknown?.code == .unknownField)
        let toMany = #expect(throws: StrataError.self) { try authors("notes == nil") }
        #expect(toMany?.message.contains("to-many") == true)
        let count = #expect(throws: StrataError.self) { try authors("company.@count > 1") }
        #expect(count?.message.contains("to-one") == true)
    }
}
