/// Recursive-descent parser over ``FormatToken``s for the boolean structure and trailing clauses.
///
/// Precedence is NOT > AND > OR. Recursion only happens through parentheses, `NOT` and `{…}` lists,
/// and each of those counts against ``PredicateFormat/maximumNesting``, so the stack depth is bounded
/// whatever the input.
package struct FormatParser {
    package var tokens: [FormatToken]
    package var position = 0
    package var arguments: [any Sendable]
    var nextArgument = 0
    package let entity: String
    /// The entity's fields, to check each field path (nil: not checked).
    package let fields: KnownFields?
    /// The entity's field types, to check each comparison's constant (nil: not checked).
    package let types: FieldTypes?
    package var depth = 0

    package init(tokens: [FormatToken], arguments: [any Sendable], entity: String, fields: KnownFields?, types: FieldTypes? = nil) {
        self.tokens = tokens
        self.arguments = arguments
        self.entity = entity
        self.fields = fields
        self.types = types
    }

    package var current: FormatToken { tokens[position] }

    package func peek(_ offset: Int) -> FormatToken {
        tokens[min(position + offset, tokens.count - 1)]
    }

    @discardableResult
    package mutating func advance() -> FormatToken {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    /// An `.invalidQuery` error: the problem, its column, then any detail in parentheses.
    package func error(_ problem: String, at token: FormatToken, detail: String? = nil) -> StrataError {
        let suffix = detail.map { " (\($0))" } ?? ""
        return StrataError(.invalidQuery, "\(problem) at column \(token.column)\(suffix)", entity: entity)
    }

    // MARK: Query

    package mutating func parseQuery() throws(StrataError) -> ParsedQuery {
        var query = ParsedQuery(predicate: .constant(true))
        if current.kind != .end && !atClauseStart(initial: true) {
            query.predicate = try parseOr()
        }
        if current.isKeyword("ORDER") {
            advance()
            guard current.isKeyword("BY") else { throw error("expected BY after ORDER", at: current) }
            advance()
            query.orderings = try parseOrderings()
        }
        if current.isKeyword("LIMIT") {
            query.limit = try parseCount(after: advance())
        }
        if current.isKeyword("OFFSET") {
            query.offset = try parseCount(after: advance())
        }
        guard current.kind == .end else {
            throw error("unexpected \(current.quoted)", at: current,
                        detail: "expected AND, OR, ORDER BY, LIMIT, OFFSET or the end")
        }
        try checkAllArgumentsUsed()
        return query
    }

    /// Whether the current token starts `ORDER BY`, `LIMIT n` or `OFFSET n` rather than a comparison on a
    /// field of that name (which these words may also be).
    package func atClauseStart(initial: Bool) -> Bool {
        if current.isKeyword("ORDER") { return peek(1).isKeyword("BY") }
        guard current.isKeyword("LIMIT") || current.isKeyword("OFFSET") else { return false }
        switch peek(1).kind {
        case .integer, .placeholder, .minus, .end, .decimal: return true
        case .identifier: return peek(1).isKeyword("OFFSET")
        default: return false
        }
    }

    package func checkAllArgumentsUsed() throws(StrataError) {
        guard nextArgument == arguments.count else {
            let given = arguments.count == 1 ? "1 argument given" : "\(arguments.count) arguments given"
            throw StrataError(.invalidQuery, "\(given) but the format uses \(nextArgument)", entity: entity)
        }
    }

    // MARK: Boolean structure

    package mutating func parseOr() throws(StrataError) -> QueryPredicate {
        var operands = [try parseAnd()]
        while current.isKeyword("OR") || current.kind == .symbol("||") {
            advance()
            operands.append(try parseAnd())
        }
        guard operands.count > 1 else { return operands[0] }
        return .or(operands.flatMap { operand -> [QueryPredicate] in
            if case .or(let inner) = operand { return inner }
            return [operand]
        })
    }

    package mutating func parseAnd() throws(StrataError) -> QueryPredicate {
        var operands = [try parseNot()]
        while current.isKeyword("AND") || current.kind == .symbol("&&") {
            advance()
            operands.append(try parseNot())
        }
        guard operands.count > 1 else { return operands[0] }
        return .and(operands.flatMap { operand -> [QueryPredicate] in
            if case .and(let inner) = operand { return inner }
            return [operand]
        })
    }

    package mutating func parseNot() throws(StrataError) -> QueryPredicate {
        guard current.isKeyword("NOT") || current.kind == .symbol("!") else { return try parsePrimary() }
        let token = advance()
        try enterNesting(token)
        defer { depth -= 1 }
        return .not(try parseNot())
    }

    package mutating func parsePrimary() throws(StrataError) -> QueryPredicate {
        switch current.kind {
        case .leftParen:
            let open = advance()
            try enterNesting(open)
            defer { depth -= 1 }
            let inner = try parseOr()
            guard current.kind == .rightParen else {
                throw error("expected ')'", at: current,
                            detail: "to close the '(' at column \(open.column), found \(current.quoted)")
            }
            advance()
            return inner
        case .end:
            throw error("expected a comparison, found the end of the format", at: current)
        default:
            if current.isKeyword("TRUEPREDICATE") { advance(); return .constant(true) }
            if current.isKeyword("FALSEPREDICATE") { advance(); return .constant(false) }
            return try parseComparison()
        }
    }

    package mutating func enterNesting(_ token: FormatToken) throws(StrataError) {
        depth += 1
        if depth > PredicateFormat.maximumNesting {
            throw error("nesting deeper than \(PredicateFormat.maximumNesting) levels", at: token)
        }
    }

    // MARK: Clauses

    package mutating func parseOrderings() throws(StrataError) -> [QueryOrdering] {
        var orderings: [QueryOrdering] = []
        repeat {
            if !orderings.isEmpty { advance() }  // the comma
            let (path, _) = try parseSortField()
            var ordering = QueryOrdering(field: path)
            if case .modifier = current.kind { ordering.options = try parseModifier(advance()) }
            if current.isKeyword("ASC") || current.isKeyword("ASCENDING") {
                advance()
            } else if current.isKeyword("DESC") || current.isKeyword("DESCENDING") {
                advance()
                ordering.ascending = false
            }
            orderings.append(ordering)
        } while current.kind == .comma
        return orderings
    }

    private mutating func parseSortField() throws(StrataError) -> ([String], FormatToken) {
        let token = current
        if case .placeholder("K") = token.kind {
            return (try keyPathArgument(advance()), token)
        }
        guard case .identifier = token.kind else {
            throw error("expected a field name to sort by", at: token, detail: "found \(token.quoted)")
        }
        return (try parseKeyPath(), token)
    }

    /// `LIMIT` and `OFFSET` take a literal or a `%d`/`%@` argument that is a non-negative integer.
    package mutating func parseCount(after keyword: FormatToken) throws(StrataError) -> Int {
        let name = keyword.text.uppercased()
        let problem = "\(name) must be followed by a non-negative integer"
        let token = advance()
        switch token.kind {
        case .integer(let value):
            guard let count = Int(exactly: value) else { throw error(problem, at: token) }
            return count
        case .placeholder("@"), .placeholder("d"):
            let value = try argumentValue(token)
            switch value {
            case .int(let count) where count >= 0: return Int(count)
            default: throw error(problem, at: token, detail: "the argument for \(token.text) is \(value)")
            }
        default:
            throw error(problem, at: token)
        }
    }

    package mutating func parseSortSpec() throws(StrataError) -> [QueryOrdering] {
        guard current.kind != .end else { return [] }
        let orderings = try parseOrderings()
        guard current.kind == .end else {
            throw error("unexpected \(current.quoted) in the sort spec", at: current,
                        detail: "expected ',', ASC or DESC")
        }
        return orderings
    }
}
