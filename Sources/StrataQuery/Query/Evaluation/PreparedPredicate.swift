/// A predicate prepared for one query's ``FieldSelection``: an equality of a top-level field with
/// a string and no options compares the stored UTF-8 bytes in place, without making a String;
/// a `LIKE` pattern is prepared once (``LikeMatcher``); every other comparison evaluates as
/// ``QueryPredicate/evaluate(on:)`` does, and so does this one
/// when the stored item is not a text string (an array, say, which `==` ranges over).
package indirect enum PreparedPredicate {
    case constant(Bool)
    case comparison(FieldComparison)
    /// `comparison` is `field == text`; `slot` is the field's place in the selection.
    case textEquality(slot: Int, utf8: [UInt8], comparison: FieldComparison)
    /// `comparison` is `field IN {…}` with many values and no string options: membership is a
    /// hash lookup of the value's ``QueryValue/membershipKey`` (relationship semi-joins produce
    /// lists of thousands of keys).
    case membership(FieldComparison, Set<QueryValue>)
    /// `comparison` is `field LIKE pattern`, the pattern prepared once for the query.
    case like(FieldComparison, LikeMatcher)
    /// `field SEARCH query`, run over the record's texts alone.
    case textSearch(TextRecordMatcher)
    case and([PreparedPredicate])
    case or([PreparedPredicate])
    case not(PreparedPredicate)

    /// The prepared `predicate`; `texts` holds the target of each `SEARCH` comparison (one
    /// without a target matches nothing).
    package init(_ predicate: QueryPredicate, selection: FieldSelection, texts: [FieldComparison: TextSearchTarget] = [:]) {
        switch predicate {
        case .constant(let value): self = .constant(value)
        case .comparison(let c) where c.op == .search:
            self = texts[c].map { .textSearch(TextRecordMatcher(target: $0)) } ?? .constant(false)
        case .comparison(let c):
            if c.op == .equal, c.options.isEmpty, c.quantifier == nil, c.field.count == 1, case .string(let text) = c.value,
               let slot = selection.slot(of: c.field[0]) {
                self = .textEquality(slot: slot, utf8: Array(text.utf8), comparison: c)
            } else if c.op == .in, c.options.isEmpty, case .list(let candidates) = c.value, candidates.count >= 8 {
                self = .membership(c, Set(candidates.map(\.membershipKey)))
            } else if c.op == .like, case .string(let pattern) = c.value {
                self = .like(c, LikeMatcher(Collation.fold(pattern, c.options)))
            } else {
                self = .comparison(c)
            }
        case .and(let operands): self = .and(operands.map { PreparedPredicate($0, selection: selection, texts: texts) })
        case .or(let operands): self = .or(operands.map { PreparedPredicate($0, selection: selection, texts: texts) })
        case .not(let operand): self = .not(PreparedPredicate(operand, selection: selection, texts: texts))
        }
    }

    package func evaluate(on values: StoredFieldValues) -> Bool {
        switch self {
        case .constant(let value): value
        case .comparison(let comparison): comparison.evaluate(on: values)
        case .textEquality(let slot, let utf8, let comparison):
            values.textEquals(slot: slot, utf8) ?? comparison.evaluate(on: values)
        case .membership(let comparison, let keys):
            comparison.evaluate(on: values) { keys.contains($0.membershipKey) }
        case .like(let comparison, let matcher):
            comparison.evaluate(on: values) { comparison.likeHolds($0, matcher) }
        case .textSearch(let matcher): matcher.matches(values)
        case .and(let operands): operands.allSatisfy { $0.evaluate(on: values) }
        case .or(let operands): operands.contains { $0.evaluate(on: values) }
        case .not(let operand): !operand.evaluate(on: values)
        }
    }
}

extension QueryValue {
    /// A value that is equal, as `IN` compares, exactly when the keys are equal: numbers of any
    /// kind with an integral value in `Int64` become `.int`.
    package var membershipKey: QueryValue {
        switch self {
        case .uint(let value) where value <= UInt64(Int64.max): .int(Int64(value))
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: .int(Int64(value))
        default: self
        }
    }
}
