import Foundation

extension FormatParser {
    /// A field (key path or `%K`) or a value (literal, `%@`/`%d`/`%f`, `{…}`, `CAST(…)`).
    ///
    /// `previous` is the token the operand follows (an operator or quantifier), for the message when
    /// the operand is missing.
    package mutating func parseOperand(after previous: FormatToken?) throws(StrataError) -> FormatOperand {
        let token = current
        switch token.kind {
        case .identifier(let name, let escaped):
            if !escaped { try refuseUnsupported(token, name) }
            if escaped || !reservedFormatWords.contains(token.keyword ?? "") {
                return .field(try parseKeyPath())
            }
        case .placeholder("K"):
            return .field(try keyPathArgument(advance()))
        case .string, .integer, .decimal, .minus, .placeholder, .leftBrace:
            break
        default:
            throw missingOperand(after: previous)
        }
        guard let value = try parseValue() else { throw missingOperand(after: previous) }
        return .value(value)
    }

    /// NSPredicate's constructs that Strata does not evaluate, named as such rather than read as
    /// a field of that name: `SUBQUERY(…)` and other functions (`FUNCTION(…)`), and variables (`$x`).
    private func refuseUnsupported(_ token: FormatToken, _ name: String) throws(StrataError) {
        if peek(1).kind == .leftParen, token.keyword != "CAST" {
            if token.isKeyword("SUBQUERY") {
                throw error("SUBQUERY is not supported", at: token,
                            detail: "compare a field of the related records with ANY, ALL or NONE (ANY notes.text == 'x'), or count them with @count")
            }
            throw error("the function \(name)(…) is not supported", at: token, detail: "a comparison is a field, an operator and a value")
        }
        if name.hasPrefix("$") {
            throw error("variables ('\(name)') are not supported", at: token, detail: "pass the value as an argument: %@")
        }
    }

    private func missingOperand(after previous: FormatToken?) -> StrataError {
        if let previous {
            // `IN ("Berlin", "Bern")`, as SQL writes a list: the format language's lists are braces.
            if previous.isKeyword("IN"), current.kind == .leftParen {
                return error("expected a value after 'IN'", at: current, detail: "a list is written in braces: IN {\"a\", \"b\"}, not in parentheses")
            }
            return error("expected a value after '\(previous.text)'", at: current)
        }
        return error("expected a field or a value", at: current, detail: "found \(current.quoted)")
    }

