import Foundation

/// One side of a comparison, kept apart until both are read because NSPredicate allows the field on
/// either side (`3 < age`, `'swift' IN tags`).
package enum FormatOperand {
    case field([String])
    case value(QueryValue)
}

extension FormatParser {
    /// `[ANY|SOME|ALL|NONE] lhs [NOT] operator[options] rhs`, with the field on either side.
    package mutating func parseComparison() throws(StrataError) -> QueryPredicate {
        let quantifierToken = current
        var quantifier: Quantifier?
        switch current.keyword {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = Quantifier.none
        default: break
        }
        if quantifier != nil { advance() }

        let leftToken = current
        let left = try parseOperand(after: quantifier == nil ? nil : quantifierToken)
        if quantifier != nil, case .value = left {
            throw error("\(quantifierToken.text.uppercased()) must be followed by a field", at: leftToken)
        }
        var negated = false
        if current.isKeyword("NOT") {
            negated = true
            advance()
        }
        let operatorToken = current
        let op = try parseOperator(after: leftToken, negated: negated)
        var options: StringComparisonOptions = []
        var lastToken = operatorToken
        if case .modifier = current.kind {
            lastToken = advance()
            options = try parseModifier(lastToken, search: op == .search)
        }
        let rightToken = current
        let right = try parseOperand(after: lastToken)

        let comparison: FieldComparison
        switch (left, right) {
        case (.field(let path), .value(let value)):
            try checkValue(value, for: op, at: rightToken)
            comparison = FieldComparison(field: path, op: op, value: value, options: options,
                                         quantifier: quantifier)
            try types?.check(comparison, column: rightToken.column)
        case (.value(let value), .field(let path)):
            comparison = try reversed(op, value: value, field: path, options: options, at: operatorToken)
            try types?.check(comparison, column: leftToken.column)
        case (.field, .field):
            throw error("comparing a field with another field is not supported", at: rightToken)
        case (.value, .value):
            throw error("a comparison needs a field on one side", at: leftToken)
        }
        return negated ? .not(.comparison(comparison)) : .comparison(comparison)
    }

    /// `value op field`: IN means the (array) field contains the value; the order operators flip.
    private func reversed(_ op: ComparisonOperator, value: QueryValue, field: [String],
                          options: StringComparisonOptions,
                          at token: FormatToken) throws(StrataError) -> FieldComparison {
        let flipped: ComparisonOperator
        switch op {
        case .in:
            return FieldComparison(field: field, op: .equal, value: value, options: options, quantifier: .any)
        case .equal, .notEqual: flipped = op
        case .less: flipped = .greater
        case .lessOrEqual: flipped = .greaterOrEqual
        case .greater: flipped = .less
        case .greaterOrEqual: flipped = .lessOrEqual
        default:
            throw error("the left side of \(op.rawValue) must be a field", at: token)
        }
        return FieldComparison(field: field, op: flipped, value: value, options: options)
    }

    /// Checks the shape a value needs for its operator; compiles literal regular expressions.
    private func checkValue(_ value: QueryValue, for op: ComparisonOperator,
                            at token: FormatToken) throws(StrataError) {
        switch op {
        case .between:
            guard case .list(let bounds) = value, bounds.count == 2 else {
                throw error("BETWEEN needs two values {low, high}", at: token)
            }
        case .in:
            guard case .list = value else {
                throw error("IN needs a list of values ({a, b} or an array argument)", at: token)
            }
        case .search:
            // The query's own language is checked against the field's full-text index when the query runs.
            guard case .string = value else {
                throw error("SEARCH needs a full-text query string (\"lmdb swift\")", at: token)
            }
        case .matches:
            // Literals here, with the column; a pattern passed as an argument is checked when the
            // query runs (`PatternMatching.validatePatterns`).
            guard case .string(let pattern) = value, case .string = token.kind else { return }
            if let problem = PatternMatching.problem(in: pattern) {
                throw error("invalid regular expression '\(pattern)'", at: token, detail: problem.description)
            }
        default:
            break
        }
    }

