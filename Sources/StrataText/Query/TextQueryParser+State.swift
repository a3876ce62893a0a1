/// The recursive descent of ``TextQueryParser``: one lexeme of look-ahead, the field scope and
/// depth it is in, and the number of matches made so far.
struct ParseState {
    let parser: TextQueryParser
    let text: String
    let lexemes: [TextQueryLexeme]
    private var index = 0
    private var depth = 0
    private var matches = 0
    /// The fields of the enclosing `field:` scope, if any.
    private var scope: UInt64?

    init(parser: TextQueryParser, text: String, lexemes: [TextQueryLexeme]) {
        self.parser = parser
        self.text = text
        self.lexemes = lexemes
    }

    var peek: TextQueryLexeme? { index < lexemes.count ? lexemes[index] : nil }

    func failure(_ code: TextQueryError.Code, _ message: String, at lexeme: TextQueryLexeme?) -> TextQueryError {
        TextQueryError(code, message, offset: lexeme?.offset ?? text.utf8.count, in: text)
    }

    func describe(_ lexeme: TextQueryLexeme) -> String {
        switch lexeme.kind {
        case .word(let word): "the word \(word.debugDescription)"
        case .phrase: "a phrase"
        case .open: "("
        case .close: ")"
        case .colon: ":"
        case .star: "*"
        case .comma: ","
        case .and: "AND"
        case .or: "OR"
        case .not: "NOT"
        case .near: "NEAR"
        }
    }

    private mutating func take() -> TextQueryLexeme? {
        defer { index += 1 }
        return peek
    }

