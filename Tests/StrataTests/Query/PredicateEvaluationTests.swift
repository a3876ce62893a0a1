import Foundation
import Testing
@testable import Strata

/// Truth tables for the evaluator, written as format strings against one record so each row reads as
/// the query a user would write.
@Suite struct PredicateEvaluationTests {
    static let record = DictionaryRecord([
        "name": .string("Fünke"), "lastName": .string("Bluth"), "title": .string("ÉLAN"),
        "age": .int(30), "score": .double(2.5), "big": .uint(UInt64.max), "active": .bool(true),
        "nothing": .null, "tags": .list([.string("swift"), .string("lmdb")]), "empty": .list([]),
        "numbers": .list([.int(1), .int(5), .int(9)]),
        "address.city": .string("Oslo"),
        "born": .date(Date(timeIntervalSinceReferenceDate: 410_227_200)),
    ])

    @Test(arguments: [
        // equality, null semantics
        ("age == 30", true), ("age == 30.0", true), ("age = 31", false), ("age != 31", true),
        ("missing == nil", true), ("nothing == nil", true), ("age == nil", false),
        ("missing != nil", false), ("age != nil", true), ("nothing != 1", true), ("missing == 0", false),
        ("active == YES", true), ("active == 1", false), ("name == 'Fünke'", true),
        // ordering, null on either side is false
        ("age < 31", true), ("age <= 30", true), ("age > 30", false), ("age >= 30.0", true),
        ("score > 2", true), ("score < 2.5", false), ("big > 9223372036854775807", true),
        ("missing < 1", false), ("missing > 1", false), ("nothing >= 0", false), ("age < nil", false),
        ("age > nil", false), ("missing BETWEEN {0, 1}", false), ("name > 1", false), ("age < 'x'", false),
        ("lastName < 'C'", true), ("lastName < 'b'", true), ("lastName <[c] 'b'", false),
        // BETWEEN, IN
        ("age BETWEEN {30, 40}", true), ("age BETWEEN {31, 40}", false), ("age BETWEEN {1, 30}", true),
        ("score BETWEEN {2, 3}", true), ("age IN {1, 30}", true), ("age IN {1, 2}", false),
        ("age IN {}", false), ("lastName IN {'bluth'}", false), ("lastName IN[c] {'bluth'}", true),
        ("missing IN {nil}", true), ("age NOT IN {1, 2}", true),
        // strings and folding
        ("name ==[cd] 'funke'", true), ("name ==[c] 'funke'", false), ("name ==[d] 'Funke'", true),
        ("title ==[cd] 'elan'", true), ("title ==[c] 'élan'", true), ("title == 'elan'", false),
        ("lastName BEGINSWITH 'Bl'", true), ("lastName BEGINSWITH 'bl'", false),
        ("lastName BEGINSWITH[c] 'bl'", true), ("lastName ENDSWITH 'uth'", true),
        ("lastName ENDSWITH 'Bluth!'", false), ("lastName CONTAINS 'lut'", true),
        ("lastName CONTAINS 'LUT'", false), ("lastName CONTAINS[c] 'LUT'", true), ("lastName CONTAINS ''", true),
        ("name CONTAINS[d] 'unk'", true), ("name CONTAINS 'unk'", false),
        ("age BEGINSWITH '3'", false), ("missing CONTAINS 'a'", false),
        ("lastName LIKE 'B*h'", true), ("lastName LIKE 'B?uth'", true), ("lastName LIKE 'B?th'", false),
        ("lastName LIKE '*'", true), ("lastName LIKE 'b*'", false), ("lastName LIKE[c] 'b*'", true),
        ("lastName LIKE '*l*t*'", true), ("lastName LIKE 'Bluth?'", false), ("name LIKE[cd] 'f?nke'", true),
        ("lastName MATCHES 'B[a-z]+'", true), ("lastName MATCHES 'B'", false), ("lastName MATCHES 'b.*'", false),
        ("lastName MATCHES[c] 'b.*'", true), ("lastName MATCHES 'Bl|Bluth'", true),
        ("lastName MATCHES '\\\\w{5}'", true), ("name MATCHES[d] 'Funke'", true),
        ("address.city == 'Oslo'", true), ("address.city BEGINSWITH 'Os'", true),
        // dates
        ("born == CAST('2014-01-01T00:00:00Z', 'NSDate')", true),
        ("born < CAST('2014-01-01T00:00:01Z', 'NSDate')", true), ("born > CAST(410227200, 'NSDate')", false),
        // arrays: implicit ANY, explicit quantifiers, whole-array equality
        ("tags == 'swift'", true), ("tags == 'rust'", false), ("tags != 'swift'", false),
        ("tags != 'rust'", true), ("tags BEGINSWITH 'lm'", true), ("tags CONTAINS 'wif'", false),
        ("ANY tags CONTAINS 'wif'", true), ("tags CONTAINS 'swift'", true), ("tags CONTAINS[c] 'LMDB'", true),
        ("numbers CONTAINS 5", true), ("numbers CONTAINS 4", false), ("numbers > 8", true),
        ("numbers > 9", false), ("tags IN {'lmdb', 'x'}", true), ("'swift' IN tags", true),
        ("'SWIFT' IN[c] tags", true), ("'rust' IN tags", false),
        ("ANY numbers > 8", true), ("ALL numbers > 0", true), ("ALL numbers > 1", false),
        ("NONE numbers > 9", true), ("NONE numbers > 8", false), ("ANY tags ==[c] 'SWIFT'", true),
        ("ALL empty == 1", true), ("ANY empty == 1", false), ("NONE empty == 1", true),
        ("ANY missing == 1", false), ("ALL missing == 1", true), ("ANY age == 30", true),
        ("tags == {'swift', 'lmdb'}", true), ("tags == {'lmdb', 'swift'}", false),
        ("tags != {'lmdb', 'swift'}", true), ("empty == {}", true), ("tags == nil", false),
        ("tags != nil", true), ("empty != nil", true),
        // connectives and constants
        ("TRUEPREDICATE", true), ("FALSEPREDICATE", false), ("NOT FALSEPREDICATE", true),
        ("age == 30 AND lastName == 'Bluth'", true), ("age == 30 AND lastName == 'x'", false),
        ("age == 1 OR lastName == 'Bluth'", true), ("age == 1 OR lastName == 'x'", false),
        ("NOT (age == 1 OR lastName == 'x')", true), ("!(age == 30) || missing == nil", true),
    ])
    func predicatesEvaluateLikeNSPredicate(format: String, expected: Bool) throws {
        #expect(try userPredicate(format).evaluate(on: Self.record) == expected)
    }

