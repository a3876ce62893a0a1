/// Evaluation of a predicate on one record: the executor's filter and the reference every query
/// plan is tested against, so its semantics are the definition of what a query returns.
///
/// NSPredicate-like: a missing field is null; `== nil` holds for absent or null fields; ordering
/// comparisons (`<`, `BETWEEN`, …) with null on either side are false; `!=` is always the negation of
/// `==`; numbers compare numerically across kinds; strings compare by code point after folding. A
/// collection operator (`tags.@count`) compares the array's count, sum, mean or extreme
/// (``CollectionOperator``).
extension QueryPredicate {
    package func evaluate(on record: some FieldValues) -> Bool {
        switch self {
        case .constant(let value): value
        case .comparison(let comparison): comparison.evaluate(on: record)
        case .and(let operands): operands.allSatisfy { $0.evaluate(on: record) }
        case .or(let operands): operands.contains { $0.evaluate(on: record) }
        case .not(let operand): !operand.evaluate(on: record)
        }
    }
}

extension FieldComparison {
    /// Applies the quantifier: explicit `ANY`/`ALL`/`NONE` over the elements (a scalar is one element,
    /// null none; `ALL` of nothing is true), or an implicit `ANY` when the field holds an array, except
    /// for `==`/`!=` against a list or nil, which compare the whole array, and for `CONTAINS`, which
    /// as in NSPredicate asks whether the array holds an element equal to the value (`ANY tags
    /// CONTAINS 'b'` is the substring test on each element).
    package func evaluate(on record: some FieldValues) -> Bool {
        evaluate(on: record) { self.holds(for: $0) }
    }

    /// As ``evaluate(on:)``, with `holds` deciding whether one value (or element) meets the
    /// comparison: what a prepared `IN` with a hashed set of values plugs in.
    package func evaluate(on record: some FieldValues, holds test: (QueryValue) -> Bool) -> Bool {
        let fieldValue = record.queryValue(at: field) ?? .null
        if let quantifier {
            let elements: [QueryValue]
            switch fieldValue {
            case .list(let values): elements = values
            case .null: elements = []
            default: elements = [fieldValue]
            }
            switch quantifier {
            case .any: return elements.contains { test($0) }
            case .all: return elements.allSatisfy { test($0) }
            case .none: return !elements.contains { test($0) }
            }
        }
        guard case .list(let elements) = fieldValue, !comparesWholeValue else {
            return test(fieldValue)
        }
        if op == .notEqual {
            // Keeps `!=` the negation of `==` on arrays too: "no element equals".
            return !elements.contains { Self.equal($0, value, options) }
        }
        if op == .contains {
            return elements.contains { Self.equal($0, value, options) }
        }
        return elements.contains { test($0) }
    }

    private var comparesWholeValue: Bool {
        guard op == .equal || op == .notEqual else { return false }
        switch value {
        case .list, .null: return true
        default: return false
        }
    }

    /// The comparison applied to one (field or element) value.
    package func holds(for subject: QueryValue) -> Bool {
        switch op {
        case .equal: return Self.equal(subject, value, options)
        case .notEqual: return !Self.equal(subject, value, options)
        case .less: return Self.order(subject, value, options).map { $0 < 0 } ?? false
        case .lessOrEqual: return Self.order(subject, value, options).map { $0 <= 0 } ?? false
        case .greater: return Self.order(subject, value, options).map { $0 > 0 } ?? false
        case .greaterOrEqual: return Self.order(subject, value, options).map { $0 >= 0 } ?? false
        case .between:
            guard case .list(let bounds) = value, bounds.count == 2,
                  let low = Self.order(subject, bounds[0], options),
                  let high = Self.order(subject, bounds[1], options) else { return false }
            return low >= 0 && high <= 0
        case .in:
            guard case .list(let candidates) = value else { return Self.equal(subject, value, options) }
            return candidates.contains { Self.equal(subject, $0, options) }
        case .contains:
            switch (subject, value) {
            case (.string(let text), .string(let part)):
                return StringSearch.contains(Collation.fold(text, options), Collation.fold(part, options))
            case (.list(let elements), _):
                return elements.contains { Self.equal($0, value, options) }
            case (.string, _), (_, .string):
                return false
            default:
                return Self.equal(subject, value, options)
            }
        case .search:
            // Needs the entity's full-text index, which a prepared predicate has (``TextRecordMatcher``).
            return false
        case .beginsWith, .endsWith, .like, .matches:
            guard case .string(let text) = subject, case .string(let pattern) = value else { return false }
            return stringHolds(text, pattern)
        }
    }

    /// `LIKE` applied to one value with the pattern prepared (``LikeMatcher``, made of the
    /// pattern folded as ``holds(for:)`` folds it): the same answer as `holds`.
    package func likeHolds(_ subject: QueryValue, _ matcher: LikeMatcher) -> Bool {
        guard case .string(let text) = subject, case .string = value else { return false }
        var steps = 0
        return matcher.matches(Collation.fold(text, options), steps: &steps)
    }

    private func stringHolds(_ text: String, _ pattern: String) -> Bool {
        switch op {
        case .beginsWith:
            return StringSearch.hasPrefix(Collation.fold(text, options), Collation.fold(pattern, options))
        case .endsWith:
            return StringSearch.hasSuffix(Collation.fold(text, options), Collation.fold(pattern, options))
        case .like:
            return PatternMatching.like(Collation.fold(text, options), pattern: Collation.fold(pattern, options))
        default:
            // Case is left to the regex engine: lowercasing a pattern would turn `\D` into `\d`.
            let diacritics = options.intersection(.diacriticInsensitive)
            return PatternMatching.matches(Collation.fold(text, diacritics),
                                           pattern: Collation.fold(pattern, diacritics),
                                           caseInsensitive: options.contains(.caseInsensitive), field: fieldName)
        }
    }

    /// Null equals only null; otherwise equal in ``QueryValueOrder``. Strings compared without
    /// options are equal when their UTF-8 bytes are (code points, not canonical equivalence), and
    /// differ at once when their lengths do.
    package static func equal(_ a: QueryValue, _ b: QueryValue, _ options: StringComparisonOptions) -> Bool {
        if options.isEmpty, case .string(let x) = a, case .string(let y) = b {
            return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
        }
        return QueryValueOrder.compare(a, b, options: options) == 0
    }

    /// The order of two values of comparable kinds; nil (comparison false) for null or mixed kinds.
    package static func order(_ a: QueryValue, _ b: QueryValue, _ options: StringComparisonOptions) -> Int? {
        QueryValueOrder.areComparable(a, b) ? QueryValueOrder.compare(a, b, options: options) : nil
    }
}
