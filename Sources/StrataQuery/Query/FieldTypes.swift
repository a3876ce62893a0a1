import Foundation
import LMDB

/// The declared field types of an entity, against which every comparison's constant is checked
/// when a condition is given (format strings, dictionaries, `#Predicate`s, sync scopes), before
/// any record is read or deleted.
///
/// A comparison that could never hold because its constant is of another kind than its field
/// (`luckyNumber != "7"`, `createdAt > "2021-01-01"`, `active == 1`) would otherwise quietly match
/// nothing, or, negated, everything. The rule, in this one place: numbers compare with numbers
/// (of any kind), strings with strings (also URL and Decimal fields, stored as text), dates with
/// dates, UUIDs with UUIDs, data with data, Bools with Bools and only by `==`, `!=` and `IN`; the
/// string operators (`BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES`, and `CONTAINS` on a string) need
/// a string field and a string; nil compares with every field; a collection operator's value
/// (`tags.@count`) compares as its type, and needs an array field (``CollectionOperator``);
/// fields of type `any` (and paths
/// the description does not know, such as relationships) are not checked. No constant is
/// converted: a date is written `CAST("2021-01-01T00:00:00Z", "NSDate")` or passed as a `Date`.
package struct FieldTypes: Sendable {
    package let description: EntityDescription

    package init(_ description: EntityDescription) { self.description = description }

    /// The field types of a record type, from its `Decodable` conformance
    /// (``EntityDescription/probed(_:)``); nil when the type cannot be probed, and then nothing
    /// is checked.
    package static func of<T: Record>(_ type: T.Type) -> FieldTypes? {
        EntityDescription.probed(type).map(FieldTypes.init)
    }

    /// Checks every comparison of `predicate`.
    package func check(_ predicate: QueryPredicate) throws(StrataError) {
        switch predicate {
        case .constant: return
        case .comparison(let comparison): try check(comparison)
        case .and(let operands), .or(let operands): for operand in operands { try check(operand) }
        case .not(let operand): try check(operand)
        }
    }

    /// Throws `.invalidQuery` naming the field, its type, the constant, the column (of a format
    /// string's constant, when given) and how to write the comparison instead.
    package func check(_ comparison: FieldComparison, column: Int? = nil) throws(StrataError) {
        let type: FieldType
        if let split = CollectionOperator.split(comparison.field) {
            guard let made = try operatorType(split, comparison, column: column) else { return }
            type = made
        } else {
            guard let stored = description.fieldType(at: comparison.fieldName) else { return }
            type = stored
        }
        let subject = type.elementType
        let op = comparison.op
        let constants: [QueryValue]
        switch (op, comparison.value) {
        case (.in, .list(let values)), (.between, .list(let values)): constants = values
        case (.equal, .list(let values)), (.notEqual, .list(let values)): constants = values   // the whole array
        default: constants = [comparison.value]
        }
        // Without a quantifier, CONTAINS on an array asks for an equal element (see `FieldComparison.evaluate`).
        let elementEquality = op == .contains && comparison.quantifier == nil && type.isArray
        for constant in constants {
            guard let hint = Self.problem(constant, subject, op: elementEquality ? .equal : op, comparison) else { continue }
            let at = column.map { " at column \($0)" } ?? ""
            throw StrataError(.invalidQuery,
                "\(description.name): cannot compare \(comparison.fieldName) (\(type)) with \(constant.described)\(at) (\(hint))",
                entity: description.name, field: comparison.fieldName)
        }
    }

    /// The type of the value a collection operator makes of its array (`tags.@count`: an
    /// integer; `@sum` of integers: an integer; `@avg`: a double; `@min`, `@max`: the element
    /// type); nil when the array's type is not known. Throws `.invalidQuery` for an operator on
    /// a field that is not an array (`population.@sum`), and for `@sum` or `@avg` of non-numbers.
    private func operatorType(_ split: CollectionOperator.Split, _ comparison: FieldComparison,
                              column: Int?) throws(StrataError) -> FieldType? {
        let base = split.base.joined(separator: ".")
        guard let array = description.fieldType(at: base), array != .any else { return nil }
        let at = column.map { " at column \($0)" } ?? ""
        let op = split.op.rawValue
        guard array.isArray else {
            throw StrataError(.invalidQuery, "\(description.name): \(comparison.fieldName): \(base) (\(array)) is not an array; \(op) applies to array fields\(at)",
                              entity: description.name, field: comparison.fieldName)
        }
        if split.op == .count { return .scalar(.integer) }
        guard let element = description.fieldType(at: split.elements.joined(separator: "."))?.elementType else { return nil }
        switch (split.op, element) {
        case (.sum, .scalar(.integer)), (.sum, .scalar(.double)), (.sum, .scalar(.float)): return element
        case (.average, .scalar(.integer)), (.average, .scalar(.double)), (.average, .scalar(.float)): return .scalar(.double)
        case (.sum, .any), (.average, .any): return nil
        case (.sum, _), (.average, _):
            throw StrataError(.invalidQuery, "\(description.name): \(comparison.fieldName): \(op) needs numbers, and \(split.elements.joined(separator: ".")) holds \(element) values\(at)",
                              entity: description.name, field: comparison.fieldName)
        default: return element   // @min, @max: an element
        }
    }

    /// How to write the comparison instead, when `constant` cannot be compared with a `subject`
    /// value by `op`; nil when it can.
    private static func problem(_ constant: QueryValue, _ subject: FieldType, op: ComparisonOperator,
                                _ comparison: FieldComparison) -> String? {
        if case .any = subject { return nil }
        let stringOperator = [.beginsWith, .endsWith, .like, .matches, .contains].contains(op)
        let ordering = [.less, .lessOrEqual, .greater, .greaterOrEqual, .between].contains(op)
        let field = comparison.fieldName
        if case .null = constant { return nil }
        if stringOperator {
            guard subject.comparesAsText else { return "\(op.rawValue) needs a string field" }
            if case .string = constant { return nil }
            return "\(op.rawValue) needs a string: quote it"
        }
        switch subject {
        case .scalar(.bool):
            if ordering { return "a Bool field compares only by ==, != and IN" }
            if case .bool = constant { return nil }
            return "compare it with true or false"
        case .scalar(.integer), .scalar(.double), .scalar(.float):
            switch constant {
            case .int, .uint, .wideInt, .double: return nil
            case .string(let text) where Double(text) != nil && (ordering || op == .equal || op == .notEqual) && op != .between:
                return "use a number: \(field) \(op.rawValue) \(text)"
            default: return "compare it with a number"
            }
        case .scalar(.date):
            if case .date = constant { return nil }
            if case .string(let text) = constant, FormatParser.parseISO8601(text) != nil {
                return "use CAST(\"\(text)\", \"NSDate\") or a date argument"
            }
            return "use CAST(\"2021-01-01T00:00:00Z\", \"NSDate\") or a date argument"
        case .scalar(.uuid):
            if case .uuid = constant { return nil }
            return "pass a UUID as an argument (%@)"
        case .scalar(.data):
            if case .data = constant { return nil }
            return "pass Data as an argument (%@)"
        case .object:
            return "it is an embedded object: compare one of its fields, like \(field).name"
        case .array:
            return nil   // arrays of arrays: elements are lists, not checked here
        case .scalar(.decimal):
            if case .string = constant { return nil }
            return "a Decimal field is stored as its text: compare it with a string"
        default:   // string, url: stored as text
            if case .string = constant { return nil }
            return "compare it with a string: quote it"
        }
    }
}

extension FieldType {
    /// Values of the type are stored as text strings (URLs and Decimals too).
    package var comparesAsText: Bool {
        switch self {
        case .scalar(.string), .scalar(.url), .scalar(.decimal), .any: true
        default: false
        }
    }

    package var isArray: Bool { if case .array = self { true } else { false } }
}

extension QueryValue {
    /// The value as an error message names it: `the string "7"`, `the number 5`.
    package var described: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "the Bool \(value)"
        case .int(let value): "the number \(value)"
        case .uint(let value): "the number \(value)"
        case .wideInt(let value): "the number \(value)"
        case .double(let value): "the number \(value)"
        case .string(let value): "the string \"\(value)\""
        case .date(let value): "the date \(value.formatted(.iso8601))"
        case .uuid(let value): "the UUID \(value.uuidString)"
        case .data(let value): "data of \(value.count) bytes"
        case .list(let values): "the list of \(values.count)"
        }
    }
}
