import Foundation
import Testing
@testable import Strata
@testable import StrataQuery

@Suite struct PredicateFormatClauseTests {
    @Test func lidenbrocksTrailingOrderByParses() throws {
        let query = try parseUserQuery("name == %@ ORDER BY name DESC", ["salt"])
        #expect(query == ParsedQuery(predicate: fieldComparison("name", .equal, .string("salt")),
                                     orderings: [QueryOrdering(field: ["name"], ascending: false)]))
        let any = try parseUserQuery("ANY ingredients.name == %@ ORDER BY name DESC", ["salt"])
        #expect(any.orderings == [QueryOrdering(field: ["name"], ascending: false)])
    }

    @Test func orderByAloneMeansEveryRecord() throws {
        #expect(try parseUserQuery("ORDER BY name DESC")
            == ParsedQuery(predicate: .constant(true), orderings: [QueryOrdering(field: ["name"], ascending: false)]))
        #expect(try parseUserQuery("") == ParsedQuery(predicate: .constant(true)))
        #expect(try parseUserQuery("LIMIT 5") == ParsedQuery(predicate: .constant(true), limit: 5))
        #expect(try parseUserQuery("OFFSET 2") == ParsedQuery(predicate: .constant(true), offset: 2))
    }

    @Test func orderByTakesSeveralKeysWithDirectionsAndCollations() throws {
        let query = try parseUserQuery("age > 1 order by lastName asc, address.city[cd] Desc, luckyNumber LIMIT 10 OFFSET 20")
        #expect(query.orderings == [
            QueryOrdering(field: ["lastName"]),
            QueryOrdering(field: ["address", "city"], ascending: false,
                          options: [.caseInsensitive, .diacriticInsensitive]),
            QueryOrdering(field: ["luckyNumber"]),
        ])
        #expect(query.limit == 10)
        #expect(query.offset == 20)
    }

    @Test func limitAndOffsetTakePlaceholders() throws {
        let query = try parseUserQuery("name == %@ ORDER BY %K LIMIT %d OFFSET %@", ["a", "age", 3, 4])
        #expect(query == ParsedQuery(predicate: fieldComparison("name", .equal, .string("a")),
                                     orderings: [QueryOrdering(field: ["age"])], limit: 3, offset: 4))
    }

    @Test func clauseWordsStillNameFieldsInComparisons() throws {
        #expect(try userPredicate("limit == 3") == fieldComparison("limit", .equal, .int(3)))
        #expect(try userPredicate("order == 'x'") == fieldComparison("order", .equal, .string("x")))
        #expect(try parseUserQuery("offset > 1 LIMIT 2") == ParsedQuery(predicate: fieldComparison("offset", .greater, .int(1)), limit: 2))
    }

    @Test func kernsFindAllWhereStringsParse() throws {
        let fields = userFields
        #expect(try parseUserQuery("lastName ==[cd] 'bluth'", fields: fields).predicate
            == fieldComparison("lastName", .equal, .string("bluth"), [.caseInsensitive, .diacriticInsensitive]))
        #expect(try parseUserQuery("lastName ==[cd] %@", ["bluth"], fields: fields).predicate
            == fieldComparison("lastName", .equal, .string("bluth"), [.caseInsensitive, .diacriticInsensitive]))
        #expect(try parseUserQuery("lastName ==[cd] %@ AND luckyNumber == %@", ["bluth", 13], fields: fields).predicate
            == .and([fieldComparison("lastName", .equal, .string("bluth"), [.caseInsensitive, .diacriticInsensitive]),
                     fieldComparison("luckyNumber", .equal, .int(13))]))
    }

    @Test(arguments: [
        ("lastName desc,luckyNumber", [QueryOrdering(field: ["lastName"], ascending: false),
                                       QueryOrdering(field: ["luckyNumber"])]),
        ("luckyNumber", [QueryOrdering(field: ["luckyNumber"])]),
        ("luckyNumber desc", [QueryOrdering(field: ["luckyNumber"], ascending: false)]),
        ("lastName, luckyNumber DESC", [QueryOrdering(field: ["lastName"]),
                                        QueryOrdering(field: ["luckyNumber"], ascending: false)]),
        ("lastName ASC , luckyNumber Desc", [QueryOrdering(field: ["lastName"]),
                                             QueryOrdering(field: ["luckyNumber"], ascending: false)]),
        ("lastName[cd] desc", [QueryOrdering(field: ["lastName"], ascending: false,
                                             options: [.caseInsensitive, .diacriticInsensitive])]),
        ("address.city [c]", [QueryOrdering(field: ["address", "city"], options: .caseInsensitive)]),
        ("  ", []),
    ])
    func kernSortSpecsParse(spec: String, orderings: [QueryOrdering]) throws {
        #expect(try PredicateFormat.parseSort(spec, entity: "User", fields: userFields) == orderings)
    }

    @Test(arguments: [
        ("lastName desc,", "expected a field name to sort by"),
        ("lastName sideways", "unexpected 'sideways' in the sort spec"),
        ("lastNmae desc", "unknown field 'lastNmae' in User (did you mean 'lastName'?) at column 1"),
        ("lastName[x]", "unknown comparison option 'x'"),
        ("lastName desc luckyNumber", "unexpected 'luckyNumber'"),
    ])
    func badSortSpecsThrowTypedErrors(spec: String, message: String) {
        #expect {
            try PredicateFormat.parseSort(spec, entity: "User", fields: userFields)
        } throws: { error in
            let error = error as? StrataError
            // An unknown field has its own code, whatever names it; the rest are query errors.
            let code: StrataError.Code = message.hasPrefix("unknown field") ? .unknownField : .invalidQuery
            return error?.code == code && error?.message.contains(message) == true
        }
    }
}
