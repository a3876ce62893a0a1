import LMDB

/// `LIKE` wildcards (``LikePattern``) and `MATCHES` regular expressions on (already folded)
/// strings, and the size limits of every pattern operand.
///
/// Regular expressions are ``RegularExpression``s (a subset of ICU's syntax, run without
/// backtracking, so a hostile pattern costs no more than any other) and must match the whole
/// string. Compiled expressions are cached because a filter evaluates the same pattern once per
/// record.
package enum PatternMatching {
    /// Whether `string` matches `pattern` as a whole (``RegularExpression``: no backtracking, at
    /// most a few steps per character and pattern instruction); false when the pattern is invalid
    /// or unsupported (a query refuses such a pattern before it runs: ``validatePatterns(of:)``).
    ///
    /// In a query (a ``QueryBudget`` is bound), a match whose program states times the text's
    /// characters (plus one) exceed ``maxMatchCost`` is not run: the query stops with an
    /// `.invalidQuery` error naming `field`, the pattern and both sizes. Deterministic, unlike a
    /// time limit: the same pattern on the same record always fails, on any machine.
    package static func matches(_ string: String, pattern: String, caseInsensitive: Bool, field: String = "") -> Bool {
        guard case .success(let regex) = regularExpression(pattern, caseInsensitive: caseInsensitive) else { return false }
        if let budget = QueryBudget.current {
            let characters = string.unicodeScalars.count
            let (cost, overflow) = regex.program.count.multipliedReportingOverflow(by: characters + 1)
            if overflow || cost > maxMatchCost {
                let shown = pattern.count > 40 ? pattern.prefix(40) + "…" : pattern
                budget.fail(StrataError(.invalidQuery,
                    "\(budget.entity): \(field) MATCHES '\(shown)': the pattern's \(regex.program.count) states over a text of \(characters) characters exceed the cost limit of \(maxMatchCost) states × characters; use a simpler pattern or narrow the records with other conditions first",
                    entity: budget.entity, field: field))
                return false
            }
        }
        return regex.matches(string)
    }

    /// The most work one `MATCHES` may take in a query, as the expression's program states times
    /// the text's characters (a match takes at most twice that many steps): 2^27, so a
    /// 1,000,000-character text allows a pattern of 134 states, a 10,000-character one 13,421.
    package static let maxMatchCost = 1 << 27

    /// Nil when `pattern` compiles, else why not.
    package static func problem(in pattern: String) -> RegularExpression.SyntaxError? {
        if case .failure(let problem) = regularExpression(pattern, caseInsensitive: false) { return problem }
        return nil
    }

    /// The longest pattern (in UTF-8 bytes, as written) that `CONTAINS`, `BEGINSWITH`,
    /// `ENDSWITH`, `LIKE` and `MATCHES` accept: their cost grows with the pattern's length.
    /// (A `LIKE` part between `*`s mixing `?` and literals has its own, lower limit:
    /// ``LikePattern/maxWildcardPart``.)
    package static let maxPatternBytes = 65_536

    /// Checks every pattern of `predicate` before a query reads a record: a string operand of
    /// `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE` or `MATCHES` longer than ``maxPatternBytes``,
    /// a `LIKE` part longer than ``LikePattern/maxWildcardPart``, or a `MATCHES` pattern that
    /// does not compile (from the cache when seen before), is an `.invalidQuery` error naming the
    /// field, the operator, the pattern's size and the limit (or the problem).
    package static func validatePatterns(of predicate: QueryPredicate, entity: String) throws(StrataError) {
        var failure: StrataError?
        predicate.forEachComparison { comparison in
            guard failure == nil, case .string(let pattern) = comparison.value,
                  patternOperators.contains(comparison.op) else { return }
            let field = comparison.field.joined(separator: ".")
            let size = pattern.utf8.count
            if size > maxPatternBytes {
                let shown = pattern.prefix(24)
                failure = StrataError(.invalidQuery,
                    "\(field) \(comparison.op.rawValue) '\(shown)…': the pattern is \(size) bytes long; patterns of CONTAINS, BEGINSWITH, ENDSWITH, LIKE and MATCHES are limited to \(maxPatternBytes) bytes",
                    entity: entity, field: field)
                return
            }
            if comparison.op == .like {
                let part = LikePattern<Character>(Collation.fold(pattern, comparison.options), element: { $0 }).longestWildcardPart
                guard part > LikePattern<Character>.maxWildcardPart else { return }
                failure = StrataError(.invalidQuery,
                    "\(field) LIKE '\(pattern.prefix(24))…': a part between '*'s mixing '?' and other characters is \(part) characters long; such parts are limited to \(LikePattern<Character>.maxWildcardPart)",
                    entity: entity, field: field)
                return
            }
            guard comparison.op == .matches else { return }
            let folded = Collation.fold(pattern, comparison.options.intersection(.diacriticInsensitive))
            let caseInsensitive = comparison.options.contains(.caseInsensitive)
            guard case .failure(let problem) = regularExpression(folded, caseInsensitive: caseInsensitive) else { return }
            let shown = pattern.count > 80 ? pattern.prefix(80) + "…" : pattern
            failure = StrataError(.invalidQuery, "invalid regular expression '\(shown)' in \(field) MATCHES: \(problem)",
                                  entity: entity, field: field)
        }
        if let failure { throw failure }
    }

    /// The operators whose string operand is a pattern searched for.
    private static let patternOperators: Set<ComparisonOperator> = [.contains, .beginsWith, .endsWith, .like, .matches]

    /// The compiled expression, or why it does not compile; cached, because a filter evaluates
    /// the same pattern once per record.
    private static func regularExpression(_ pattern: String, caseInsensitive: Bool) -> Result<RegularExpression, RegularExpression.SyntaxError> {
        let key = CacheKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let compiled = Result { () throws(RegularExpression.SyntaxError) in
            try RegularExpression(pattern, caseInsensitive: caseInsensitive)
        }
        cache.withLock { entries in
            if entries.count >= 256 { entries.removeAll(keepingCapacity: true) }
            entries[key] = compiled
        }
        return compiled
    }

    private struct CacheKey: Hashable, Sendable {
        var pattern: String
        var caseInsensitive: Bool
    }

    /// Compiled expressions and refused patterns, so failures are cached too.
    private static let cache = ConditionLock<[CacheKey: Result<RegularExpression, RegularExpression.SyntaxError>]>([:])
}