    mutating func parseOr() throws(TextQueryError) -> TextQuery {
        var parts = [try parseAnd()]
        while let next = peek, next.kind == .or {
            index += 1
            guard startsPrimary(peek) else {
                throw failure(.missingOperand, "OR needs a query after it", at: next)
            }
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .any(parts)
    }

    private mutating func parseAnd() throws(TextQueryError) -> TextQuery {
        var parts = [try parseNot()]
        while let next = peek {
            if next.kind == .and {
                index += 1
                guard startsPrimary(peek) else { throw failure(.missingOperand, "AND needs a query after it", at: next) }
            } else if !startsPrimary(next) {
                break
            }
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    private mutating func parseNot() throws(TextQueryError) -> TextQuery {
        var query = try parseUnary()
        while let next = peek, next.kind == .not {
            index += 1
            guard startsPrimary(peek) else { throw failure(.missingOperand, "NOT needs a query after it", at: next) }
            query = .excluding(query, try parseUnary())
        }
        return query
    }

    private func startsPrimary(_ lexeme: TextQueryLexeme?) -> Bool {
        switch lexeme?.kind {
        case .word?, .phrase?, .open?, .near?: true
        default: false
        }
    }

    private mutating func parseUnary() throws(TextQueryError) -> TextQuery {
        guard let first = peek else { throw failure(.missingOperand, "the query ends where a word is needed", at: nil) }
        if case .word(let name) = first.kind, index + 1 < lexemes.count, lexemes[index + 1].kind == .colon,
           lexemes[index + 1].offset == first.end {
            guard let field = parser.fields.firstIndex(of: name) else {
                throw failure(.unknownField, "\(name.debugDescription) is not a field of the index (its fields: "
                              + "\(parser.fields.joined(separator: ", ")))", at: first)
            }
            guard scope == nil else { throw failure(.unexpected, "a field scope inside another field scope", at: first) }
            index += 2
            guard startsPrimary(peek) else { throw failure(.missingOperand, "\(name): needs a query after it", at: first) }
            try enter(first)
            scope = 1 << UInt64(field)
            defer { scope = nil; depth -= 1 }
            return try parsePrimary()
        }
        return try parsePrimary()
    }

    private mutating func enter(_ lexeme: TextQueryLexeme) throws(TextQueryError) {
        depth += 1
        guard depth <= parser.limits.maximumDepth else {
            throw failure(.tooDeep, "parentheses and field scopes nest deeper than \(parser.limits.maximumDepth)", at: lexeme)
        }
    }

    private mutating func parsePrimary() throws(TextQueryError) -> TextQuery {
        guard let lexeme = take() else { throw failure(.missingOperand, "the query ends where a word is needed", at: nil) }
        switch lexeme.kind {
        case .open:
            try enter(lexeme)
            defer { depth -= 1 }
            guard startsPrimary(peek) else {
                if peek?.kind == .close { throw failure(.missingOperand, "() holds no query", at: lexeme) }
                if peek == nil { throw failure(.unbalancedParenthesis, "a ( without its )", at: lexeme) }
                throw failure(.missingOperand, "\(describe(peek!)) cannot start a query", at: peek)
            }
            let inner = try parseOr()
            guard let close = take(), close.kind == .close else {
                throw failure(.unbalancedParenthesis, "a ( without its )", at: lexeme)
            }
            return inner
        case .near: return try parseNear(lexeme)
        case .word(let word): return try matchQuery(word, at: lexeme, isPhrase: false, prefix: takeStar(after: lexeme))
        case .phrase(let phrase): return try matchQuery(phrase, at: lexeme, isPhrase: true, prefix: takeStar(after: lexeme))
        case .not: throw failure(.missingOperand, "NOT needs a query before it (a NOT b)", at: lexeme)
        case .or, .and: throw failure(.missingOperand, "\(describe(lexeme)) needs a query before it", at: lexeme)
        case .close: throw failure(.unbalancedParenthesis, "a ) without its (", at: lexeme)
        case .star: throw failure(.unexpected, "a * must follow a word or phrase without a space", at: lexeme)
        case .colon: throw failure(.unexpected, "a : must follow a field name", at: lexeme)
        case .comma: throw failure(.unexpected, "a , belongs in NEAR(…, distance)", at: lexeme)
        }
    }

    /// Takes a `*` that follows `lexeme` directly, and says whether there was one.
    private mutating func takeStar(after lexeme: TextQueryLexeme) -> Bool {
        guard let next = peek, next.kind == .star, next.offset == lexeme.end else { return false }
        index += 1
        return true
    }

    private mutating func parseNear(_ near: TextQueryLexeme) throws(TextQueryError) -> TextQuery {
        guard let open = take(), open.kind == .open else { throw failure(.invalidNear, "NEAR needs (", at: near) }
        var items: [TextMatch] = []
        var sawItem = false
        var distance = 10
        loop: while true {
            guard let lexeme = take() else { throw failure(.unbalancedParenthesis, "NEAR( without its )", at: open) }
            switch lexeme.kind {
            case .word(let text), .phrase(let text):
                sawItem = true
                let isPhrase = if case .phrase = lexeme.kind { true } else { false }
                let item = try makeMatch(text, at: lexeme, isPhrase: isPhrase, prefix: takeStar(after: lexeme))
                if !item.terms.isEmpty { items.append(item) }
            case .comma:
                guard let number = take(), case .word(let digits) = number.kind, let value = Int(digits), value >= 0,
                      value <= parser.limits.maximumNearDistance else {
                    throw failure(.invalidNear, "NEAR's distance must be a whole number from 0 to "
                                  + "\(parser.limits.maximumNearDistance)", at: lexeme)
                }
                distance = value
                guard let close = take(), close.kind == .close else {
                    throw failure(.unbalancedParenthesis, "NEAR( without its ) after the distance", at: open)
                }
                break loop
            case .close: break loop
            default: throw failure(.invalidNear, "\(describe(lexeme)) cannot be an item of NEAR", at: lexeme)
            }
        }
        guard sawItem else { throw failure(.invalidNear, "NEAR( ) needs words or phrases", at: near) }
        if items.isEmpty { return .nothing }
        return items.count == 1 ? .match(items[0]) : .near(items, distance: distance)
    }

    /// The match of a word or phrase: its terms by the index's tokenizer, the last one a prefix if
    /// starred (unstemmed), a one-character CJK term a prefix, and a single-term word typo-tolerant
    /// when the parser is. No terms (stop words, punctuation) gives an empty match.
    private mutating func makeMatch(_ text: String, at lexeme: TextQueryLexeme, isPhrase: Bool, prefix: Bool) throws(TextQueryError) -> TextMatch {
        matches += 1
        guard matches <= parser.limits.maximumMatches else {
            throw failure(.tooManyTerms, "the query has more than \(parser.limits.maximumMatches) words and phrases", at: lexeme)
        }
        let tokens = parser.tokenizer.tokens(in: text, mode: .query)
        guard let first = tokens.first else { return TextMatch(terms: [], fields: scope, offset: lexeme.offset) }
        var terms = tokens.map { TextQueryTerm(text: $0.term, offset: $0.position - first.position) }
        if prefix {
            var unstemmed = parser.tokenizer
            unstemmed.stemming = .none
            if let last = unstemmed.tokens(in: text, mode: .query).last { terms[terms.count - 1].text = last.term }
            terms[terms.count - 1].isPrefix = true
        }
        for index in terms.indices {
            let scalars = terms[index].text.unicodeScalars
            if scalars.count == 1, WordBreakProperty.Scalar.of(scalars.first!.value).isCJK { terms[index].isPrefix = true }
        }
        if parser.typoTolerance, !isPhrase, terms.count == 1, !terms[0].isPrefix,
           !terms[0].text.unicodeScalars.contains(where: { $0.properties.numericType != nil }) {
            terms[0].typos = TypoMatcher.allowedDistance(forLength: terms[0].text.count)
        }
        return TextMatch(terms: terms, fields: scope, offset: lexeme.offset)
    }

    private mutating func matchQuery(_ text: String, at lexeme: TextQueryLexeme, isPhrase: Bool, prefix: Bool) throws(TextQueryError) -> TextQuery {
        let match = try makeMatch(text, at: lexeme, isPhrase: isPhrase, prefix: prefix)
        return match.terms.isEmpty ? .nothing : .match(match)
    }
}
