import Foundation
import Testing
import TestSupport
@testable import Strata

private struct CostDocument: Record {
    var id: Int64
    var body: String
    static let primaryKey = \CostDocument.id
}

/// What hostile patterns cost, without a clock: a `MATCHES` whose program states times its
/// text's characters exceed ``PatternMatching/maxMatchCost`` stops the query with a typed error
/// (the same on every machine), and a `LIKE` pattern is prepared once per query
/// (``LikeMatcher``), answering as the quadratic reference matcher on every text it meets.
@Suite struct PatternCostTests {
    @Test func aMatchPastTheCostCapIsAnInvalidQueryErrorNamingBothSizes() throws {
        let (store, dir) = try makeStore()
        let huge = String(repeating: "a", count: 100_000)
        try store.write { tx in try tx.insert([CostDocument(id: 1, body: "ab"), CostDocument(id: 2, body: huge)]) }
        try store.read { tx throws in
            // About 2,000 states over 100,001 positions: past 2^27.
            let error = try #require(throws: StrataError.self) { try tx.query(CostDocument.self).where("body MATCHES '(a?){1000}b'").count() }
            #expect(error.code == .invalidQuery)
            #expect(error.field == "body")
            #expect(error.message.hasPrefix("CostDocument: body MATCHES '(a?){1000}b': the pattern's "), "\(error.message)")
            #expect(error.message.contains(" states over a text of 100000 characters exceed the cost limit of 134217728 states × characters"), "\(error.message)")
            // The same pattern on the short record alone, and a small pattern on the huge one, run.
            #expect(try tx.query(CostDocument.self).where("id == 1 AND body MATCHES '(a?){1000}b'").count() == 1)
            #expect(try tx.query(CostDocument.self).where("body MATCHES 'a*'").all().map(\.id) == [2])
            // A time limit does not lift the cap, nor does an async transaction's budget.
            #expect(throws: StrataError.self) { try tx.query(CostDocument.self).where("body MATCHES '(a?){1000}b'").timeout(.seconds(3_600)).all() }
        }
        withExtendedLifetime(dir) {}
    }

    @Test func aPreparedLikePatternAnswersAsTheQuadraticMatcherOnEveryTextItMeets() {
        var generator = SeededGenerator(seed: 11)
        var mismatches: [String] = []
        for _ in 0..<300 {
            let texts = (0..<20).map { _ in PatternMatchingDifferentialTests.randomText(&generator, maxPieces: 12) }
            let pattern = PatternMatchingDifferentialTests.randomPattern(&generator, text: texts[0], maxPieces: 8)
            let matcher = LikeMatcher(pattern)
            for text in texts {
                var steps = 0
                let expected = PatternMatchingDifferentialTests.referenceLike(text, pattern: pattern)
                if matcher.matches(text, steps: &steps) != expected, mismatches.count < 5 {
                    mismatches.append("\(text.debugDescription) LIKE \(pattern.debugDescription) should be \(expected)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    /// The issue's pattern of 30,000 `*a` parts: once prepared, each text costs steps in
    /// proportion to its own length, not the pattern's (it used to be split and its 30,000
    /// searches prepared again for every record).
    @Test func aLongPatternOfStarsAndLiteralsCostsStepsLinearInTheTextOnly() throws {
        let pattern = String(repeating: "*a", count: 30_000) + "*"
        let matcher = LikeMatcher(pattern)
        for text in ["", "b", String(repeating: "b", count: 500), String(repeating: "a", count: 29_999)] {
            var steps = 0
            #expect(!matcher.matches(text, steps: &steps))
            #expect(steps <= 4 * (text.count + 1), "\(steps) steps for \(text.count) characters")
        }
        var steps = 0
        #expect(matcher.matches(String(repeating: "a", count: 30_000), steps: &steps))
        let (store, dir) = try makeStore()
        try store.write { tx in try tx.insert((1...300).map { CostDocument(id: $0, body: $0 == 7 ? String(repeating: "a", count: 30_000) : "abc") }) }
        try store.read { tx throws in
            #expect(try tx.query(CostDocument.self).where("body LIKE %@", pattern).all().map(\.id) == [7])
            #expect(try tx.query(CostDocument.self).where("body LIKE[c] %@", pattern.uppercased()).count() == 1)
        }
        withExtendedLifetime(dir) {}
    }
}
