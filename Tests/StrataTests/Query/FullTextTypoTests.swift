import Foundation
import Testing
import TestSupport
@testable import Strata

/// A note searched with and without typo tolerance (no stemmer: the words are indexed as written).
struct TypoNote: Record, Equatable {
    var id: Int64
    var body: String
    static let primaryKey = \TypoNote.id
    static let indexes: [IndexDefinition<TypoNote>] = [.fullText(\.body)]
}

/// Typo tolerance from the library's two front ends: `.matches(\.body, query, typos: true)` and
/// `body SEARCH[t] query`. A plain word of 5+ letters matches one edit away, 9+ letters two; a
/// shorter word, and every word without the option, matches exactly.
@Suite struct FullTextTypoTests {
    func store() throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try makeStore()
        try store.write { tx throws in
            try tx.upsert(TypoNote(id: 1, body: "swift pages"))
            try tx.upsert(TypoNote(id: 2, body: "tree checkpoint"))
            try tx.upsert(TypoNote(id: 3, body: "unrelated words"))
        }
        return (store, dir)
    }

    @Test func aMisspelledWordFindsTheRecordOnlyWithTyposOn() throws {
        let (store, dir) = try store()
        try store.read { tx throws in
            // "swfit": two letters swapped, one edit from "swift" (5 letters).
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "swfit")).ids() == [])
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "swfit", typos: true)).ids() == [1])
            #expect(try tx.query(TypoNote.self).where("body SEARCH 'swfit'").ids() == [])
            #expect(try tx.query(TypoNote.self).where("body SEARCH[t] 'swfit'").ids() == [1])
            #expect(try tx.query(TypoNote.self).where("body SEARCH[T] %@", "swiftt").ids() == [1])
            // Two edits from a 5-letter word are too many.
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "swfitt", typos: true)).ids() == [])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aFourLetterWordIsNeverTypoMatched() throws {
        let (store, dir) = try store()
        try store.read { tx throws in
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "tree", typos: true)).ids() == [2])
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "tref", typos: true)).ids() == [])
            #expect(try tx.query(TypoNote.self).where("body SEARCH[t] 'tres'").ids() == [])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func wordsOfNineLettersOrMoreAllowTwoEdits() throws {
        let (store, dir) = try store()
        try store.read { tx throws in
            // "chekpoimt" (9 letters): a letter dropped and one changed, two edits from "checkpoint".
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "chekpoimt", typos: true)).ids() == [2])
            #expect(try tx.query(TypoNote.self).where("body SEARCH[t] 'chekpoimt'").ids() == [2])
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "chekpoimt")).ids() == [])
            // "chekpoit" (8 letters) is two edits away too, but 8 letters allow one.
            #expect(try tx.query(TypoNote.self).where(.matches(\.body, "chekpoit", typos: true)).ids() == [])
        }
        withExtendedLifetime(dir) {}
    }

    @Test func explainShowsTheOptionAndTheTypoTerm() throws {
        let (store, dir) = try store()
        try store.read { tx throws in
            let plan = "\(try tx.query(TypoNote.self).where("body SEARCH[t] 'swfit'").explain())"
            #expect(plan.contains("SEARCH[t]"), "\(plan)")
            #expect(plan.contains("~1"), "\(plan)")
        }
        withExtendedLifetime(dir) {}
    }

    @Test(arguments: [
        ("body SEARCH[x] 'swift'", "unknown SEARCH option 'x'"),
        ("body SEARCH[n] 'swift'", "unknown SEARCH option 'n'"),   // NSPredicate's hints are no SEARCH option
        ("body SEARCH[ct] 'swift'", "SEARCH takes no [c]/[d] options"),
        ("body ==[t] 'swift'", "unknown comparison option 't'"),
    ])
    func badOptionsThrowTypedErrors(predicate: String, message: String) throws {
        let (store, dir) = try store()
        try store.read { tx throws in
            do {
                _ = try tx.query(TypoNote.self).where(predicate).ids()
                Issue.record("\(predicate) ran")
            } catch let error as StrataError {
                #expect(error.code == .invalidQuery, "\(error)")
                #expect(error.message.contains(message), "\(error)")
            }
        }
        withExtendedLifetime(dir) {}
    }
}
