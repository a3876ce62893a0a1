import Foundation
import Testing
import TestSupport
@testable import Strata

/// `MATCHES` runs its own regular expressions (``RegularExpression``): the same answers as ICU's
/// (`NSRegularExpression`, anchored to the whole string) on the syntax both support, typed errors
/// naming what is not supported, and work bounded by text length × pattern size on patterns
/// that make a backtracking engine take seconds.
@Suite struct RegularExpressionTests {
    static let patterns = [
        "abc", "a.c", "a*", "a+b?", "(ab)*", "(a|bc)+d", "a{2}", "a{2,}", "a{1,3}b", "x{0}y", "[a-c]+", "[^a-c]*",
        "[\\d_]+", "\\w+\\s\\w+", "\\D*", "\\S+", "\\W", "^ab$", "\\Aab\\z", "ab\\Z", "a|ab|abc", "(?:ab|a)(?:bc|c)",
        "(?<first>a)b", "a(?#comment)b", "\\bab\\b", "a\\Bb", "\\.\\*\\\\", "\\x41\\u0042\\x{43}", "\\QA.B\\E", "[]a]+",
        "[a\\-z]+", "a*?b", "(a+)+$", "é+", ".*", "", "a||b", "(|a)b", "[\\u00e0-\\u00ff]+", "\\t\\n", "\\0101",
        "[.]", "a\\ b", "Bl|Bluth", "B[a-z]+", "\\w{5}", "(\\w+\\s?)*", "[^\\s]+", "\\s*\\d+\\s*",
    ]
    static let texts = [
        "", "a", "ab", "abc", "abd", "aab", "aaab", "aaaa", "bcd", "abcd", "A.B", "ABC", "a b", "ab cd", "123", "1_2",
        ".*\\", "xy", "y", "é", "éé", "àÿ", "\t\n", "a\n", "ab\n", "Bluth", "Bl", "Funke", " 42 ", "]a]",
        "a-z", "A", "Ab", "aB", "aaaaaaaaaaaaaaaaab",
    ]

    static func icu(_ pattern: String, _ text: String, caseInsensitive: Bool) throws -> Bool {
        let regex = try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        return regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
    }

