/// A predicate on `Root` written with key paths, checked by the compiler: a field compared with a
/// value of another type does not compile.
///
/// ```swift
/// tx.query(User.self).where(\.lastName == "Bluth" && \.luckyNumber > 5)
/// tx.query(User.self).where(.equal(\.lastName, "bluth", .caseAndDiacriticInsensitive) || !(\.luckyNumber == nil))
/// ```
public struct TypedPredicate<Root: Record>: Sendable {
    /// The predicate tree this stands for.
    public let tree: QueryPredicate

    /// The predicate a tree stands for (as the format-string and `#Predicate` front ends build it).
    public init(_ tree: QueryPredicate) { self.tree = tree }

    package static func compare<Value>(_ keyPath: KeyPath<Root, Value>, _ op: ComparisonOperator, _ value: QueryValue,
                               _ options: StringComparisonOptions = [], quantifier: Quantifier? = nil) -> Self {
        Self(.comparison(FieldComparison(field: KeyPathNames.components(of: keyPath), op: op, value: value,
                                         options: options, quantifier: quantifier)))
    }

    /// Both hold.
    public static func && (lhs: Self, rhs: Self) -> Self {
        switch (lhs.tree, rhs.tree) {
        case (.and(let a), .and(let b)): Self(.and(a + b))
        case (.and(let a), let b): Self(.and(a + [b]))
        case (let a, .and(let b)): Self(.and([a] + b))
        case (let a, let b): Self(.and([a, b]))
        }
    }

    /// At least one holds.
    public static func || (lhs: Self, rhs: Self) -> Self {
        switch (lhs.tree, rhs.tree) {
        case (.or(let a), .or(let b)): Self(.or(a + b))
        case (.or(let a), let b): Self(.or(a + [b]))
        case (let a, .or(let b)): Self(.or([a] + b))
        case (let a, let b): Self(.or([a, b]))
        }
    }

    /// Does not hold.
    public static prefix func ! (operand: Self) -> Self { Self(.not(operand.tree)) }

    /// Every record.
    public static var all: Self { Self(.constant(true)) }

    // MARK: String and collection operators, as functions

    /// `field ==[options] value`, e.g. `.equal(\.lastName, "bluth", .caseAndDiacriticInsensitive)`.
    public static func equal(_ keyPath: KeyPath<Root, String> & Sendable, _ value: String, _ options: IndexCollation) -> Self {
        compare(keyPath, .equal, .string(value), options.options)
    }

    /// `field SEARCH query`: the records whose text matches the full-text query `query` (terms all
    /// required, `OR`, `NOT`, `"phrases"`, `prefix*`, `NEAR(a b, 5)`, `title:` scopes), run over the
    /// full-text index that holds the field, e.g. `.matches(\.body, "lmdb AND swift") && \.views > 2`.
    /// With `typos: true` (`field SEARCH[t] query`) a plain word of 5+ letters also matches indexed
    /// words one edit away, and a word of 9+ letters two edits away; shorter words, prefixes and
    /// phrase words match exactly.
    public static func matches(_ keyPath: KeyPath<Root, String> & Sendable, _ query: String, typos: Bool = false) -> Self {
        compare(keyPath, .search, .string(query), typos ? .typoTolerant : [])
    }

    /// `field SEARCH query` on an optional text field (a record without the text matches nothing).
    public static func matches(_ keyPath: KeyPath<Root, String?> & Sendable, _ query: String, typos: Bool = false) -> Self {
        compare(keyPath, .search, .string(query), typos ? .typoTolerant : [])
    }

    /// `field BEGINSWITH[options] prefix`.
    public static func beginsWith(_ keyPath: KeyPath<Root, String> & Sendable, _ prefix: String, _ options: IndexCollation = .binary) -> Self {
        compare(keyPath, .beginsWith, .string(prefix), options.options)
    }

    /// `field ENDSWITH[options] suffix`.
    public static func endsWith(_ keyPath: KeyPath<Root, String> & Sendable, _ suffix: String, _ options: IndexCollation = .binary) -> Self {
        compare(keyPath, .endsWith, .string(suffix), options.options)
    }

    /// `field CONTAINS[options] part`.
    public static func contains(_ keyPath: KeyPath<Root, String> & Sendable, _ part: String, _ options: IndexCollation = .binary) -> Self {
        compare(keyPath, .contains, .string(part), options.options)
    }

