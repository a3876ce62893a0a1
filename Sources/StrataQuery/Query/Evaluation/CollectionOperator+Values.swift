extension CollectionOperator {
    /// The operator's value of `value`, the list at ``Split/elements``; nil when it is not a list
    /// (absent, nil or not an array) or, for `@sum` and `@avg`, holds a non-number. Sums and
    /// extremes are the aggregates' own (``AggregateAccumulator``).
    package func apply(to value: QueryValue?) -> QueryValue? {
        guard case .list(let elements)? = value else { return nil }
        let function: AggregateFunction
        switch self {
        case .count: return .int(Int64(elements.count))
        case .sum: function = .sum
        case .average: function = .average
        case .min: function = .min
        case .max: function = .max
        }
        var accumulator = AggregateAccumulator(function)
        for element in elements {
            do { try accumulator.add(element, field: [], entity: "") } catch { return nil }
        }
        return accumulator.result ?? (self == .sum ? .int(0) : nil)
    }
}

extension FieldValues {
    /// The value at `path` as conditions, orderings and aggregates read it: the stored value,
    /// or, for a path with a collection operator (`tags.@count`), the operator's value of the
    /// array (``CollectionOperator``).
    @inline(__always)
    package func queryValue(at path: [String]) -> QueryValue? {
        guard path.count > 1, let split = CollectionOperator.split(path) else { return value(at: path) }
        return split.op.apply(to: value(at: split.elements))
    }
}
