import Foundation

// The comparison and logical operators of `#Predicate`:
//
// ```swift
// #Predicate<KernUser> { $0.lastName == "Bluth" && $0.luckyNumber! > 5 }
// // lastName == "Bluth" AND luckyNumber > 5
// #Predicate<KernUser> { !($0.firstName != "Ron") || ($0.luckyNumber ?? 0) >= 10 }
// ```
//
// A comparison needs a field on one side and a constant on the other; comparing two fields is
// refused. Nil compares as in the key-path form (`== nil` holds for a missing value, `<` with nil
// is false); a force-unwrap (`$0.luckyNumber!`) reads as the field, so a nil field just does not
// match instead of stopping the evaluation.

extension PredicateExpressions.Equal: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(try PredicateConversion.compare(conversion.node(of: lhs), .equal, conversion.node(of: rhs), in: self))
    }
}

extension PredicateExpressions.NotEqual: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(try PredicateConversion.compare(conversion.node(of: lhs), .notEqual, conversion.node(of: rhs), in: self))
    }
}

extension PredicateExpressions.Comparison: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        let operation: ComparisonOperator = switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        @unknown default: throw PredicateConversion.unsupported(self, "comparison operator \(op)")
        }
        return .predicate(try PredicateConversion.compare(conversion.node(of: lhs), operation, conversion.node(of: rhs), in: self))
    }
}

extension PredicateExpressions.Conjunction: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(.all(try conversion.predicate(of: lhs), try conversion.predicate(of: rhs)))
    }
}

extension PredicateExpressions.Disjunction: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(.any(try conversion.predicate(of: lhs), try conversion.predicate(of: rhs)))
    }
}

extension PredicateExpressions.Negation: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        .predicate(.not(try conversion.predicate(of: wrapped)))
    }
}

extension PredicateExpressions.NilCoalesce: ConvertibleToQuery {
    package func queryNode(in conversion: PredicateConversion) throws -> QueryNode {
        let wrapped = try conversion.node(of: lhs)
        let fallback = try conversion.node(of: rhs)
        switch (wrapped, fallback) {
        case (.optionalPredicate(let predicate, let nilWhen), .value(.bool(let value))):
            // `$0.luckyNumber.flatMap { $0 > 5 } ?? false`
            return .predicate(value ? .any(nilWhen, predicate) : .all(.not(nilWhen), predicate))
        case (.field(let path, _, nil), .value(let value)) where !value.isList && value != .null:
            // `($0.luckyNumber ?? 0) > 5`
            return .coalescedField(path: path, default: value)
        default:
            throw PredicateConversion.unsupported(self, "?? needs an optional field or flatMap condition on the left and a constant on the right")
        }
    }
}

extension PredicateConversion {
    /// `lhs op rhs` for two converted operands.
    package static func compare(_ lhs: QueryNode, _ op: ComparisonOperator, _ rhs: QueryNode, in expression: Any) throws -> QueryPredicate {
        switch (lhs, rhs) {
        case (.field(let path, _, let quantifier), .value(let value)):
            return try comparison(path, op, value, quantifier, in: expression)
        case (.value(let value), .field(let path, _, let quantifier)):
            return try comparison(path, op.mirrored, value, quantifier, in: expression)
        case (.coalescedField(let path, let fallback), .value(let value)):
            return try coalesced(path, fallback, op, value, in: expression)
        case (.value(let value), .coalescedField(let path, let fallback)):
            return try coalesced(path, fallback, op.mirrored, value, in: expression)
        case (.value(let left), .value(let right)):
            return .constant(FieldComparison(field: [], op: op, value: right).holds(for: left))
        case (.predicate(let predicate), .value(.bool(let value))) where op == .equal || op == .notEqual,
             (.value(.bool(let value)), .predicate(let predicate)) where op == .equal || op == .notEqual:
            return value == (op == .equal) ? predicate : .not(predicate)
        case (.optionalPredicate(let predicate, let nilWhen), .value(let value)) where op == .equal || op == .notEqual,
             (.value(let value), .optionalPredicate(let predicate, let nilWhen)) where op == .equal || op == .notEqual:
            let matches: QueryPredicate
            switch value {
            case .null: matches = nilWhen
            case .bool(true): matches = .all(.not(nilWhen), predicate)
            case .bool(false): matches = .all(.not(nilWhen), .not(predicate))
            default: throw unsupported(expression, "an optional condition compared with \(value)")
            }
            return op == .equal ? matches : .not(matches)
        case (.field, .field), (.field, .coalescedField), (.coalescedField, .field), (.coalescedField, .coalescedField):
            throw unsupported(expression, "comparing two fields")
        default:
            throw unsupported(expression, "a comparison needs a field on one side and a constant on the other")
        }
    }

    private static func comparison(_ path: [String], _ op: ComparisonOperator, _ value: QueryValue,
                                   _ quantifier: Quantifier?, in expression: Any) throws -> QueryPredicate {
        if value.isList { throw unsupported(expression, "comparing with an array constant") }
        if value == .null, op != .equal, op != .notEqual {
            throw unsupported(expression, "ordering comparison with nil")
        }
        return .comparison(FieldComparison(field: path, op: op, value: value, quantifier: quantifier))
    }

    /// `(field ?? fallback) op value`: the comparison where the field has a value, else a constant.
    private static func coalesced(_ path: [String], _ fallback: QueryValue, _ op: ComparisonOperator,
                                  _ value: QueryValue, in expression: Any) throws -> QueryPredicate {
        let compared = try comparison(path, op, value, nil, in: expression)
        let isNil = QueryPredicate.comparison(FieldComparison(field: path, op: .equal, value: .null))
        return FieldComparison(field: [], op: op, value: value).holds(for: fallback)
            ? .any(isNil, compared) : .all(.not(isNil), compared)
    }
}

extension ComparisonOperator {
    /// The operator with its operands swapped: `5 < x` is `x > 5`.
    package var mirrored: ComparisonOperator {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: self
        }
    }
}
