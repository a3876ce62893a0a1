/// One lexical unit of a predicate format string, with the 1-based column it starts at so that every
/// error can point at the offending spot.
package struct FormatToken: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// A name: a field, a keyword or an operator word. `escaped` for `#name`, which is never a keyword.
        case identifier(String, escaped: Bool)
        case string(String)
        /// An integer literal's magnitude; a leading `-` is a separate token.
        case integer(UInt128)
        case decimal(Double)
        /// `%@`, `%K`, `%d`…, without the `%`, length modifiers removed (`%ld` is `d`).
        case placeholder(Character)
        /// `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!` (normalized: `=` and `==` are both `==`).
        case symbol(String)
        /// The letters between `[` and `]` after an operator.
        case modifier(String)
        case leftParen, rightParen, leftBrace, rightBrace, comma, dot, minus
        case end
    }

    package var kind: Kind
    package var column: Int
    /// The source text of the token, for messages.
    package var text: String

    /// The identifier's name when it is an unescaped identifier equal (ignoring case) to `keyword`.
    package func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(let name, escaped: false) = kind {
            return name.count == keyword.count && name.uppercased() == keyword
        }
        return false
    }

    /// The uppercased word for unescaped identifiers, nil otherwise.
    package var keyword: String? {
        if case .identifier(let name, escaped: false) = kind { return name.uppercased() }
        return nil
    }

    /// How the token reads in an error message.
    package var quoted: String {
        kind == .end ? "end of input" : "'\(text)'"
    }
}

/// Words that cannot name a field unless escaped with `#` (as in NSPredicate).
package let reservedFormatWords: Set<String> = [
    "AND", "OR", "NOT", "IN", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS",
    "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "TRUE", "YES", "FALSE", "NO", "CAST",
    "TRUEPREDICATE", "FALSEPREDICATE", "SELF",
]
