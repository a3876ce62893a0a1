import Foundation
import Testing
import TestSupport
@testable import Strata

/// The linear-time `LIKE` (``LikePattern``) and `CONTAINS` (``KnuthMorrisPratt``) answer exactly as
/// the simple quadratic matchers they replaced (kept here as references) on thousands of seeded
/// random texts and patterns: characters that are several scalars or bytes, canonically
/// equivalent spellings, `\r\n`, escapes, `?` parts longer than one machine word, and the
/// `[c]`, `[d]` and `[cd]` foldings.
@Suite struct PatternMatchingDifferentialTests {
    /// The `LIKE` matcher before it was made linear: greedy, backtracking to the last `*` only.
    static func referenceLike(_ string: String, pattern: String) -> Bool {
        enum Token: Equatable { case anyRun, anyOne, literal(Character) }
        let text = Array(string)
        var tokens: [Token] = []
        var iterator = pattern.makeIterator()
        while let c = iterator.next() {
            switch c {
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            case "\\": tokens.append(.literal(iterator.next() ?? "\\"))
            default: tokens.append(.literal(c))
            }
        }
        var (t, p) = (0, 0)
        var backtrack: (pattern: Int, text: Int)?
        while t < text.count {
            if p < tokens.count {
                switch tokens[p] {
                case .anyRun: backtrack = (p, t); p += 1; continue
                case .anyOne: t += 1; p += 1; continue
                case .literal(let c) where c == text[t]: t += 1; p += 1; continue
                default: break
                }
            }
            guard let resume = backtrack else { return false }
            backtrack = (resume.pattern, resume.text + 1)
            p = resume.pattern + 1
            t = resume.text + 1
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    /// The `CONTAINS` search before: every start position, compared byte by byte.
    static func referenceContains(_ text: String, _ part: String) -> Bool {
        let needle = Array(part.utf8), haystack = Array(text.utf8)
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }

    /// Text pieces: ASCII, a `\r\n` cluster and lone `\r`/`\n`, precomposed and decomposed é,
    /// ß (which `[c]` expands), ø (which `[d]` strips), final sigma, an emoji sequence, and the
    /// pattern's own special characters.
    static let pieces = ["a", "b", "A", "B", "ab", "é", "e\u{301}", "É", "ß", "SS", "ø", "Σ", "ς", "\r\n", "\r", "\n",
                         "👩‍👩‍👧", "*", "?", "\\", "x", " "]

    static func randomText(_ generator: inout SeededGenerator, maxPieces: Int) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    /// A pattern: often a piece of `text` (so that it can match) with some characters turned into
    /// wildcards, otherwise random pieces, wildcards and escapes.
    static func randomPattern(_ generator: inout SeededGenerator, text: String, maxPieces: Int) -> String {
        var pattern = ""
        if Bool.random(using: &generator), !text.isEmpty {
            let characters = Array(text)
            let start = Int.random(in: 0..<characters.count, using: &generator)
            let end = Int.random(in: start...characters.count, using: &generator)
            if Bool.random(using: &generator) { pattern += "*" }
            for c in characters[start..<end] {
                switch UInt8.random(in: 0..<10, using: &generator) {
                case 0: pattern += "?"
                case 1: pattern += "*"
                case 2: pattern += "\\" + String(c)
                default: pattern += c == "*" || c == "?" || c == "\\" ? "\\" + String(c) : String(c)
                }
            }
            if Bool.random(using: &generator) { pattern += "*" }
            return pattern
        }
        for _ in 0..<Int.random(in: 0...maxPieces, using: &generator) {
            switch UInt8.random(in: 0..<8, using: &generator) {
            case 0, 1: pattern += "*"
            case 2: pattern += "?"
            case 3: pattern += "\\" + pieces.randomElement(using: &generator)!
            default: pattern += pieces.randomElement(using: &generator)!
            }
        }
        return pattern
    }

    static let foldings: [StringComparisonOptions] = [[], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func likeAnswersAsTheQuadraticMatcherOnRandomTextsAndPatterns(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var mismatches: [String] = []
        var matched = 0
        for _ in 0..<1_500 {
            let text = Self.randomText(&generator, maxPieces: 12)
            let pattern = Self.randomPattern(&generator, text: text, maxPieces: 8)
            for options in Self.foldings {
                let (t, p) = (Collation.fold(text, options), Collation.fold(pattern, options))
                let expected = Self.referenceLike(t, pattern: p)
                if expected { matched += 1 }
                if PatternMatching.like(t, pattern: p) != expected, mismatches.count < 5 {
                    mismatches.append("\(options): \(t.debugDescription) LIKE \(p.debugDescription) should be \(expected)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(matched > 500, "the random cases exercise matches, not only failures (\(matched))")
    }

    /// `?` parts longer than 64 characters take several machine words; a two-letter alphabet
    /// makes them match often.
    @Test(arguments: [5, 6] as [UInt64])
    func likeWithLongWildcardPartsAnswersAsTheQuadraticMatcher(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var mismatches: [String] = []
        var matched = 0
        for _ in 0..<300 {
            let text = String((0..<Int.random(in: 0...400, using: &generator)).map { _ in Bool.random(using: &generator) ? "a" : "b" })
            var pattern = "*"
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let length = Int.random(in: 1...150, using: &generator)
                pattern += String((0..<length).map { _ -> Character in
                    switch UInt8.random(in: 0..<16, using: &generator) { case 0...12: "?"; case 13, 14: "a"; default: "b" }
                }) + "*"
            }
            if Bool.random(using: &generator) { pattern.removeLast() }
            let expected = Self.referenceLike(text, pattern: pattern)
            if expected { matched += 1 }
            if PatternMatching.like(text, pattern: pattern) != expected, mismatches.count < 5 {
                mismatches.append("\(text) LIKE \(pattern) should be \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(matched > 25, "some long patterns match (\(matched))")
    }

    @Test(arguments: [7, 8] as [UInt64])
    func containsAnswersAsTheQuadraticSearchOnRandomTexts(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var mismatches: [String] = []
        var found = 0
        for _ in 0..<1_500 {
            let text = Self.randomText(&generator, maxPieces: 14)
            let characters = Array(text)
            var part = Self.randomText(&generator, maxPieces: 3)
            if Bool.random(using: &generator), !characters.isEmpty {
                let start = Int.random(in: 0..<characters.count, using: &generator)
                part = String(characters[start..<Int.random(in: start...characters.count, using: &generator)])
            }
            for options in Self.foldings {
                let (t, p) = (Collation.fold(text, options), Collation.fold(part, options))
                let expected = Self.referenceContains(t, p)
                if expected { found += 1 }
                if StringSearch.contains(t, p) != expected, mismatches.count < 5 {
                    mismatches.append("\(options): \(t.debugDescription) CONTAINS \(p.debugDescription) should be \(expected)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(found > 1_000, "the random cases exercise finds, not only misses (\(found))")
    }

    /// The size a pattern is refused at is computed before compiling, and is what compiling emits.
    @Test func aRegularExpressionsComputedSizeIsWhatItCompilesTo() throws {
        for pattern in RegularExpressionTests.patterns + ["(a?){1000}", ".*(a|bc|d)*x{3,7}", "((a|b){2,5}c?)+"] {
            var parser = RegexParser(Array(pattern.unicodeScalars))
            let node = try parser.parse()
            #expect(try RegularExpression(pattern).program.count == node.programSize + 1, "\(pattern)")
        }
    }
}