    /// A value, or nil (consuming nothing) when the current token cannot start one.
    package mutating func parseValue() throws(StrataError) -> QueryValue? {
        let token = current
        switch token.kind {
        case .string(let string):
            advance()
            return .string(string)
        case .integer(let magnitude):
            advance()
            return WideInteger(magnitude).queryValue
        case .decimal(let value):
            advance()
            return .double(value)
        case .minus:
            advance()
            switch current.kind {
            case .integer(let magnitude):
                advance()
                guard let value = WideInteger(isNegative: true, magnitude: magnitude) else {
                    throw error("integer literal -\(magnitude) is too small", at: token)
                }
                return value.queryValue
            case .decimal(let value):
                advance()
                return .double(-value)
            default:
                throw error("expected a number after '-'", at: current)
            }
        case .placeholder("K"):
            throw error("%K names a field, not a value", at: token)
        case .placeholder:
            return try argumentValue(advance())
        case .leftBrace:
            return try parseList()
        case .identifier(_, escaped: false):
            switch token.keyword {
            case "TRUE", "YES": advance(); return .bool(true)
            case "FALSE", "NO": advance(); return .bool(false)
            case "NIL", "NULL": advance(); return .null
            case "CAST": return try parseCast()
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `{a, b, …}`, possibly empty; nested lists count against the nesting limit.
    private mutating func parseList() throws(StrataError) -> QueryValue {
        let open = advance()
        try enterNesting(open)
        defer { depth -= 1 }
        var elements: [QueryValue] = []
        if current.kind == .rightBrace {
            advance()
            return .list(elements)
        }
        while true {
            let elementToken = current
            guard let element = try parseValue() else {
                throw error("expected a value in the list", at: elementToken, detail: "found \(elementToken.quoted)")
            }
            elements.append(element)
            switch advance().kind {
            case .comma: continue
            case .rightBrace: return .list(elements)
            default:
                throw error("expected ',' or '}'", at: tokens[position == tokens.count - 1 ? position : position - 1],
                            detail: "in the list opened at column \(open.column)")
            }
        }
    }

    /// `CAST(value, 'NSDate')`: an ISO 8601 string, or a number of seconds since 2001-01-01 as
    /// NSPredicate reads it.
    private mutating func parseCast() throws(StrataError) -> QueryValue {
        let castToken = advance()
        guard advance().kind == .leftParen else { throw error("expected '(' after CAST", at: castToken) }
        let valueToken = current
        guard let value = try parseValue() else {
            throw error("expected a value in CAST(…)", at: valueToken)
        }
        guard advance().kind == .comma else {
            throw error("expected ',' and a type name in CAST(…)", at: valueToken)
        }
        let typeToken = advance()
        guard case .string(let type) = typeToken.kind else {
            throw error("expected a type name string like 'NSDate' in CAST(…)", at: typeToken)
        }
        guard type.lowercased() == "nsdate" || type.lowercased() == "date" else {
            throw error("CAST to '\(type)' is not supported (only 'NSDate')", at: typeToken)
        }
        guard advance().kind == .rightParen else { throw error("expected ')' to close CAST(", at: castToken) }
        switch value {
        case .date: return value
        case .int(let seconds): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case .uint(let seconds): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case .double(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .string(let text):
            guard let date = Self.parseISO8601(text) else {
                throw error("invalid ISO 8601 date '\(text)' in CAST", at: valueToken)
            }
            return .date(date)
        default:
            throw error("CAST to NSDate needs a string or a number, not \(value)", at: valueToken)
        }
    }

    /// Full timestamps with optional fractional seconds and an offset (UTC when it is missing), or a
    /// plain `YYYY-MM-DD` date at midnight UTC.
    package static func parseISO8601(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.utf8.count == 10 {
            return try? Date(trimmed, strategy: Date.ISO8601FormatStyle().year().month().day())
        }
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        return try? Date(trimmed + "Z", strategy: .iso8601)
    }

    // MARK: Arguments

    package mutating func takeArgument(_ token: FormatToken) throws(StrataError) -> any Sendable {
        guard nextArgument < arguments.count else {
            throw error("placeholder \(token.text) has no argument", at: token)
                .rephrased("placeholder \(token.text) at column \(token.column) has no argument")
        }
        defer { nextArgument += 1 }
        return arguments[nextArgument]
    }

    /// The value of a `%@`, `%d` (integers only) or `%f` (any number, as a double) placeholder.
    package mutating func argumentValue(_ token: FormatToken) throws(StrataError) -> QueryValue {
        let argument = try takeArgument(token)
        let value: QueryValue
        do {
            value = try QueryValue(argument: argument)
        } catch {
            throw self.error("\(error.message) (placeholder \(token.text))", at: token)
        }
        guard case .placeholder(let letter) = token.kind else { return value }
        switch (letter, value) {
        case ("@", _), ("d", .int), ("d", .uint), ("f", .double):
            return value
        case ("f", .int(let integer)):
            return .double(Double(integer))
        case ("f", .uint(let integer)):
            return .double(Double(integer))
        default:
            let kind = letter == "d" ? "an integer" : "a number"
            throw error("placeholder \(token.text) needs \(kind), but its argument is "
                        + "\(String(describing: type(of: argument)))", at: token)
        }
    }
}

extension StrataError {
    /// The same error with another message, for messages whose column belongs mid-sentence.
    package func rephrased(_ message: String) -> StrataError {
        var copy = self
        copy.message = message
        return copy
    }
}