    @Test func answersAsICUDoesOnTheSyntaxBothSupport() throws {
        var compared = 0
        for pattern in Self.patterns {
            for caseInsensitive in [false, true] {
                let regex = try RegularExpression(pattern, caseInsensitive: caseInsensitive)
                for text in Self.texts {
                    let expected = try Self.icu(pattern, text, caseInsensitive: caseInsensitive)
                    #expect(regex.matches(text) == expected,
                            "\(pattern.debugDescription)\(caseInsensitive ? " [c]" : "") on \(text.debugDescription): ICU says \(expected)")
                    compared += 1
                }
            }
        }
        #expect(compared == Self.patterns.count * Self.texts.count * 2)
    }

    /// A random pattern of the supported syntax, at most `depth` groups deep.
    static func randomPattern(_ random: inout SeededGenerator, depth: Int = 2) -> String {
        let atoms = ["a", "b", ".", "\\s", "\\w", "\\d", "[ab]", "[^a]", "[a-c\\s]", "\\n", "^", "$", "\\b", "\\B", "é", "A"]
        let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?"]
        var pattern = ""
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            if depth > 0, Int.random(in: 0..<3, using: &random) == 0 {
                let inner = (0..<Int.random(in: 1...2, using: &random)).map { _ in randomPattern(&random, depth: depth - 1) }
                pattern += "(" + (Bool.random(using: &random) ? "?:" : "") + inner.joined(separator: "|") + ")"
                continue   // groups are not repeated: see below
            } else {
                let atom = atoms.randomElement(using: &random)!
                pattern += atom
                if ["^", "$", "\\b", "\\B"].contains(atom) { continue }   // anchors are not repeated
            }
            pattern += quantifiers.randomElement(using: &random)!
        }
        return pattern
    }

    /// 1,500 random patterns over 12 random texts each, case-sensitive and not: the same answers as
    /// ICU. Groups are not repeated here: ICU ends a loop whose pass matched nothing, so it calls
    /// `(?:\w*?)*?` no match for "b" (this engine says match, as the language does), and nested
    /// loops make its backtracking take minutes over a run like this one.
    /// (`pathologicalPatternsFinishWithinTheirStepBound` and the fixed list above cover repeated groups.)
    @Test func randomPatternsAnswerAsICUDoes() throws {
        var random = SeededGenerator(seed: 0x5E6E)
        let alphabet: [Character] = ["a", "a", "b", "A", " ", "\n", "1", "é", "c"]
        var disagreements: [String] = []
        var refusedByICU = 0
        for _ in 0..<1_500 {
            let pattern = Self.randomPattern(&random)
            let caseInsensitive = Bool.random(using: &random)
            guard (try? Self.icu(pattern, "", caseInsensitive: false)) != nil else {
                refusedByICU += 1   // ICU's own limits (a repeated group of anchors): not compared
                continue
            }
            let regex: RegularExpression
            do {
                regex = try RegularExpression(pattern, caseInsensitive: caseInsensitive)
            } catch {
                disagreements.append("\(pattern.debugDescription) refused: \(error)")
                continue
            }
            for _ in 0..<12 {
                let text = String((0..<Int.random(in: 0...7, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
                let expected = try Self.icu(pattern, text, caseInsensitive: caseInsensitive)
                if regex.matches(text) != expected {
                    disagreements.append("\(pattern.debugDescription)\(caseInsensitive ? " [c]" : "") on \(text.debugDescription): ICU says \(expected)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements: \(disagreements.prefix(10))")
        #expect(refusedByICU < 75, "ICU refused \(refusedByICU) of 1,500 patterns")
    }

    @Test(arguments: [
        ("(a)\\1", "backreferences", 4),
        ("(?<x>a)\\k<x>", "backreferences", 8),
        ("a(?=b)", "lookahead", 2),
        ("a(?!b)", "lookahead", 2),
        ("(?<=a)b", "lookbehind", 1),
        ("(?>a+)b", "atomic groups", 1),
        ("a*+", "possessive quantifiers", 3),
        ("(?i)abc", "inline flags", 1),
        ("\\p{L}+", "Unicode property", 1),
        ("[[:alpha:]]", "nested classes", 2),
        ("[a-z&&[^x]]", "set operations", 5),
        ("\\Gabc", "\\G", 1),
    ])
    func unsupportedConstructsAreNamed(pattern: String, construct: String, position: Int) {
        #expect {
            try RegularExpression(pattern)
        } throws: { error in
            guard let error = error as? RegularExpression.SyntaxError else { return false }
            return error.problem.contains(construct) && error.problem.contains("not supported") && error.position == position
        }
    }

    @Test(arguments: [
        ("(unclosed", "missing ')'", 1),
        ("a)(b", "unmatched ')'", 2),
        ("[", "missing ']'", 1),
        ("[z-a]", "out of order", 2),
        ("a{2,1}", "minimum exceeds the maximum", 2),
        ("a{1001}", "above 1000", 2),
        ("a{x}", "'{' must begin a repetition", 2),
        ("*a", "nothing to repeat", 1),
        ("a**", "cannot follow another quantifier", 3),
        ("abc\\", "ends with a single", 4),
        ("\\q", "unknown escape", 1),
        ("\\x{110000}", "not a Unicode scalar", 1),
        ("\\u12", "hexadecimal digits", 1),
    ])
    func mistakesAreNamedWithTheirPosition(pattern: String, problem: String, position: Int) {
        #expect {
            try RegularExpression(pattern)
        } throws: { error in
            guard let error = error as? RegularExpression.SyntaxError else { return false }
            return error.problem.contains(problem) && error.position == position
        }
    }

    @Test func patternsThatExpandPastTheProgramLimitAreRefused() throws {
        #expect(throws: RegularExpression.SyntaxError.self) { try RegularExpression("(a{1000}){1000}") }
        #expect(throws: RegularExpression.SyntaxError.self) { try RegularExpression(String(repeating: "(", count: 300) + String(repeating: ")", count: 300)) }
        // Just under the limits compiles.
        #expect(try RegularExpression("(ab{1,1000}c)").program.count < RegularExpression.maxProgramSize)
        #expect(try RegularExpression(String(repeating: "(", count: 200) + "a" + String(repeating: ")", count: 200)).matches("a"))
    }

    /// Patterns that make a backtracking engine try exponentially or polynomially many paths,
    /// over texts of 3,000 to 20,000 characters: each answer is right and its steps stay within
    /// 2 × (text length + 1) × program size (ICU took seconds per text for the first ones, then
    /// gave up and answered no match).
    @Test(arguments: [
        ("(a+)+$", String(repeating: "a", count: 20_000) + "b", false),
        ("(a+)+$", String(repeating: "a", count: 20_000), true),
        ("(a|aa)*c", String(repeating: "a", count: 20_000), false),
        ("(a*)*b", String(repeating: "a", count: 20_000), false),
        ("(.*a){12}", String(repeating: "a", count: 3_000) + "b", false),
        ("(.*a){12}", String(repeating: "ab", count: 1_500) + "a", true),
        ("(\\w+\\s?)*$", String(repeating: "word ", count: 2_000) + "!", false),
        ("(x+x+)+y", String(repeating: "x", count: 10_000), false),
        ("([a-z]+[0-9]*)+=", String(repeating: "abc123", count: 3_000), false),
    ])
    func pathologicalPatternsFinishWithinTheirStepBound(pattern: String, text: String, expected: Bool) throws {
        let regex = try RegularExpression(pattern)
        var steps = 0
        #expect(regex.matches(text, steps: &steps) == expected)
        let bound = 2 * (text.unicodeScalars.count + 1) * regex.program.count
        #expect(steps <= bound, "\(steps) steps for \(pattern) over \(text.count) characters (bound \(bound))")
        #expect(steps > 0)
    }
}
