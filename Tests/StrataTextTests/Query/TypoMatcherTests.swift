import Testing
import TestSupport
@testable import StrataText

/// The typo matcher's distances against the textbook table, and its walk over a sorted dictionary
/// (with the skips it asks for) against checking every term.
@Suite struct TypoMatcherTests {
    static let alphabet: [String] = ["a", "b", "c", "é", "ß", "東"]

    static func randomWord(_ random: inout SeededGenerator, length: ClosedRange<Int>) -> String {
        (0..<Int.random(in: length, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
    }

    @Test func distancesAreTheRestrictedDamerauLevenshteinDistances() {
        var random = SeededGenerator(seed: 61)
        for _ in 0..<3_000 {
            let word = Self.randomWord(&random, length: 0...7), term = Self.randomWord(&random, length: 0...7)
            let limit = Int.random(in: 0...2, using: &random)
            var matcher = TypoMatcher(word: word, maximumDistance: limit)
            let expected = BruteForceSearch.distance(word, term)
            #expect(matcher.distance(to: Array(term.utf8)) == (expected <= limit ? expected : nil), "\(word) \(term)")
        }
        var swap = TypoMatcher(word: "search", maximumDistance: 1)
        #expect(swap.distance(to: Array("serach".utf8)) == 1)
        #expect(TypoMatcher.allowedDistance(forLength: 4) == 0 && TypoMatcher.allowedDistance(forLength: 5) == 1
                && TypoMatcher.allowedDistance(forLength: 9) == 2)
    }

    @Test func aWalkWithSkipsFindsEveryTermWithinTheDistance() {
        var random = SeededGenerator(seed: 62)
        for _ in 0..<200 {
            let dictionary = Set((0..<Int.random(in: 1...300, using: &random)).map { _ in Self.randomWord(&random, length: 1...6) })
            let terms = dictionary.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            let word = Self.randomWord(&random, length: 1...6)
            let limit = Int.random(in: 1...2, using: &random)
            var matcher = TypoMatcher(word: word, maximumDistance: limit)
            var found: [String] = []
            var visited = 0
            var index = 0
            while index < terms.count {
                visited += 1
                switch matcher.visit(terms[index]) {
                case .match: found.append(String(decoding: terms[index], as: UTF8.self)); index += 1
                case .next: index += 1
                case .skip(let target):
                    #expect(target.lexicographicallyPrecedes(terms[index]) == false)
                    index = max(index + 1, InMemoryTextIndex.firstIndex(in: terms, atOrAfter: target))
                }
            }
            let expected = terms.map { String(decoding: $0, as: UTF8.self) }.filter { BruteForceSearch.distance(word, $0) <= limit }
            #expect(found == expected, "\(word) within \(limit)")
            #expect(visited <= terms.count)
        }
    }

    @Test func theSuccessorOfAPrefixFollowsEveryTermThatStartsWithIt() {
        #expect(TypoMatcher.successor(of: Array("ab".utf8)) == Array("ac".utf8))
        #expect(TypoMatcher.successor(of: [0x61, 0xFF]) == [0x62])
        let prefix = Array("é".utf8)
        let successor = TypoMatcher.successor(of: prefix)
        for term in ["é", "éa", "é東"] { #expect(Array(term.utf8).lexicographicallyPrecedes(successor)) }
        #expect(successor == Array("ê".utf8))
    }
}
