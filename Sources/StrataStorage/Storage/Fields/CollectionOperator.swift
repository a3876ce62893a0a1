/// A collection operator in a field path, as NSPredicate and key-value coding write them after an
/// array field: `tags.@count`, `readings.@sum`, `readings.@avg`, `readings.@min`,
/// `readings.@max`, and for arrays of embedded objects a path into each element after the
/// operator (`lines.@sum.amount`; `readings.@sum.self` is `readings.@sum`).
///
/// The operator makes one value of the array, which the comparison then tests like any scalar
/// (``FieldValues/queryValue(at:)``, the one reader of a path's value for conditions, orderings
/// and aggregates):
/// - `@count`: the number of elements, nil elements included; `0` for an empty array.
/// - `@sum`: the sum of the non-nil elements (`.int` while exact in Int64, else `.double`);
///   `0` for an empty array.
/// - `@avg`: their mean, as a double; `@min`, `@max`: the smallest and largest non-nil element
///   in the order queries sort values. Nil for an array with no non-nil element.
/// - `@sum` and `@avg` of an array holding a value that is not a number are nil.
///
/// As in NSPredicate, where key-value coding of a nil array is nil, the operator of an absent or
/// nil field, or of a field that is not an array, is nil: `tags.@count == 0` holds for an empty
/// array, not for a record without `tags` (write `tags.@count == 0 OR tags == nil`). Where the
/// field's type is known (``FieldTypes``), an operator on a field that is not an array, `@sum`
/// or `@avg` of non-numbers, and a constant of the wrong kind are `.invalidQuery` errors.
///
/// Paths with an operator are never answered by an index: an index on an array field holds one
/// entry per element, not the array's count or sum, so the planner leaves such a comparison to
/// the filter (its field path names no index's field), and an index cannot be declared on one.
package enum CollectionOperator: String, Sendable, CaseIterable {
    case count = "@count", sum = "@sum", average = "@avg", min = "@min", max = "@max"

    /// A path split at its operator: the operator, and the path of the values it applies to (the
    /// array field's, or through it into each element's field).
    package struct Split {
        package let op: CollectionOperator
        /// The components before the operator (the array field).
        package let base: ArraySlice<String>
        /// The path whose value (a list) the operator applies to: `base` and what follows the
        /// operator, without a final `self`.
        package let elements: [String]
    }

    /// Whether `component` is written as a collection operator (starts with `@`).
    @inline(__always)
    package static func isOperator(_ component: String) -> Bool { component.utf8.first == UInt8(ascii: "@") }

    /// `path` split at its operator; nil when it has none, or when it is not a valid use of one
    /// (``problem(in:)`` says why: queries refuse such paths before they run).
    package static func split(_ path: [String]) -> Split? {
        guard path.count > 1, let position = path.firstIndex(where: isOperator), position > 0,
              let op = CollectionOperator(rawValue: path[position]) else { return nil }
        var rest = path[(position + 1)...]
        if rest.last == "self" { rest = rest.dropLast() }
        guard op != .count || rest.isEmpty, !rest.contains(where: isOperator) else { return nil }
        return Split(op: op, base: path[..<position], elements: Array(path[..<position] + rest))
    }

    /// Why `path` is not a valid use of a collection operator; nil when it has none or is valid.
    package static func problem(in path: [String]) -> String? {
        guard let position = path.firstIndex(where: isOperator) else { return nil }
        let whole = path.joined(separator: ".")
        let name = path[position]
        guard let op = CollectionOperator(rawValue: name) else {
            return "'\(whole)': the collection operator '\(name)' is not supported (Strata supports @count, @sum, @avg, @min and @max)"
        }
        guard position > 0 else {
            return "'\(whole)': \(name) follows an array field, as in 'tags.\(name)'"
        }
        var rest = path[(position + 1)...]
        if rest.last == "self" { rest = rest.dropLast() }
        if rest.contains(where: isOperator) { return "'\(whole)': a path holds at most one collection operator" }
        if op == .count, !rest.isEmpty { return "'\(whole)': @count ends the path" }
        return nil
    }
}
