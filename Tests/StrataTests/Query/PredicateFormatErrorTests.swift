import Foundation
import Testing
import TestSupport
@testable import Strata

@Suite struct PredicateFormatErrorTests {
    @Test(arguments: [
        ("luckyNumber == ", [], "expected a value after '==' at column 16"),
        ("lastName == 'a' AND age >", [], "expected a value after '>' at column 26"),
        ("name ==[c] AND", [], "expected a value after '[c]' at column 12"),
        ("name == 'abc", [], "unterminated string starting at column 9"),
        ("name == \"abc\\\"", [], "unterminated string starting at column 9"),
        ("name ~ 'a'", [], "unknown operator '~' at column 6"),
        ("name & 'a'", [], "unknown operator '&' at column 6"),
        ("name SOUNDSLIKE 'a'", [], "unknown operator 'SOUNDSLIKE' at column 6"),
        ("name", [], "expected an operator after 'name' at column 5"),
        ("name ==[x] 'a'", [], "unknown comparison option 'x' in [x] at column 8 (use [c], [d] or [cd])"),
        ("name == 'a' AND", [], "expected a comparison, found the end of the format at column 16"),
        ("(name == 'a'", [], "expected ')' at column 13 (to close the '(' at column 1, found end of input)"),
        ("name == 'a')", [], "unexpected ')'"),
        ("age == 1 LIMIT -1", [], "LIMIT must be followed by a non-negative integer at column 16"),
        ("age == 1 LIMIT 'x'", [], "LIMIT must be followed by a non-negative integer at column 16"),
        ("age == 1 LIMIT %d", [-3], "LIMIT must be followed by a non-negative integer"),
        ("OFFSET 1.5", [], "OFFSET must be followed by a non-negative integer at column 8"),
        ("age == 1 ORDER name", [], "expected BY after ORDER at column 16"),
        ("age BETWEEN {1}", [], "BETWEEN needs two values {low, high} at column 13"),
        ("age BETWEEN %@", [[1, 2, 3]], "BETWEEN needs two values"),
        ("age IN 3", [], "IN needs a list of values"),
        ("name MATCHES '(unclosed'", [], "invalid regular expression '(unclosed' at column 14"),
        ("name MATCHES 'a)(b'", [], "invalid regular expression"),
        ("%K == 1", [42], "the argument for %K must be a field name string, not Int"),
        ("%K == 1", ["a..b"], "is not a field name"),
        ("name == %@", [OpaqueReference()], "an argument of type OpaqueReference cannot be a query value"),
        ("age == %d", ["x"], "placeholder %d needs an integer, but its argument is String"),
        ("age == %y", [], "unknown placeholder '%y' at column 8"),
        ("a == b", [], "comparing a field with another field is not supported at column 6"),
        ("1 == 2", [], "a comparison needs a field on one side at column 1"),
        ("'a' BEGINSWITH name", [], "the left side of BEGINSWITH must be a field"),
        ("ANY 'a' == 1", [], "ANY must be followed by a field at column 5"),
        ("name NOT == 'a'", [], "NOT here must be followed by IN"),
        ("age == 999999999999999999999999999999999999999", [], "integer literal 999999999999999999999999999999999999999 is too large at column 8"),
        ("age == 12abc", [], "invalid number"),
        ("d < CAST('yesterday', 'NSDate')", [], "invalid ISO 8601 date 'yesterday' in CAST at column 10"),
        ("d < CAST(1, 'NSNumber')", [], "CAST to 'NSNumber' is not supported"),
        ("name == '\\u12'", [], "invalid \\u escape"),
        ("x IN {1, 2", [], "expected ',' or '}'"),
        ("# == 1", [], "expected a name after '#' at column 1"),
    ] as [(String, [any Sendable], String)])
    func malformedFormatsThrowAMessageWithTheColumn(format: String, arguments: [any Sendable], message: String) {
        let error = userQueryError(format, arguments)
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "parsed")")
    }

    @Test func unknownFieldsAreReportedWithASuggestion() {
        let error = userQueryError("lastNmae == 'Bluth'", fields: userFields)
        #expect(error?.message == "unknown field 'lastNmae' in User (did you mean 'lastName'?) at column 1")
        #expect(error?.entity == "User")
        #expect(error?.field == "lastNmae")
        let far = userQueryError("age > 1 AND zzz == 1", fields: userFields)
        #expect(far?.message == "unknown field 'zzz' in User at column 13")
        let viaKey = userQueryError("%K == 1", ["lukyNumber"], fields: userFields)
        #expect(viaKey?.message == "unknown field 'lukyNumber' in User (did you mean 'luckyNumber'?) at column 1")
        #expect(userQueryError("address.city == 'x'", fields: userFields) == nil)
        #expect(userQueryError("nope == 1", fields: nil) == nil)
    }

    @Test func missingAndSurplusArgumentsAreCounted() {
        #expect(userQueryError("lastName == 'a' AND age == %@", [])?.message
            == "placeholder %@ at column 28 has no argument")
        #expect(userQueryError("a == %@ AND b == %@", [1, 2, 3])?.message == "3 arguments given but the format uses 2")
        #expect(userQueryError("a == 1", ["x"])?.message == "1 argument given but the format uses 0")
    }

    @Test func nestingUpToTheLimitParsesAndBeyondItThrows() throws {
        let limit = PredicateFormat.maximumNesting
        let deepest = String(repeating: "(", count: limit) + "a == 1" + String(repeating: ")", count: limit)
        #expect(try userPredicate(deepest) == fieldComparison("a", .equal, .int(1)))
        let tooDeep = "(" + deepest + ")"
        #expect(userQueryError(tooDeep)?.message == "nesting deeper than 100 levels at column 101")
        #expect(userQueryError(String(repeating: "NOT ", count: limit + 1) + "a == 1")?.message
            == "nesting deeper than 100 levels at column 401")
    }

    @Test(arguments: [("", "("), ("", "NOT "), ("", "!"), ("a IN ", "{")])
    func hostileNestingThrowsInsteadOfOverflowingTheStack(prefix: String, opener: String) {
        let format = prefix + String(repeating: opener, count: 200_000) + "a == 1"
        #expect(userQueryError(format)?.message.hasPrefix("nesting deeper than 100 levels") == true)
    }

    @Test func randomAndMutatedFormatsParseOrThrowInvalidQuery() {
        var random = SeededGenerator(seed: 0x5EED_2024)
        let seeds = [
            "lastName ==[cd] %@ AND luckyNumber == %@", "name == %@ ORDER BY name DESC LIMIT 3 OFFSET %d",
            "ANY tags IN {'a', \"b\"} OR NOT (age BETWEEN {1, 0x10} && x != nil)",
            "d < CAST('2014-01-01T00:00:00Z', 'NSDate') || %K MATCHES '[a-z]+'", "#IN LIKE[c] 'a*?\\u00e9'",
            "'x' IN tags AND NONE a.b >= -1.5e3", "TRUEPREDICATE", "name NOT IN %@",
        ]
        let alphabet = Array("abcAND OR NOT()[]{}'\"\\%@Kdfi=<>!&|,.-+#0123456789xXeE_ \u{e9}\u{301}\n\t*?")
        var parsed = 0
        for round in 0..<4000 {
            var characters: [Character]
            if round % 2 == 0 {
                characters = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)])
                for _ in 0..<Int.random(in: 1...4, using: &random) where !characters.isEmpty {
                    let index = Int.random(in: 0..<characters.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: characters.remove(at: index)
                    case 1: characters.insert(alphabet.randomElement(using: &random)!, at: index)
                    default: characters.swapAt(index, Int.random(in: 0..<characters.count, using: &random))
                    }
                }
            } else {
                characters = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                    alphabet.randomElement(using: &random)!
                }
            }
            let format = String(characters)
            var arguments = Self.arguments(fitting: format)
            // Now and then one argument too few or too many.
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where !arguments.isEmpty: arguments.removeLast()
            case 1: arguments.append("extra")
            default: break
            }
            do {
                _ = try parseUserQuery(format, arguments)
                parsed += 1
            } catch {
                #expect(error.code == .invalidQuery, "\(String(characters))")
                #expect(error.message.contains("column") || error.message.contains("argument"),
                        "\(error.message)")
            }
        }
        // The mutations must leave some inputs valid, or this test would only exercise error paths.
        #expect(parsed > 150)
    }

    /// One plausible argument per placeholder, so that mutated formats often parse.
    private static func arguments(fitting format: String) -> [any Sendable] {
        var arguments: [any Sendable] = []
        var scalars = format.unicodeScalars.makeIterator()
        while let c = scalars.next() {
            guard c == "%" else { continue }
            switch scalars.next() {
            case "@": arguments.append([1, 2])
            case "K": arguments.append("name")
            case "d", "i": arguments.append(3)
            case "f": arguments.append(2.5)
            default: break
            }
        }
        return arguments
    }
}
