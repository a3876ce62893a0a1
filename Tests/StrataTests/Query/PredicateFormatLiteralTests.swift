import Foundation
import Testing
@testable import Strata

@Suite struct PredicateFormatLiteralTests {
    @Test(arguments: [
        ("x == 'abc'", QueryValue.string("abc")), ("x == \"abc\"", .string("abc")),
        ("x == 'it\\'s'", .string("it's")), ("x == \"say \\\"hi\\\"\"", .string("say \"hi\"")),
        ("x == 'a\\nb\\tc'", .string("a\nb\tc")), ("x == 'back\\\\slash'", .string("back\\slash")),
        ("x == '\\u00e9'", .string("é")), ("x == 'Fünke'", .string("Fünke")), ("x == ''", .string("")),
        ("x == 'a\\d+'", .string("a\\d+")),
        ("x == 42", .int(42)), ("x == -42", .int(-42)), ("x == 0x1F", .int(31)), ("x == 0b101", .int(5)),
        ("x == 0o17", .int(15)), ("x == 9223372036854775807", .int(.max)),
        ("x == -9223372036854775808", .int(.min)), ("x == 18446744073709551615", .uint(.max)),
        ("x == 1.5", .double(1.5)), ("x == -2.25", .double(-2.25)), ("x == 1e3", .double(1000)),
        ("x == 2.5E-1", .double(0.25)), ("x == .5", .double(0.5)),
        ("x == TRUE", .bool(true)), ("x == yes", .bool(true)), ("x == FALSE", .bool(false)),
        ("x == NO", .bool(false)), ("x == nil", .null), ("x == NULL", .null),
        ("x == {1, 'a', {2}}", .list([.int(1), .string("a"), .list([.int(2)])])),
    ])
    func literalsParseToValues(format: String, value: QueryValue) throws {
        #expect(try userPredicate(format) == fieldComparison("x", .equal, value))
    }

    @Test(arguments: [
        ("CAST('2014-01-01T00:00:00Z', 'NSDate')", 410_227_200.0),
        ("CAST('2014-01-01T00:00:00.250Z', 'NSDate')", 410_227_200.25),
        ("CAST('2014-01-01T02:00:00+02:00', 'NSDate')", 410_227_200.0),
        ("CAST('2014-01-01', 'NSDate')", 410_227_200.0),
        ("CAST(410227200, 'NSDate')", 410_227_200.0),
        ("CAST(-1.5, 'NSDate')", -1.5),
        ("cast(\"2014-01-01T00:00:00Z\", \"NSDate\")", 410_227_200.0),
    ])
    func castToNSDateReadsISO8601OrSecondsSince2001(literal: String, seconds: Double) throws {
        let parsed = try userPredicate("born < \(literal)")
        guard case .comparison(let c) = parsed, case .date(let date) = c.value else {
            Issue.record("expected a date comparison, got \(parsed)")
            return
        }
        #expect(abs(date.timeIntervalSinceReferenceDate - seconds) < 0.001)
    }

    @Test func truePredicateAndFalsePredicateAreConstants() throws {
        #expect(try userPredicate("TRUEPREDICATE") == .constant(true))
        #expect(try userPredicate("falsepredicate") == .constant(false))
        #expect(try userPredicate("TRUEPREDICATE AND age == 1") == .and([.constant(true), fieldComparison("age", .equal, .int(1))]))
    }

    @Test func placeholdersConsumeArgumentsInOrder() throws {
        let date = Date(timeIntervalSince1970: 1000)
        let id = UUID()
        let parsed = try userPredicate("a == %@ AND b == %d AND c == %i AND d == %f AND %K == %@ AND e == %ld AND f == %@",
                                   ["x", 2, 3, 4.5, "g", date, 7, id])
        #expect(parsed == .and([
            fieldComparison("a", .equal, .string("x")), fieldComparison("b", .equal, .int(2)),
            fieldComparison("c", .equal, .int(3)), fieldComparison("d", .equal, .double(4.5)),
            fieldComparison("g", .equal, .date(date)), fieldComparison("e", .equal, .int(7)),
            fieldComparison("f", .equal, .uuid(id)),
        ]))
    }

    @Test func floatPlaceholderWidensIntegers() throws {
        #expect(try userPredicate("d == %f", [4]) == fieldComparison("d", .equal, .double(4)))
    }

    @Test func nilArgumentBecomesNull() throws {
        let missing: String? = nil
        #expect(try userPredicate("name == %@", [missing]) == fieldComparison("name", .equal, .null))
        #expect(try userPredicate("name == %@", [NSNull()]) == fieldComparison("name", .equal, .null))
    }
}

@Suite struct PredicateFormatPrecedenceTests {
    let a = fieldComparison("a", .equal, .int(1))
    let b = fieldComparison("b", .equal, .int(2))
    let c = fieldComparison("c", .equal, .int(3))

    @Test func andBindsTighterThanOr() throws {
        #expect(try userPredicate("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try userPredicate("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try userPredicate("a == 1 || b == 2 && c == 3") == .or([a, .and([b, c])]))
    }

    @Test func notBindsTighterThanAnd() throws {
        #expect(try userPredicate("NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try userPredicate("!a == 1 && b == 2") == .and([.not(a), b]))
        #expect(try userPredicate("not not a == 1") == .not(.not(a)))
    }

    @Test func parenthesesOverridePrecedence() throws {
        #expect(try userPredicate("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try userPredicate("NOT (a == 1 OR b == 2)") == .not(.or([a, b])))
        #expect(try userPredicate("((a == 1))") == a)
    }

    @Test func chainsOfTheSameConnectiveFlatten() throws {
        #expect(try userPredicate("a == 1 AND (b == 2 AND c == 3)") == .and([a, b, c]))
        #expect(try userPredicate("a == 1 OR b == 2 OR c == 3") == .or([a, b, c]))
    }

    @Test func keyShadowTriplesWrittenAsFormatsParse() throws {
        // where:@[a$.name, @"contains[c]", @"Micky", @"and not", a$.species.simpleName, @"in", animalTypes]
        #expect(try userPredicate("name CONTAINS[c] %@ AND NOT species.simpleName IN %@", ["Micky", ["Cow", "Dog"]])
            == .and([fieldComparison("name", .contains, .string("Micky"), .caseInsensitive),
                     .not(fieldComparison("species.simpleName", .in, .list([.string("Cow"), .string("Dog")])))]))
        // where:@[a$.name, @"contains[c]", @"Micky", a$.name, @"!=", @"Micky Duck"] (default connective and)
        #expect(try userPredicate("name contains[c] 'Micky' and name != 'Micky Duck'")
            == .and([fieldComparison("name", .contains, .string("Micky"), .caseInsensitive),
                     fieldComparison("name", .notEqual, .string("Micky Duck"))]))
        // "or not" and nested arrays instead of brackets; "nil" on the right side
        #expect(try userPredicate("(name == 'a' OR NOT farm.age != nil) AND age > 2")
            == .and([.or([fieldComparison("name", .equal, .string("a")),
                          .not(fieldComparison("farm.age", .notEqual, .null))]),
                     fieldComparison("age", .greater, .int(2))]))
    }
}
