import Synchronization

/// `LIKE` wildcards and `MATCHES` regular expressions on (already folded) strings.
///
/// Regular expressions are ``RegularExpression``s (a subset of ICU's syntax, run without
/// backtracking, so a hostile pattern costs no more than any other) and must match the whole
/// string. Compiled expressions are cached because a filter evaluates the same pattern once per
/// record.
enum PatternMatching {
    /// `*` matches any run of characters, `?` exactly one; `\*`, `\?` and `\\` match themselves.
    /// Greedy with single backtracking, so time stays O(n·m) for any pattern.
    static func like(_ string: String, pattern: String) -> Bool {
        let text = Array(string)
        var tokens: [LikeToken] = []
        var iterator = pattern.makeIterator()
        while let c = iterator.next() {
            switch c {
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            case "\\": tokens.append(.literal(iterator.next() ?? "\\"))
            default: tokens.append(.literal(c))
            }
        }
        var (t, p) = (0, 0)
        var backtrack: (pattern: Int, text: Int)?
        while t < text.count {
            if p < tokens.count {
                switch tokens[p] {
                case .anyRun:
                    backtrack = (p, t)
                    p += 1
                    continue
                case .anyOne:
                    t += 1; p += 1
                    continue
                case .literal(let c) where c == text[t]:
                    t += 1; p += 1
                    continue
                default:
                    break
                }
            }
            guard let resume = backtrack else { return false }
            backtrack = (resume.pattern, resume.text + 1)
            p = resume.pattern + 1
            t = resume.text + 1
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken: Equatable {
        case anyRun, anyOne
        case literal(Character)
    }

    /// Whether `string` matches `pattern` as a whole (``RegularExpression``: no backtracking, at
    /// most a few steps per character and pattern instruction); false when the pattern is invalid
    /// or unsupported (a query refuses such a pattern before it runs: ``validatePatterns(of:)``).
    static func matches(_ string: String, pattern: String, caseInsensitive: Bool) -> Bool {
        guard case .success(let regex) = regularExpression(pattern, caseInsensitive: caseInsensitive) else { return false }
        return regex.matches(string)
    }

    /// Nil when `pattern` compiles, else why not.
    static func problem(in pattern: String) -> RegularExpression.SyntaxError? {
        if case .failure(let problem) = regularExpression(pattern, caseInsensitive: false) { return problem }
        return nil
    }

    /// Compiles every `MATCHES` pattern of `predicate` (from the cache when seen before), so that
    /// a query refuses an invalid or unsupported one before reading a record: an
    /// `.invalidQuery` error naming the pattern, the field and the problem.
    static func validatePatterns(of predicate: QueryPredicate, entity: String) throws(StrataError) {
        var failure: StrataError?
        predicate.forEachComparison { comparison in
            guard failure == nil, comparison.op == .matches, case .string(let pattern) = comparison.value else { return }
            let folded = Collation.fold(pattern, comparison.options.intersection(.diacriticInsensitive))
            let caseInsensitive = comparison.options.contains(.caseInsensitive)
            guard case .failure(let problem) = regularExpression(folded, caseInsensitive: caseInsensitive) else { return }
            let field = comparison.field.joined(separator: ".")
            failure = StrataError(.invalidQuery, "invalid regular expression '\(pattern)' in \(field) MATCHES: \(problem)",
                                  entity: entity, field: field)
        }
        if let failure { throw failure }
    }

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
    private static let cache = Mutex<[CacheKey: Result<RegularExpression, RegularExpression.SyntaxError>]>([:])
}