    private mutating func parseOperator(after left: FormatToken,
                                        negated: Bool) throws(StrataError) -> ComparisonOperator {
        let token = current
        let op: ComparisonOperator?
        switch token.kind {
        case .symbol(let symbol): op = negated ? nil : ComparisonOperator(rawValue: symbol)
        case .identifier(_, escaped: false): op = token.keyword.flatMap(Self.wordOperators)
        default: op = nil
        }
        guard let op else {
            if negated {
                throw error("NOT here must be followed by IN, BETWEEN, LIKE, MATCHES, CONTAINS, "
                            + "BEGINSWITH or ENDSWITH", at: token, detail: "found \(token.quoted)")
            }
            if case .end = token.kind {
                throw error("expected an operator after '\(left.text)'", at: token)
            }
            if case .modifier = token.kind {
                throw error("array subscripts (\(token.text)) are not supported", at: token,
                            detail: "count an array with @count: \(left.text).@count")
            }
            throw error("unknown operator \(token.quoted)", at: token)
        }
        advance()
        return op
    }

    private static func wordOperators(_ word: String) -> ComparisonOperator? {
        switch word {
        case "BETWEEN": .between
        case "IN": .in
        case "BEGINSWITH": .beginsWith
        case "ENDSWITH": .endsWith
        case "CONTAINS": .contains
        case "LIKE": .like
        case "MATCHES": .matches
        case "SEARCH": .search
        default: nil
        }
    }

    /// The options in `[…]` after an operator or an ordering: `[c]`, `[d]` (and NSPredicate's `[n]`,
    /// `[l]`, which change nothing here). After `SEARCH` (`search: true`) `[t]` turns on typo tolerance
    /// instead of `[n]`/`[l]`; `[c]`/`[d]` parse there, and the full-text target refuses them (its index
    /// folds case and diacritics itself).
    package func parseModifier(_ token: FormatToken, search: Bool = false) throws(StrataError) -> StringComparisonOptions {
        guard case .modifier(let letters) = token.kind, !letters.isEmpty else {
            throw error("empty comparison option '[]'", at: token)
        }
        var options: StringComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "t" where search: options.insert(.typoTolerant)
            case "n" where !search, "l" where !search: break  // NSPredicate's normalized/locale hints: comparisons are already deterministic
            default:
                throw search
                    ? error("unknown SEARCH option '\(letter)' in \(token.text)", at: token, detail: "use [t] for typo tolerance")
                    : error("unknown comparison option '\(letter)' in \(token.text)", at: token, detail: "use [c], [d] or [cd]")
            }
        }
        return options
    }

    // MARK: Key paths

    /// `name(.name)*`; unescaped reserved words cannot start a key path.
    package mutating func parseKeyPath() throws(StrataError) -> [String] {
        let first = advance()
        guard case .identifier(let name, _) = first.kind else {
            throw error("expected a field name", at: first, detail: "found \(first.quoted)")
        }
        var path = [name]
        while current.kind == .dot {
            advance()
            guard case .identifier(let component, _) = current.kind else {
                throw error("expected a field name after '.'", at: current, detail: "found \(current.quoted)")
            }
            advance()
            path.append(component)
        }
        try checkField(path, at: first)
        return path
    }

    /// The `%K` argument: a string naming a field path, dotted for embedded fields.
    package mutating func keyPathArgument(_ token: FormatToken) throws(StrataError) -> [String] {
        let argument = try takeArgument(token)
        let name: String
        switch argument {
        case let string as String: name = string
        case let substring as Substring: name = String(substring)
        default:
            throw error("the argument for %K must be a field name string, "
                        + "not \(String(describing: type(of: argument)))", at: token)
        }
        let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !name.isEmpty, !path.contains(where: \.isEmpty) else {
            throw error("the argument for %K, '\(name)', is not a field name", at: token)
        }
        try checkField(path, at: token)
        return path
    }

    /// ``KnownFields/check(_:column:for:)`` at the token's column; without known fields,
    /// the path's collection operator alone (``KnownFields/checkOperators(_:entity:column:usage:)``).
    package func checkField(_ path: [String], at token: FormatToken) throws(StrataError) {
        guard let fields else { return try KnownFields.checkOperators(path, entity: entity, column: token.column) }
        try fields.check(path, column: token.column)
    }
}
