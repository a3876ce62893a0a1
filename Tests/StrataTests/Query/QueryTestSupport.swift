import Foundation
@testable import Strata

/// A record as a dictionary from dotted field path to value, for evaluator tests.
struct DictionaryRecord: FieldValues, Sendable {
    var values: [String: QueryValue]

    init(_ values: [String: QueryValue]) { self.values = values }

    func value(at path: [String]) -> QueryValue? { values[path.joined(separator: ".")] }
}

/// `field op value` as a predicate, with the field dotted.
func fieldComparison(_ field: String, _ op: ComparisonOperator, _ value: QueryValue,
                _ options: StringComparisonOptions = [], _ quantifier: Quantifier? = nil) -> QueryPredicate {
    .comparison(FieldComparison(field: field.split(separator: ".").map(String.init), op: op, value: value,
                                options: options, quantifier: quantifier))
}

/// Parses a format for the `User` entity used across these tests.
func parseUserQuery(_ format: String, _ arguments: [any Sendable] = [],
           fields: Set<String>? = nil) throws(StrataError) -> ParsedQuery {
    try PredicateFormat.parse(format, arguments: arguments, entity: "User", fields: fields)
}

/// The predicate alone.
func userPredicate(_ format: String, _ arguments: [any Sendable] = []) throws(StrataError) -> QueryPredicate {
    try parseUserQuery(format, arguments).predicate
}

/// The message of the error parsing throws, or nil when it parses.
func userQueryError(_ format: String, _ arguments: [any Sendable] = [], fields: Set<String>? = nil) -> StrataError? {
    do {
        _ = try parseUserQuery(format, arguments, fields: fields)
        return nil
    } catch {
        return error
    }
}

let userFields: Set<String> = ["firstName", "lastName", "luckyNumber", "age", "address", "tags", "name"]

/// A class instance, which cannot be a query value.
final class OpaqueReference: Sendable {}
