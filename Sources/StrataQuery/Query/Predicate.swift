import Foundation

/// A condition on records: the one tree that every query form compiles to (key paths, `#Predicate`,
/// format strings, dictionaries), and that the planner and the executor read.
///
/// It names fields by their stored names (dotted for embedded structs: `address.city`) and holds
/// values as ``QueryValue``s, so it is independent of the record type and can be printed, compared
/// and stored. Build it with the front ends rather than by hand.
public indirect enum QueryPredicate: Sendable, Hashable {
    /// Always true (`TRUEPREDICATE`) or always false (`FALSEPREDICATE`).
    case constant(Bool)
    /// One comparison of a field with a value.
    case comparison(FieldComparison)
    /// All of the operands hold.
    case and([QueryPredicate])
    /// At least one of the operands holds.
    case or([QueryPredicate])
    /// The operand does not hold.
    case not(QueryPredicate)
}

/// `field <operator> value`, possibly quantified over an array field and with string options.
public struct FieldComparison: Sendable, Hashable {
    /// The stored field path, e.g. `["lastName"]` or `["address", "city"]`.
    public var field: [String]
    /// The operator.
    public var op: ComparisonOperator
    /// The right-hand side: a single value, a `.list` for `IN` and `BETWEEN` (two values: low, high).
    public var value: QueryValue
    /// `[c]`, `[d]`, `[cd]` for string comparisons.
    public var options: StringComparisonOptions
    /// For array fields: `ANY` (the default for arrays), `ALL` or `NONE` of the elements.
    public var quantifier: Quantifier?

    /// A comparison of `field` (a stored field path) with `value`.
    public init(field: [String], op: ComparisonOperator, value: QueryValue,
                options: StringComparisonOptions = [], quantifier: Quantifier? = nil) {
        self.field = field
        self.op = op
        self.value = value
        self.options = options
        self.quantifier = quantifier
    }

    /// The field path joined with dots.
    public var fieldName: String { field.joined(separator: ".") }
}

/// The comparison operators of the predicate language.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// Equal (`==`).
    case equal = "=="
    /// Not equal (`!=`); nil differs from every value.
    case notEqual = "!="
    /// Less than (`<`).
    case less = "<"
    /// Less than or equal (`<=`).
    case lessOrEqual = "<="
    /// Greater than (`>`).
    case greater = ">"
    /// Greater than or equal (`>=`).
    case greaterOrEqual = ">="
    /// `BETWEEN {low, high}`, both ends included; the value is a `.list` of two.
    case between = "BETWEEN"
    /// `IN {a, b}`; the value is a `.list`.
    case `in` = "IN"
    /// The string starts with the value (`BEGINSWITH`).
    case beginsWith = "BEGINSWITH"
    /// The string ends with the value (`ENDSWITH`).
    case endsWith = "ENDSWITH"
    /// On a string, a substring test; on an array field, as in NSPredicate, "the array holds an
    /// element equal to the value" (`tags CONTAINS 'b'` does not match `["beta"]`), with `[c]`/`[d]`
    /// applying to that equality. `ANY tags CONTAINS 'b'` is the substring test on each element.
    case contains = "CONTAINS"
    /// `*` matches any run of characters, `?` one character.
    case like = "LIKE"
    /// An ICU-style regular expression that must match the whole string.
    case matches = "MATCHES"
    /// A full-text query (`body SEARCH "lmdb swift"`) over the full-text index that holds the
    /// field: its unscoped words search that field, `title:` scopes other fields of the index.
    /// The value is the query text; see the Full-text search article for its language.
    case search = "SEARCH"
}

/// How a comparison applies to the elements of an array field.
public enum Quantifier: String, Sendable, Hashable {
    /// Some element (`ANY`), every element (`ALL`), or no element (`NONE`) of the array meets the comparison.
    case any = "ANY", all = "ALL", none = "NONE"
}

/// One sort key: a field and a direction, optionally compared by a collation; or relevance
/// (``relevance``).
public struct QueryOrdering: Sendable, Hashable {
    /// Relevance, best first: a record's BM25 score summed over the query's `SEARCH` conditions
    /// (0 for a record that matches none of them); ties go to the next ordering, then the primary key.
    public static var relevance: QueryOrdering { QueryOrdering(field: ["@relevance"], ascending: false) }

    /// True for ``relevance``.
    public var isRelevance: Bool { field == ["@relevance"] }

    /// The stored field path, e.g. `["address", "city"]`.
    public var field: [String]
    /// Smallest first when true.
    public var ascending: Bool
    /// `[c]`/`[d]`: strings compare folded.
    public var options: StringComparisonOptions

    /// An ordering by `field`.
    public init(field: [String], ascending: Bool = true, options: StringComparisonOptions = []) {
        self.field = field
        self.ascending = ascending
        self.options = options
    }
}

extension QueryPredicate {
    /// Calls `body` with every field path the predicate compares, in order.
    package func forEachFieldPath(_ body: ([String]) throws(StrataError) -> Void) throws(StrataError) {
        switch self {
        case .constant: return
        case .comparison(let comparison): try body(comparison.field)
        case .and(let operands), .or(let operands): for operand in operands { try operand.forEachFieldPath(body) }
        case .not(let operand): try operand.forEachFieldPath(body)
        }
    }
}
