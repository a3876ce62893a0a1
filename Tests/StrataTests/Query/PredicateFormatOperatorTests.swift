import Foundation
import Testing
@testable import Strata

@Suite struct PredicateFormatOperatorTests {
    @Test(arguments: [
        ("age == 3", ComparisonOperator.equal), ("age = 3", .equal), ("age != 3", .notEqual),
        ("age <> 3", .notEqual), ("age < 3", .less), ("age <= 3", .lessOrEqual), ("age =< 3", .lessOrEqual),
        ("age > 3", .greater), ("age >= 3", .greaterOrEqual), ("age => 3", .greaterOrEqual),
    ])
    func symbolOperatorsParseToTheirComparison(format: String, op: ComparisonOperator) throws {
        #expect(try userPredicate(format) == fieldComparison("age", op, .int(3)))
    }

    @Test(arguments: [
        ("name BEGINSWITH 'Jo'", ComparisonOperator.beginsWith), ("name beginswith 'Jo'", .beginsWith),
        ("name ENDSWITH 'Jo'", .endsWith), ("name CONTAINS 'Jo'", .contains), ("name Contains 'Jo'", .contains),
        ("name LIKE 'Jo'", .like), ("name MATCHES 'Jo'", .matches),
    ])
    func wordOperatorsAreCaseInsensitive(format: String, op: ComparisonOperator) throws {
        #expect(try userPredicate(format) == fieldComparison("name", op, .string("Jo")))
    }

    @Test(arguments: [
        ("name ==[c] 'a'", StringComparisonOptions.caseInsensitive),
        ("name ==[d] 'a'", StringComparisonOptions.diacriticInsensitive),
        ("name ==[cd] 'a'", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive])),
        ("name ==[dc] 'a'", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive])),
        ("name ==[CD] 'a'", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive])),
        ("name == 'a'", StringComparisonOptions()),
    ])
    func modifiersFollowTheOperator(format: String, options: StringComparisonOptions) throws {
        #expect(try userPredicate(format) == fieldComparison("name", .equal, .string("a"), options))
    }

    @Test func modifiersApplyToWordOperators() throws {
        #expect(try userPredicate("name CONTAINS[c] 'Micky'")
            == fieldComparison("name", .contains, .string("Micky"), .caseInsensitive))
        #expect(try userPredicate("name LIKE[cd] 'mi*'")
            == fieldComparison("name", .like, .string("mi*"), [.caseInsensitive, .diacriticInsensitive]))
    }

    @Test func betweenTakesABraceListOrAnArrayArgument() throws {
        let expected = fieldComparison("age", .between, .list([.int(1), .int(10)]))
        #expect(try userPredicate("age BETWEEN {1, 10}") == expected)
        #expect(try userPredicate("age BETWEEN %@", [[1, 10]]) == expected)
    }

    @Test func inTakesABraceListOrAnArrayOrSetArgument() throws {
        let expected = fieldComparison("name", .in, .list([.string("a"), .string("b")]))
        #expect(try userPredicate("name IN {'a', 'b'}") == expected)
        #expect(try userPredicate("name IN %@", [["a", "b"]]) == expected)
        #expect(try userPredicate("name IN %@", [Set(["b", "a"])]) == expected)
        #expect(try userPredicate("name IN {}") == fieldComparison("name", .in, .list([])))
    }

    @Test func aValueOnTheLeftOfInMeansTheArrayFieldContainsIt() throws {
        #expect(try userPredicate("'swift' IN tags") == fieldComparison("tags", .equal, .string("swift"), [], .any))
        #expect(try userPredicate("%@ IN[c] tags", ["x"])
            == fieldComparison("tags", .equal, .string("x"), .caseInsensitive, .any))
    }

    @Test(arguments: [
        ("3 < age", ComparisonOperator.greater), ("3 <= age", .greaterOrEqual), ("3 > age", .less),
        ("3 >= age", .lessOrEqual), ("3 == age", .equal), ("3 != age", .notEqual),
    ])
    func aValueOnTheLeftFlipsTheOperator(format: String, op: ComparisonOperator) throws {
        #expect(try userPredicate(format) == fieldComparison("age", op, .int(3)))
    }

    @Test(arguments: [
        ("ANY tags == 'a'", Quantifier.any), ("SOME tags == 'a'", .any), ("any tags == 'a'", .any),
        ("ALL tags == 'a'", .all), ("NONE tags == 'a'", Quantifier.none),
    ])
    func quantifiersPrecedeTheKeyPath(format: String, quantifier: Quantifier) throws {
        #expect(try userPredicate(format) == fieldComparison("tags", .equal, .string("a"), [], quantifier))
    }

    @Test func lidenbrocksAnyOverANestedKeyPathParses() throws {
        #expect(try userPredicate("ANY ingredients.name == %@", ["salt"])
            == fieldComparison("ingredients.name", .equal, .string("salt"), [], .any))
    }

    @Test func notBeforeAWordOperatorNegatesTheComparison() throws {
        #expect(try userPredicate("lastName NOT IN %@", [["Howser", "James"]])
            == .not(fieldComparison("lastName", .in, .list([.string("Howser"), .string("James")]))))
        #expect(try userPredicate("name NOT LIKE 'a*'") == .not(fieldComparison("name", .like, .string("a*"))))
    }

    @Test func dottedKeyPathsAndEscapedReservedWordsNameFields() throws {
        #expect(try userPredicate("address.city == 'Oslo'") == fieldComparison("address.city", .equal, .string("Oslo")))
        #expect(try userPredicate("#IN == 1") == fieldComparison("IN", .equal, .int(1)))
        #expect(try userPredicate("address.#in == 1") == fieldComparison("address.in", .equal, .int(1)))
    }

    @Test func keyPathPlaceholderNamesAField() throws {
        #expect(try userPredicate("%K == %@", ["address.city", "Oslo"])
            == fieldComparison("address.city", .equal, .string("Oslo")))
    }
}
