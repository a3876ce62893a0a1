/// Parses a `MATCHES` pattern (the syntax ``RegularExpression`` documents) into a ``RegexNode``,
/// collecting its classes in ``sets``. Errors name the problem and its 1-based position.
package struct RegexParser {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var depth = 0
    /// The classes of the pattern, which `.set` nodes name by index.
    private(set) var sets: [ScalarSet] = []

    package init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    package typealias SyntaxError = RegularExpression.SyntaxError

    package mutating func parse() throws(SyntaxError) -> RegexNode {
        let node = try parseAlternation()
        if position < scalars.count { throw failure("unmatched ')'") }
        return node
    }

    // MARK: Structure

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    private func failure(_ problem: String, at index: Int? = nil) -> SyntaxError {
        SyntaxError(problem: problem, position: (index ?? position) + 1)
    }

    private func unsupported(_ construct: String, at index: Int) -> SyntaxError {
        failure("\(construct) are not supported by MATCHES", at: index)
    }

    private mutating func parseAlternation() throws(SyntaxError) -> RegexNode {
        var branches = [try parseConcatenation()]
        while peek == "|" {
            position += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws(SyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = peek, c != "|", c != ")" {
            if c == "\\", peek(1) == "Q" {
                // \Q…\E: each quoted character is an item, so a quantifier after it repeats the last.
                items += try parseQuote().map(RegexNode.scalar)
                if items.isEmpty || !isQuantifier(peek) { continue }
                let last = items.removeLast()
                items.append(try parseQuantifiers(of: last))
                continue
            }
            let atom = try parseAtom()
            items.append(try parseQuantifiers(of: atom))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concatenation(items))
    }

    private func isQuantifier(_ c: Unicode.Scalar?) -> Bool { c == "*" || c == "+" || c == "?" || c == "{" }

    private mutating func parseQuantifiers(of atom: RegexNode) throws(SyntaxError) -> RegexNode {
        guard let c = peek, isQuantifier(c) else { return atom }
        if case .assertion = atom, scalars[position - 1] != ")" {
            throw failure("an anchor or word boundary cannot be repeated")
        }
        let bounds: (min: Int, max: Int?)
        switch c {
        case "*": bounds = (0, nil); position += 1
        case "+": bounds = (1, nil); position += 1
        case "?": bounds = (0, 1); position += 1
        default: bounds = try parseInterval()
        }
        if peek == "?" {
            position += 1   // lazy: the same answer for a whole-string match
        } else if peek == "+" {
            throw unsupported("possessive quantifiers like '*+'", at: position)
        }
        if isQuantifier(peek) { throw failure("a quantifier cannot follow another quantifier (group the first: '(a*)*')") }
        return .repetition(atom, min: bounds.min, max: bounds.max)
    }

    /// `{n}`, `{n,}` or `{n,m}`, from its `{`.
    private mutating func parseInterval() throws(SyntaxError) -> (min: Int, max: Int?) {
        let open = position
        position += 1
        let malformed = failure("'{' must begin a repetition like {2}, {2,} or {2,5} (write \\{ for a brace)", at: open)
        guard let min = parseNumber() else { throw malformed }
        var max: Int? = min
        if peek == "," {
            position += 1
            max = parseNumber()
        }
        guard peek == "}" else { throw malformed }
        position += 1
        let limit = RegularExpression.maxRepetition
        guard min <= limit, (max ?? 0) <= limit else {
            throw failure("a repetition count above \(limit)", at: open)
        }
        if let max, max < min { throw failure("in {\(min),\(max)} the minimum exceeds the maximum", at: open) }
        return (min, max)
    }

    private mutating func parseNumber() -> Int? {
        var value: Int?
        while let c = peek, ("0"..."9").contains(c) {
            value = min((value ?? 0) * 10 + Int(c.value - 48), 1_000_000)
            position += 1
        }
        return value
    }

    private mutating func parseAtom() throws(SyntaxError) -> RegexNode {
        let c = scalars[position]
        switch c {
        case "(":
            return try parseGroup()
        case "[":
            return try parseClass()
        case ".":
            position += 1
            return .any
        case "^":
            position += 1
            return .assertion(.start)
        case "$":
            position += 1
            return .assertion(.endOrFinalLineTerminator)
        case "\\":
            return try parseEscape()
        case "*", "+", "?", "{":
            throw failure("'\(c)' has nothing to repeat (write \\\(c) for the character)")
        default:
            position += 1
            return .scalar(c)
        }
    }

    private mutating func parseGroup() throws(SyntaxError) -> RegexNode {
        let open = position
        position += 1
        if peek == "?" {
            switch peek(1) {
            case ":":
                position += 2
            case "<" where peek(2) == "=" || peek(2) == "!":
                throw unsupported("lookbehind assertions '(?<=' and '(?<!'", at: open)
            case "<":
                position += 2
                let nameStart = position
                while let c = peek, c.properties.isAlphabetic || ("0"..."9").contains(c) { position += 1 }
                guard position > nameStart, peek == ">" else { throw failure("a group name must be letters and digits closed by '>'", at: open) }
                position += 1
            case "=", "!":
                throw unsupported("lookahead assertions '(?=' and '(?!'", at: open)
            case ">":
                throw unsupported("atomic groups '(?>'", at: open)
            case "#":
                while let c = peek, c != ")" { position += 1 }
                guard peek == ")" else { throw failure("missing ')' to close the comment opened", at: open) }
                position += 1
                return .empty
            default:
                throw unsupported("inline flags and other '(?' groups (use MATCHES[c] for case-insensitive matching)", at: open)
            }
        }
        depth += 1
        guard depth <= RegularExpression.maxDepth else {
            throw failure("groups nested more than \(RegularExpression.maxDepth) deep", at: open)
        }
        let inner = try parseAlternation()
        depth -= 1
        guard peek == ")" else { throw failure("missing ')' to close the group opened", at: open) }
        position += 1
        return inner
    }

    // MARK: Classes

    private mutating func parseClass() throws(SyntaxError) -> RegexNode {
        let open = position
        position += 1
        var set = ScalarSet()
        if peek == "^" {
            set.negated = true
            position += 1
        }
        var first = true
        while true {
            guard let c = peek else { throw failure("missing ']' to close the class opened", at: open) }
            if c == "]", !first {
                position += 1
                break
            }
            first = false
            if c == "[" { throw unsupported("nested classes and POSIX classes like '[[:alpha:]]'", at: position) }
            if (c == "&" && peek(1) == "&") || (c == "-" && peek(1) == "-") {
                throw unsupported("class set operations like '&&' and '--'", at: position)
            }
            let itemStart = position
            switch try parseClassItem() {
            case .shorthand(let shorthand, let negated):
                set.shorthands.append((shorthand, negated))
            case .scalar(let low):
                if peek == "-", let next = peek(1), next != "]" {
                    position += 1
                    guard case .scalar(let high) = try parseClassItem() else {
                        throw failure("a range cannot end in a class like \\d", at: itemStart)
                    }
                    guard low.value <= high.value else {
                        throw failure("the range \(low)-\(high) is out of order", at: itemStart)
                    }
                    set.ranges.append(low.value...high.value)
                } else {
                    set.ranges.append(low.value...low.value)
                }
            }
        }
        sets.append(set.normalized())
        return .set(sets.count - 1)
    }

    private enum ClassItem {
        case scalar(Unicode.Scalar)
        case shorthand(ScalarSet.Shorthand, negated: Bool)
    }

    private mutating func parseClassItem() throws(SyntaxError) -> ClassItem {
        let c = scalars[position]
        guard c == "\\" else {
            position += 1
            return .scalar(c)
        }
        if let shorthand = Self.shorthand(peek(1)) {
            position += 2
            return .shorthand(shorthand.0, negated: shorthand.negated)
        }
        return .scalar(try parseEscapedScalar())
    }

    private static func shorthand(_ c: Unicode.Scalar?) -> (ScalarSet.Shorthand, negated: Bool)? {
        switch c {
        case "d": (.digit, false)
        case "D": (.digit, true)
        case "w": (.word, false)
        case "W": (.word, true)
        case "s": (.space, false)
        case "S": (.space, true)
        default: nil
        }
    }

    // MARK: Escapes

    private mutating func parseEscape() throws(SyntaxError) -> RegexNode {
        let backslash = position
        guard let c = peek(1) else { throw failure("the pattern ends with a single '\\'", at: backslash) }
        if let shorthand = Self.shorthand(c) {
            position += 2
            var set = ScalarSet()
            set.shorthands = [(shorthand.0, shorthand.negated)]
            sets.append(set)
            return .set(sets.count - 1)
        }
        switch c {
        case "b", "B", "A", "z", "Z":
            position += 2
            switch c {
            case "b": return .assertion(.wordBoundary(true))
            case "B": return .assertion(.wordBoundary(false))
            case "A": return .assertion(.start)
            case "z": return .assertion(.end)
            default: return .assertion(.endOrFinalLineTerminator)
            }
        case "1"..."9", "k":
            throw unsupported("backreferences like '\\1' and '\\k<name>'", at: backslash)
        case "p", "P":
            throw unsupported("Unicode property classes like '\\p{L}'", at: backslash)
        case "G", "X", "R", "N", "h", "H", "v", "V":
            throw unsupported("the escapes \\G, \\X, \\R, \\N{…}, \\h and \\v", at: backslash)
        default:
            return .scalar(try parseEscapedScalar())
        }
    }

    /// `\Q…\E` (the `\E` may be left out at the end of the pattern), from its backslash.
    private mutating func parseQuote() throws(SyntaxError) -> [Unicode.Scalar] {
        position += 2
        var quoted: [Unicode.Scalar] = []
        while let c = peek {
            if c == "\\", peek(1) == "E" {
                position += 2
                return quoted
            }
            quoted.append(c)
            position += 1
        }
        return quoted
    }

    /// A backslash escape that stands for one character, from its backslash.
    private mutating func parseEscapedScalar() throws(SyntaxError) -> Unicode.Scalar {
        let backslash = position
        guard let c = peek(1) else { throw failure("the pattern ends with a single '\\'", at: backslash) }
        position += 2
        switch c {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "a": return "\u{07}"
        case "e": return "\u{1B}"
        case "0":
            var value: UInt32 = 0
            for _ in 0..<3 {
                guard let d = peek, ("0"..."7").contains(d) else { break }
                value = value * 8 + d.value - 48
                position += 1
            }
            return Unicode.Scalar(value)!
        case "x":
            if peek == "{" {
                position += 1
                let value = try hexDigits(upTo: 8, exactly: false, escape: backslash)
                guard peek == "}" else { throw failure("\\x{…} needs a closing '}'", at: backslash) }
                position += 1
                return try scalar(value, escape: backslash)
            }
            return try scalar(try hexDigits(upTo: 2, exactly: true, escape: backslash), escape: backslash)
        case "u":
            return try scalar(try hexDigits(upTo: 4, exactly: true, escape: backslash), escape: backslash)
        case "U":
            return try scalar(try hexDigits(upTo: 8, exactly: true, escape: backslash), escape: backslash)
        case "c":
            guard let control = peek, control.isASCII, control.value >= 0x40 else {
                throw failure("\\c must be followed by a letter", at: backslash)
            }
            position += 1
            return Unicode.Scalar(control.value & 0x1F)!
        default:
            if c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) {
                throw failure("unknown escape '\\\(c)'", at: backslash)
            }
            return c   // punctuation, a space or any non-ASCII character stands for itself
        }
    }

    private mutating func hexDigits(upTo count: Int, exactly: Bool, escape: Int) throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0, digits = 0
        while digits < count, let c = peek, let digit = c.hexDigitValue {
            value = value * 16 + digit
            digits += 1
            position += 1
        }
        guard digits > 0, !exactly || digits == count else {
            throw failure("this escape needs \(exactly ? "exactly \(count)" : "1 to \(count)") hexadecimal digits", at: escape)
        }
        return value
    }


    private func scalar(_ value: UInt32, escape: Int) throws(SyntaxError) -> Unicode.Scalar {
        guard let scalar = Unicode.Scalar(value) else {
            throw failure("U+\(String(value, radix: 16, uppercase: true)) is not a Unicode scalar", at: escape)
        }
        return scalar
    }
}
