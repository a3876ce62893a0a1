import Foundation
import Testing
import TestSupport
@testable import Strata

/// A path through a relationship is checked against the RELATED entity's fields and types, as a
/// top-level one is against the queried entity's: a typo or a constant of another type is an
/// error before anything runs, not an empty answer (or, negated, every record). The entities
/// here were written only by Swift types, so the store holds no description of them: their
/// types come from the stored values, sampled once per transaction.
@Suite struct RelationshipPathFieldTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert([Company(id: 1, name: "Acme")])
            try tx.insert([Author(id: 1, name: "Ann", companyID: 1), Author(id: 2, name: "Bob", companyID: nil)])
            try tx.insert([Note(id: 1, text: "a", score: 5, authorID: 1), Note(id: 2, text: "b", score: 3, authorID: 1)])
        }
    }

    @Test(arguments: [
        ("Note", "author.nmae == 'Ann'", "unknown field 'author.nmae' in Note: Author has no field 'nmae' (did you mean 'name'?) at column 1"),
        ("Author", "ANY notes.txet == 'x'", "unknown field 'notes.txet' in Author: Note has no field 'txet' (did you mean 'text'?) at column 5"),
        ("Note", "author.company.nmae == 'Acme'", "unknown field 'author.company.nmae' in Note: Company has no field 'nmae' (did you mean 'name'?) at column 1"),
        ("Note", "autor.name == 'Ann'", "unknown field 'autor.name' in Note (did you mean 'author'?) at column 1"),
    ])
    func aTypoBehindARelationshipIsAnErrorWithASuggestion(entity: String, predicate: String, message: String) throws {
        let error = try #require(throws: StrataError.self) { try store.read { tx in try tx.query(entity: entity).where(predicate).count() } }
        #expect(error.code == .unknownField)
        #expect(error.message == message)
        #expect(error.entity == entity)
        // A typed query of the same entity says the same.
        let typed = try #require(throws: StrataError.self) {
            try store.read { tx throws in
                entity == "Note" ? try tx.query(Note.self).where(predicate).count() : try tx.query(Author.self).where(predicate).count()
            }
        }
        #expect(typed.message == message)
    }

    @Test func validRelationshipPathsStillRun() throws {
        try store.read { tx throws in
            #expect(try tx.query(entity: "Note").where("author.name == 'Ann'").count() == 2)
            #expect(try tx.query(entity: "Author").where("ANY notes.text == 'a'").count() == 1)
            #expect(try tx.query(entity: "Author").where("notes.@count > 1").count() == 1)
            #expect(try tx.query(entity: "Note").where("author.company.name == 'Acme'").count() == 2)
            #expect(try tx.query(entity: "Note").where("author == nil").count() == 0)
            #expect(try tx.query(Author.self).where("ANY notes.score == 5").count() == 1)
        }
    }

    @Test(arguments: [#"ANY notes.score == "5""#, "ANY notes.text > 5", #"NONE notes.score == "5""#, "author.name == 3"])
    func aMismatchedConditionThroughARelationshipToASwiftWrittenEntityIsAnErrorAndDeletesNothing(predicate: String) throws {
        let entity = predicate.hasPrefix("author") ? "Note" : "Author"
        let error = try #require(throws: StrataError.self) { try store.read { tx in try tx.query(entity: entity).where(predicate).count() } }
        #expect(error.code == .invalidQuery)
        #expect(error.message.contains("cannot compare"), "\(error.message)")
        let deleting = try #require(throws: StrataError.self) { try store.write { tx in try tx.delete(entity: entity, where: predicate) } }
        #expect(deleting.code == .invalidQuery)
        try store.read { tx throws in
            #expect(try tx.count(entity: "Author") == 2)
            #expect(try tx.count(entity: "Note") == 2)
        }
    }

    @Test func relatedTypesAreSampledAgainWhenTheRelatedRecordsChange() throws {
        let (fresh, freshDir) = try makeStore()
        try fresh.write { tx in
            try tx.insert(Author(id: 1, name: "Ann", companyID: nil))
            try tx.insert(Note(id: 1, text: "a", score: 5, authorID: 1))
            _ = try tx.delete(Note.self, key: 1)
            // No note is stored: nothing says what a score is, so nothing is refused.
            #expect(try tx.query(entity: "Author").where(#"ANY notes.score == "5""#).count() == 0)
            try tx.insert(Note(id: 2, text: "b", score: 5, authorID: 1))
            // Now one is, in the same transaction: the sampled types follow.
            #expect(throws: StrataError.self) { try tx.query(entity: "Author").where(#"ANY notes.score == "5""#).count() }
            #expect(try tx.query(entity: "Author").where("ANY notes.score == 5").count() == 1)
        }
        withExtendedLifetime(freshDir) {}
    }
}
