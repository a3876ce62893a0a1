import Foundation
import Testing
@testable import Strata

@Suite struct QueryValueOrderTests {
    @Test(arguments: [
        (QueryValue.null, QueryValue.bool(false), -1),
        (.bool(false), .bool(true), -1),
        (.bool(true), .int(0), -1),
        (.int(2), .double(2.5), -1),
        (.double(2.0), .int(2), 0),
        (.int(-1), .uint(UInt64.max), -1),
        (.uint(UInt64.max), .double(1e30), -1),
        (.int(Int64.max), .double(9_223_372_036_854_775_807.0), -1),  // the double rounds up to 2^63
        (.int(9_007_199_254_740_993), .double(9_007_199_254_740_992.0), 1),  // no rounding through Double
        (.double(.nan), .double(-.infinity), -1),
        (.double(.nan), .double(.nan), 0),
        (.int(99), .string(""), -1),
        (.string("B"), .string("a"), -1),
        (.string("a"), .string("ab"), -1),
        (.string("z"), .string("é"), -1),
        (.string("\u{FFFF}"), .string("😀"), -1),  // code point order, not UTF-16 order
        (.string("x"), .date(Date(timeIntervalSinceReferenceDate: 0)), -1),
        (.date(Date(timeIntervalSinceReferenceDate: 1)), .date(Date(timeIntervalSinceReferenceDate: 2)), -1),
        (.uuid(UUID(uuidString: "00000000-0000-0000-0000-0000000000FF")!),
         .uuid(UUID(uuidString: "01000000-0000-0000-0000-000000000000")!), -1),
        (.data(Data([1, 2])), .data(Data([1, 3])), -1),
        (.data(Data([1])), .data(Data([1, 0])), -1),
        (.list([.int(1)]), .list([.int(1), .int(0)]), -1),
        (.list([.int(2)]), .list([.int(1), .int(9)]), 1),
    ])
    func valuesFollowTheTotalOrder(a: QueryValue, b: QueryValue, expected: Int) {
        #expect(QueryValueOrder.compare(a, b, options: []) == expected)
        #expect(QueryValueOrder.compare(b, a, options: []) == -expected)
    }

    @Test func optionsFoldStringsBeforeComparing() {
        #expect(QueryValueOrder.compare(.string("B"), .string("a"), options: .caseInsensitive) == 1)
        #expect(QueryValueOrder.compare(.string("Élan"), .string("elan"), options: [.caseInsensitive, .diacriticInsensitive]) == 0)
        #expect(QueryValueOrder.compare(.list([.string("A")]), .list([.string("a")]), options: .caseInsensitive) == 0)
    }

    @Test func sortingMixedValuesIsDeterministic() {
        let values: [QueryValue] = [.string("b"), .int(3), .null, .double(1.5), .bool(true), .string("a"), .uint(.max)]
        let sorted = values.sorted { QueryValueOrder.compare($0, $1, options: []) < 0 }
        #expect(sorted == [.null, .bool(true), .double(1.5), .int(3), .uint(.max), .string("a"), .string("b")])
    }
}

@Suite struct CollationTests {
    @Test(arguments: [
        ("ÉLAN", StringComparisonOptions.caseInsensitive, "élan"),
        ("ÉLAN", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive]), "elan"),
        ("Fünke", StringComparisonOptions.diacriticInsensitive, "Funke"),
        ("Fünke", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive]), "funke"),
        ("Fu\u{0308}nke", StringComparisonOptions.diacriticInsensitive, "Funke"),
        ("Straße", StringComparisonOptions.caseInsensitive, "strasse"),
        ("STRASSE", StringComparisonOptions.caseInsensitive, "strasse"),
        ("ΣΊΣΥΦΟΣ", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive]), "σισυφοσ"),
        // As Foundation folds: a stroke is part of the letter, not a diacritic.
        ("Øresund Łódź", StringComparisonOptions.diacriticInsensitive, "Øresund Łodz"),
        ("한국어", StringComparisonOptions([.caseInsensitive, .diacriticInsensitive]), "한국어"),
        ("Hello World", StringComparisonOptions.caseInsensitive, "hello world"),
        ("Hello World", StringComparisonOptions.diacriticInsensitive, "Hello World"),
        ("Hello", StringComparisonOptions(), "Hello"),
        ("Café", StringComparisonOptions(), "Café"),
    ])
    func foldingMapsCaseAndDiacritics(input: String, options: StringComparisonOptions, folded: String) {
        let result = Collation.fold(input, options)
        #expect(Array(result.unicodeScalars) == Array(folded.unicodeScalars))
    }
}
