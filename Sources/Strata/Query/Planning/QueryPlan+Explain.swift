import Foundation

extension QueryPlan {
    /// One stable line: the access path, then each later step, joined by arrows.
    public var description: String {
        var steps = semiJoins.map(\.description) + [accessDescription]
        if residual != .constant(true) { steps.append("Filter(\(residual.explained))") }
        if !orderFromAccess, !sort.isEmpty {
            let keys = sort.map(\.explained).joined(separator: ", ")
            if let limit { steps.append("TopK(\(keys), \(offset + limit))") } else { steps.append("Sort(\(keys))") }
        }
        if offset > 0 { steps.append("Offset(\(offset))") }
        if let limit { steps.append("Limit(\(limit))") }
        return steps.joined(separator: " → ")
    }

    /// The plan as one JSON object, for `strata explain --json`: the one-line `plan`, its parts,
    /// and the indexes it reads.
    public var jsonSummary: JSONValue {
        var members: [JSONMember] = [
            JSONMember(key: "entity", value: .string(entity)),
            JSONMember(key: "plan", value: .string(description)),
            JSONMember(key: "access", value: .string(accessDescription)),
            JSONMember(key: "indexes", value: .array(Self.indexNames(access).map(JSONValue.string))),
            JSONMember(key: "filter", value: residual == .constant(true) ? .null : .string(residual.explained)),
            JSONMember(key: "sort", value: .array(sort.map { .string($0.explained) })),
            JSONMember(key: "orderFromAccess", value: .bool(orderFromAccess)),
            JSONMember(key: "offset", value: .int(Int64(offset))),
            JSONMember(key: "limit", value: limit.map { .int(Int64($0)) } ?? .null),
            JSONMember(key: "estimatedRows", value: .int(Int64(estimatedRows))),
        ]
        if reversed { members.insert(JSONMember(key: "reversed", value: .bool(true)), at: 3) }
        return .object(members)
    }

    private static func indexNames(_ access: Access) -> [String] {
        switch access {
        case .indexScan(let index, _, _): [index]
        case .union(let parts), .intersection(let parts): parts.flatMap(indexNames)
        case .fullScan, .primaryKeyLookup, .primaryKeyRange: []
        }
    }

    private var accessDescription: String { describe(access) }

    private func describe(_ access: Access) -> String {
        let direction = reversed ? " reversed" : ""
        switch access {
        case .union(let parts):
            return "Union(" + parts.map(describe).joined(separator: ", ") + ")"
        case .intersection(let parts):
            return "Intersection(" + parts.map(describe).joined(separator: ", ") + ")"
        case .fullScan:
            return "FullScan(\(entity))\(direction)"
        case .primaryKeyLookup(let field, let keys):
            return keys.count == 1 ? "KeyLookup(\(entity).\(field) = \(keys[0].explained))"
                                   : "KeyLookup(\(entity).\(field) IN \(QueryValue.list(keys).explained))"
        case .primaryKeyRange(let field, let range):
            return "KeyRange(\(entity).\(field) \(range.explained))\(direction)"
        case .indexScan(let index, _, let condition):
            switch condition {
            case .points(let values) where values.count == 1:
                return "IndexScan(\(entity).\(index) = \(values[0].explained))\(direction)"
            case .points(let values):
                let scan = mergedByPrimaryKey ? "IndexMerge" : "IndexScan"
                return "\(scan)(\(entity).\(index) IN \(QueryValue.list(values).explained))\(direction)"
            case .range(let range):
                return "IndexScan(\(entity).\(index) \(range.explained))\(direction)"
            case .prefix(let prefix):
                return "IndexScan(\(entity).\(index) BEGINSWITH \(QueryValue.string(prefix).explained))\(direction)"
            case .all:
                return "IndexOrder(\(entity).\(index))\(direction)"
            }
        }
    }
}

extension QueryPlan.ValueRange {
    var explained: String {
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
    var explained: String {
        field.joined(separator: ".") + (options.isEmpty ? "" : StringComparisonOptions.marker(options)) + (ascending ? "" : " desc")
    }
}

extension StringComparisonOptions {
    static func marker(_ options: Self) -> String {
        options.isEmpty ? "" : "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

extension QueryPredicate {
    /// The predicate in the format language, for explain output.
    var explained: String {
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
    var explained: String {
        let quantified = quantifier.map { "\($0.rawValue) " } ?? ""
        return "\(quantified)\(fieldName) \(op.rawValue)\(StringComparisonOptions.marker(options)) \(value.explained)"
    }
}

extension QueryValue {
    var explained: String {
        switch self {
        case .null: return "nil"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .date(let value): return "CAST('\(ISO8601DateFormatter().string(from: value))', 'NSDate')"
        case .uuid(let value): return "'\(value.uuidString)'"
        case .data(let value): return "<\(value.count) bytes>"
        case .list(let values) where values.count > 8:
            return "{" + values.prefix(5).map(\.explained).joined(separator: ", ") + ", … \(values.count - 5) more}"
        case .list(let values): return "{" + values.map(\.explained).joined(separator: ", ") + "}"
        }
    }
}

extension QueryPlan.SemiJoin: CustomStringConvertible {
    public var description: String {
        "SemiJoin(\(relationship) via \(through): \(plan.map { "\($0)" } ?? "count of index entries") ⇒ \(keys) keys)"
    }
}