    /// `field CONTAINS[options] element` for an array field: the array holds an element equal to
    /// `element` (as in NSPredicate; `.any(_:equals:)` is the same test without options).
    public static func contains<Element: QueryValueConvertible>(_ keyPath: KeyPath<Root, [Element]> & Sendable, _ element: Element,
                                                                _ options: IndexCollation = .binary) -> Self {
        compare(keyPath, .contains, element.queryValue, options.options)
    }

    /// `field LIKE[options] pattern` with `*` and `?` wildcards.
    public static func like(_ keyPath: KeyPath<Root, String> & Sendable, _ pattern: String, _ options: IndexCollation = .binary) -> Self {
        compare(keyPath, .like, .string(pattern), options.options)
    }

    /// `field IN values`.
    public static func `in`<Value: QueryValueConvertible>(_ keyPath: KeyPath<Root, Value> & Sendable, _ values: some Sequence<Value>) -> Self {
        compare(keyPath, .in, .list(values.map(\.queryValue)))
    }

    /// `field BETWEEN {low, high}`, both included.
    public static func between<Value: QueryValueConvertible & Comparable>(
        _ keyPath: KeyPath<Root, Value> & Sendable, _ range: ClosedRange<Value>
    ) -> Self {
        compare(keyPath, .between, .list([range.lowerBound.queryValue, range.upperBound.queryValue]))
    }

    /// `ANY field == element` for an array field: the array holds `element`.
    public static func any<Element: QueryValueConvertible>(_ keyPath: KeyPath<Root, [Element]> & Sendable, equals element: Element) -> Self {
        compare(keyPath, .equal, element.queryValue, quantifier: .any)
    }

    /// `ANY field IN values` for an array field: the array holds one of `values`.
    public static func any<Element: QueryValueConvertible>(_ keyPath: KeyPath<Root, [Element]> & Sendable, in values: [Element]) -> Self {
        compare(keyPath, .in, .list(values.map(\.queryValue)), quantifier: .any)
    }
}

// MARK: Comparison operators on key paths

/// The field at `lhs` equals `rhs`: `\.luckyNumber == 5`.
public func == <Root: Record, Value: QueryValueConvertible>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .equal, rhs.queryValue)
}
/// The field at `lhs` differs from `rhs`: `\.luckyNumber != 5`.
public func != <Root: Record, Value: QueryValueConvertible>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .notEqual, rhs.queryValue)
}
/// The field at `lhs` is less than `rhs`: `\.luckyNumber < 5`.
public func < <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .less, rhs.queryValue)
}
/// The field at `lhs` is less than or equal to `rhs`: `\.luckyNumber <= 5`.
public func <= <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .lessOrEqual, rhs.queryValue)
}
/// The field at `lhs` is greater than `rhs`: `\.luckyNumber > 5`.
public func > <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .greater, rhs.queryValue)
}
/// The field at `lhs` is greater than or equal to `rhs`: `\.luckyNumber >= 5`.
public func >= <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .greaterOrEqual, rhs.queryValue)
}

// Optional fields compared with plain values: `\.luckyNumber > 5` where luckyNumber is `Int?`.
/// The optional field at `lhs` equals `rhs`: `\.luckyNumber == 5`.
public func == <Root: Record, Value: QueryValueConvertible>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .equal, rhs.queryValue)
}
/// The optional field at `lhs` differs from `rhs` (a nil field matches: `!=` is the negation of `==`):
/// `\.luckyNumber != 5`.
public func != <Root: Record, Value: QueryValueConvertible>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .notEqual, rhs.queryValue)
}
/// The optional field at `lhs` is less than `rhs` (a nil field never matches): `\.luckyNumber < 5`.
public func < <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .less, rhs.queryValue)
}
/// The optional field at `lhs` is less than or equal to `rhs` (a nil field never matches): `\.luckyNumber <=
/// 5`.
public func <= <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .lessOrEqual, rhs.queryValue)
}
/// The optional field at `lhs` is greater than `rhs` (a nil field never matches): `\.luckyNumber > 5`.
public func > <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .greater, rhs.queryValue)
}
/// The optional field at `lhs` is greater than or equal to `rhs` (a nil field never matches): `\.luckyNumber
/// >= 5`.
public func >= <Root: Record, Value: QueryValueConvertible & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value) -> TypedPredicate<Root> {
    .compare(lhs, .greaterOrEqual, rhs.queryValue)
}
