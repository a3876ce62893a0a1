/// A predicate format string, parsed: the condition and the optional trailing clauses.
package struct ParsedQuery: Sendable, Equatable {
    package var predicate: QueryPredicate
    var orderings: [QueryOrdering]
    package var limit: Int?
    package var offset: Int?

    package init(predicate: QueryPredicate, orderings: [QueryOrdering] = [], limit: Int? = nil,
                 offset: Int? = nil) {
        self.predicate = predicate
        self.orderings = orderings
        self.limit = limit
        self.offset = offset
    }
}

/// The NSPredicate format-string front end: parses (never evaluates) the grammar into a
/// ``QueryPredicate``, so that code written for Core Data-era libraries keeps working.
///
/// Strata adds what those libraries bolted on: a trailing `ORDER BY field [ASC|DESC], …`, then
/// `LIMIT n`, then `OFFSET n`. Every failure is a `StrataError` with code `.invalidQuery` whose message
/// names the problem and its 1-based column. The parser limits nesting to ``maximumNesting`` levels so
/// hostile input cannot exhaust the stack.
///
/// ```swift
/// let query = try PredicateFormat.parse(
///     "lastName ==[cd] %@ AND luckyNumber >= %d ORDER BY lastName DESC LIMIT 10",
///     arguments: ["bluth", 13], entity: "User", fields: ["lastName", "luckyNumber"])
/// ```
package enum PredicateFormat {
    /// The deepest nesting of parentheses, `NOT`s and `{…}` lists the parser accepts.
    package static let maximumNesting = 100

    /// Parses a predicate format with its trailing clauses.
    ///
    /// - Parameters:
    ///   - arguments: the values for `%@ %d %i %f %K`, consumed in order; all must be used.
    ///   - entity: the record type's name, for messages.
    ///   - fields: the entity's known top-level field names, for "unknown field" errors with a
    ///     suggestion (``KnownFields``); nil skips the check.
    ///   - types: the entity's field types, for errors on constants of another type
    ///     (``FieldTypes``); nil skips the check.
    package static func parse(_ format: String, arguments: [any Sendable], entity: String,
                              fields: Set<String>?, types: FieldTypes? = nil) throws(StrataError) -> ParsedQuery {
        try parse(format, arguments: arguments, entity: entity, known: fields.map { KnownFields(owner: entity, names: $0) }, types: types)
    }

    /// Parses a predicate format with its trailing clauses, checking field paths against `known`
    /// (nil: not checked), relationship paths included.
    package static func parse(_ format: String, arguments: [any Sendable], entity: String,
                      known: KnownFields?, types: FieldTypes? = nil) throws(StrataError) -> ParsedQuery {
        let tokens = try FormatLexer.tokenize(format)
        var parser = FormatParser(tokens: tokens, arguments: arguments, entity: entity, fields: known, types: types)
        return try parser.parseQuery()
    }

    /// Parses a sort spec as Kern writes it: `"lastName desc,luckyNumber"`.
    ///
    /// Each entry is a field path, optionally `[c]`, `[d]` or `[cd]`, optionally `ASC` or `DESC` in any
    /// case (ascending by default). An empty spec means no ordering.
    package static func parseSort(_ spec: String, entity: String,
                                  fields: Set<String>?) throws(StrataError) -> [QueryOrdering] {
        try parseSort(spec, entity: entity, known: fields.map { KnownFields(owner: entity, names: $0) })
    }

    /// Parses a sort spec, checking its field paths against `known` (nil: not checked).
    package static func parseSort(_ spec: String, entity: String, known: KnownFields?) throws(StrataError) -> [QueryOrdering] {
        let tokens = try FormatLexer.tokenize(spec)
        var parser = FormatParser(tokens: tokens, arguments: [], entity: entity, fields: known)
        return try parser.parseSortSpec()
    }
}