    @Test(arguments: ["missing == 1", "nothing == nil", "age == 30", "age == 31", "tags == 'swift'",
                      "tags == 'rust'", "name ==[cd] 'funke'", "tags == {'swift', 'lmdb'}", "empty == {}",
                      "ANY numbers == 5", "ALL numbers == 5"])
    func notEqualIsAlwaysTheNegationOfEqual(format: String) throws {
        guard case .comparison(let equal) = try userPredicate(format), equal.op == .equal else {
            Issue.record("\(format) is not an == comparison")
            return
        }
        var notEqual = equal
        notEqual.op = .notEqual
        let (a, b) = (QueryPredicate.comparison(equal), QueryPredicate.comparison(notEqual))
        if equal.quantifier == nil {
            #expect(b.evaluate(on: Self.record) == !a.evaluate(on: Self.record))
        } else {
            // Quantified, != applies per element: ANY x != v is NOT ALL x == v.
            var all = equal
            all.quantifier = equal.quantifier == .any ? .all : (equal.quantifier == .all ? .any : nil)
            if let flipped = all.quantifier {
                #expect(b.evaluate(on: Self.record) == !QueryPredicate.comparison(
                    FieldComparison(field: all.field, op: .equal, value: all.value, quantifier: flipped))
                    .evaluate(on: Self.record))
            }
        }
    }

    @Test func invalidRuntimePatternsEvaluateFalse() throws {
        let parsed = try userPredicate("lastName MATCHES %@", ["(unclosed"])
        #expect(parsed.evaluate(on: Self.record) == false)
        #expect(fieldComparison("lastName", .matches, .string("a)(b")).evaluate(on: Self.record) == false)
        #expect(fieldComparison("lastName", .matches, .string("[")).evaluate(on: Self.record) == false)
        #expect(try userPredicate("lastName MATCHES %@", ["Bl.*"]).evaluate(on: Self.record))
    }

    @Test func argumentsEvaluateLikeTheirLiterals() throws {
        #expect(try userPredicate("lastName ==[cd] %@ AND age == %@", ["BLÜTH", 30]).evaluate(on: Self.record))
        #expect(try userPredicate("born == %@", [Date(timeIntervalSinceReferenceDate: 410_227_200)]).evaluate(on: Self.record))
        #expect(try userPredicate("%K IN %@", ["address.city", Set(["Oslo", "Bergen"])]).evaluate(on: Self.record))
        #expect(try userPredicate("age BETWEEN %@", [[29.5, 30]]).evaluate(on: Self.record))
    }
}
