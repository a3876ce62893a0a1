import LMDB

/// Splits a predicate format string into tokens in one linear pass.
///
/// Columns count Unicode scalars from 1, so they stay stable however the text is rendered. Anything the
/// grammar cannot use (an unterminated string, a lone `&`, an integer beyond 64 bits) is reported here
/// with its column rather than surfacing later as a vaguer parse error.
package struct FormatLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var tokens: [FormatToken] = []

    /// The tokens of `source`, from the cache when it was split before: a program runs the same
    /// few format strings again and again with new arguments, and the tokens do not depend on them.
    package static func tokenize(_ source: String) throws(StrataError) -> [FormatToken] {
        if let known = cache.withLock({ $0[source] }) { return known }
        var lexer = FormatLexer(scalars: Array(source.unicodeScalars))
        let tokens = try lexer.run()
        if source.utf8.count <= cacheableLength {
            cache.withLock { entries in
                if entries.count >= cacheCapacity { entries.removeAll(keepingCapacity: true) }
                entries[source] = tokens
            }
        }
        return tokens
    }

    /// Format strings remembered at most, and the longest one remembered (in UTF-8 bytes): the
    /// cache starts over when full, so strings made on the fly cannot grow it without end.
    package static var cacheCapacity: Int { 256 }
    package static var cacheableLength: Int { 4096 }

    /// Tokens of format strings split before, shared by every thread (errors are not kept).
    private static let cache = ConditionLock<[String: [FormatToken]]>([:])

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func run() throws(StrataError) -> [FormatToken] {
        while let c = peek() {
            let start = index
            if c.properties.isWhitespace { index += 1; continue }
            switch c {
            case "'", "\"": try lexString(quote: c)
            case "0"..."9": try lexNumber()
            case "." where peek(1).map(Self.isDigit) == true && !lastIsOperand: try lexNumber()
            case "#":
                index += 1
                guard let next = peek(), Self.isIdentifierStart(next) else {
                    throw Self.error("expected a name after '#'", column: start + 1)
                }
                lexIdentifier(escaped: true, start: start)
            case "%": try lexPlaceholder()
            case "[": try lexModifier()
            case "@" where peek(1).map(Self.isIdentifierStart) == true:
                // `notes.@count`: a collection operator, lexed as a name that keeps its '@'.
                index += 1
                lexIdentifier(escaped: false, start: start, keeping: "@")
            default:
                if Self.isIdentifierStart(c) {
                    lexIdentifier(escaped: false, start: start)
                } else {
                    try lexSymbol(c)
                }
            }
        }
        tokens.append(FormatToken(kind: .end, column: scalars.count + 1, text: ""))
        return tokens
    }

    /// Whether the previous token ends an operand, so that a following `.` is a key-path dot.
    private var lastIsOperand: Bool {
        switch tokens.last?.kind {
        case .identifier?, .rightParen?, .placeholder?: return true
        default: return false
        }
    }

    private mutating func emit(_ kind: FormatToken.Kind, from start: Int) {
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        tokens.append(FormatToken(kind: kind, column: start + 1, text: text))
    }

    private mutating func lexIdentifier(escaped: Bool, start: Int, keeping prefix: String = "") {
        let nameStart = index
        while let c = peek(), Self.isIdentifierPart(c) { index += 1 }
        let name = prefix + String(String.UnicodeScalarView(scalars[nameStart..<index]))
        emit(.identifier(name, escaped: escaped), from: start)
    }

    private mutating func lexString(quote: Unicode.Scalar) throws(StrataError) {
        let start = index
        index += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw Self.error("unterminated string starting", column: start + 1)
            }
            index += 1
            if c == quote { break }
            guard c == "\\" else { value.append(c); continue }
            guard let escaped = peek() else {
                throw Self.error("unterminated string starting", column: start + 1)
            }
            index += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "\"", "'", "\\": value.append(escaped)
            case "u":
                var code: UInt32 = 0
                for _ in 0..<4 {
                    guard let h = peek(), let digit = h.hexDigitValue else {
                        throw Self.error("invalid \\u escape (four hex digits expected)", column: index - 1)
                    }
                    code = code * 16 + digit
                    index += 1
                }
                guard let scalar = Unicode.Scalar(code) else {
                    throw Self.error("\\u escape names no Unicode scalar", column: index - 5)
                }
                value.append(scalar)
            default:
                // Kept verbatim so that regular expressions (`'\d+'`) and LIKE escapes survive.
                value.append("\\")
                value.append(escaped)
            }
        }
        emit(.string(String(value)), from: start)
    }

    private mutating func lexNumber() throws(StrataError) {
        let start = index
        if peek() == "0", let radixMark = peek(1), let radix = Self.radix(radixMark) {
            index += 2
            var value: UInt128 = 0
            var digits = 0
            while let c = peek(), let digit = c.hexDigitValue, digit < radix {
                let (times, o1) = value.multipliedReportingOverflow(by: UInt128(radix))
                let (sum, o2) = times.addingReportingOverflow(UInt128(digit))
                guard !o1, !o2 else { throw Self.error("integer literal is too large", column: start + 1) }
                value = sum
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw Self.error("invalid number", column: start + 1) }
            try checkNumberEnd(start)
            emit(.integer(value), from: start)
            return
        }
        var isDecimal = false
        while let c = peek(), Self.isDigit(c) { index += 1 }
        if peek() == ".", peek(1).map(Self.isDigit) == true {
            isDecimal = true
            index += 1
            while let c = peek(), Self.isDigit(c) { index += 1 }
        }
        if peek() == "e" || peek() == "E" {
            var offset = 1
            if peek(1) == "+" || peek(1) == "-" { offset = 2 }
            if peek(offset).map(Self.isDigit) == true {
                isDecimal = true
                index += offset
                while let c = peek(), Self.isDigit(c) { index += 1 }
            }
        }
        try checkNumberEnd(start)
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        if !isDecimal, let value = UInt128(text) {
            emit(.integer(value), from: start)
        } else if !isDecimal {
            throw Self.error("integer literal \(text) is too large", column: start + 1)
        } else if let value = Double(text), value.isFinite {
            emit(.decimal(value), from: start)
        } else {
            throw Self.error("invalid number \(text)", column: start + 1)
        }
    }

    private func checkNumberEnd(_ start: Int) throws(StrataError) {
        if let c = peek(), Self.isIdentifierPart(c) {
            throw Self.error("invalid number (unexpected '\(Character(c))')", column: start + 1)
        }
    }

    private mutating func lexPlaceholder() throws(StrataError) {
        let start = index
        index += 1
        while let c = peek(), c == "l" || c == "q" || c == "h" { index += 1 }
        guard let c = peek() else { throw Self.error("incomplete placeholder '%'", column: start + 1) }
        index += 1
        let letter: Character
        switch c {
        case "@", "K": letter = Character(c)
        case "d", "i", "u", "D", "U", "x": letter = "d"
        case "f", "g", "e": letter = "f"
        default:
            let text = String(String.UnicodeScalarView(scalars[start..<index]))
            throw Self.error("unknown placeholder '\(text)'", column: start + 1)
        }
        if (letter == "@" || letter == "K") && index - start > 2 {
            throw Self.error("unknown placeholder", column: start + 1)
        }
        emit(.placeholder(letter), from: start)
    }

    private mutating func lexModifier() throws(StrataError) {
        let start = index
        index += 1
        var letters = ""
        while let c = peek(), c != "]" {
            guard c.properties.isAlphabetic else {
                throw Self.error("expected a comparison option like [c], [d] or [cd]", column: start + 1)
            }
            letters.unicodeScalars.append(c)
            index += 1
        }
        guard peek() == "]" else { throw Self.error("unterminated comparison option '['", column: start + 1) }
        index += 1
        emit(.modifier(letters), from: start)
    }

    private mutating func lexSymbol(_ c: Unicode.Scalar) throws(StrataError) {
        let start = index
        let next = peek(1)
        index += 1
        let kind: FormatToken.Kind
        switch (c, next) {
        case ("=", "="?): index += 1; kind = .symbol("==")
        case ("=", "<"?): index += 1; kind = .symbol("<=")
        case ("=", ">"?): index += 1; kind = .symbol(">=")
        case ("=", _): kind = .symbol("==")
        case ("!", "="?), ("<", ">"?): index += 1; kind = .symbol("!=")
        case ("!", _): kind = .symbol("!")
        case ("<", "="?): index += 1; kind = .symbol("<=")
        case ("<", _): kind = .symbol("<")
        case (">", "="?): index += 1; kind = .symbol(">=")
        case (">", _): kind = .symbol(">")
        case ("&", "&"?): index += 1; kind = .symbol("&&")
        case ("|", "|"?): index += 1; kind = .symbol("||")
        case ("(", _): kind = .leftParen
        case (")", _): kind = .rightParen
        case ("{", _): kind = .leftBrace
        case ("}", _): kind = .rightBrace
        case (",", _): kind = .comma
        case (".", _): kind = .dot
        case ("-", _): kind = .minus
        default:
            throw Self.error("unknown operator '\(Character(c))'", column: start + 1)
        }
        emit(kind, from: start)
    }

    package static func error(_ problem: String, column: Int) -> StrataError {
        StrataError(.invalidQuery, "\(problem) at column \(column)")
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c == "$" || c.properties.isAlphabetic
    }

    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || c.properties.numericType != nil
    }

    private static func radix(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "x", "X": 16
        case "o", "O": 8
        case "b", "B": 2
        default: nil
        }
    }

}

extension Unicode.Scalar {
    /// The value of a hexadecimal digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: for escapes in
    /// predicate strings and regular expressions.
    package var hexDigitValue: UInt32? {
        switch self {
        case "0"..."9": value - 48
        case "a"..."f": value - 87
        case "A"..."F": value - 55
        default: nil
        }
    }
}
