import Foundation

extension QueryPlan {
    /// One stable line: the semi-joins, the access path, then each later step, joined by arrows
    /// (``steps``, each as `Operation(detail)`).
    public var description: String {
        (semiJoins.map(\.description) + steps.filter { $0.operation != "SemiJoin" }.map(\.line)).joined(separator: " → ")
    }
}

extension QueryPlan.ValueRange {
    package var explained: String {
        switch (lower, upper) {
        case let (low?, high?):
            return "\(lowerInclusive ? "[" : "(")\(low.explained), \(high.explained)\(upperInclusive ? "]" : ")")"
        case let (low?, nil): return (lowerInclusive ? ">= " : "> ") + low.explained
        case let (nil, high?): return (upperInclusive ? "<= " : "< ") + high.explained
        case (nil, nil): return "all"
        }
    }
}

extension QueryOrdering {
    package var explained: String {
        if isRelevance { return "relevance" }
        return field.joined(separator: ".") + (options.isEmpty ? "" : StringComparisonOptions.marker(options)) + (ascending ? "" : " desc")
    }
}

extension StringComparisonOptions {
    package static func marker(_ options: Self) -> String {
        options.isEmpty ? "" : "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "")
            + (options.contains(.typoTolerant) ? "t" : "") + "]"
    }
}

extension QueryPredicate {
    /// The predicate in the format language, for explain output.
    package var explained: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.explained
        case .and(let operands): return operands.map { $0.explainedOperand }.joined(separator: " AND ")
        case .or(let operands): return operands.map { $0.explainedOperand }.joined(separator: " OR ")
        case .not(let operand): return "NOT " + operand.explainedOperand
        }
    }

    private var explainedOperand: String {
        switch self {
        case .and, .or: "(\(explained))"
        default: explained
        }
    }
}

extension FieldComparison {
    package var explained: String {
        let quantified = quantifier.map { "\($0.rawValue) " } ?? ""
        return "\(quantified)\(fieldName) \(op.rawValue)\(StringComparisonOptions.marker(options)) \(value.explained)"
    }
}

extension QueryPlan.SemiJoin: CustomStringConvertible {
    public var description: String {
        "SemiJoin(\(relationship) via \(through): \(plan.map { "\($0)" } ?? "count of index entries") ⇒ \(keys) keys)"
    }
}
