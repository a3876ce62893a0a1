/// The lexemes of a full-text query: words, quoted phrases, punctuation and the upper-case operators.
struct TextQueryLexeme: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A run of characters that are not white space or punctuation (its text).
        case word(String)
        /// The text between two `"`; `""` inside stands for one `"`.
        case phrase(String)
        case open, close, colon, star, comma
        /// `AND`, `OR`, `NOT` (upper case, alone), `NEAR` (upper case, right before `(`).
        case and, or, not, near
    }

    var kind: Kind
    /// Its first byte in the query's UTF-8.
    var offset: Int
    /// The byte after its last.
    var end: Int

    /// Splits `text` into lexemes, or throws for a phrase that no `"` closes.
    static func lexemes(of text: String) throws(TextQueryError) -> [TextQueryLexeme] {
        var lexemes: [TextQueryLexeme] = []
        var scalars: [(Unicode.Scalar, Int)] = []
        var offset = 0
        for scalar in text.unicodeScalars {
            scalars.append((scalar, offset))
            offset += UTF8.width(scalar)
        }
        let length = offset
        func offsetAt(_ index: Int) -> Int { index < scalars.count ? scalars[index].1 : length }
        var index = 0
        while index < scalars.count {
            let (scalar, start) = scalars[index]
            if scalar.properties.isWhitespace || scalar.value < 0x20 {
                index += 1
                continue
            }
            let single: Kind? = switch scalar {
            case "(": .open
            case ")": .close
            case ":": .colon
            case "*": .star
            case ",": .comma
            default: nil
            }
            if let single {
                lexemes.append(TextQueryLexeme(kind: single, offset: start, end: start + 1))
                index += 1
                continue
            }
            if scalar == "\"" {
                var phrase = String.UnicodeScalarView()
                index += 1
                var closed = false
                while index < scalars.count {
                    if scalars[index].0 == "\"" {
                        if index + 1 < scalars.count && scalars[index + 1].0 == "\"" {
                            phrase.append("\"")
                            index += 2
                            continue
                        }
                        closed = true
                        index += 1
                        break
                    }
                    phrase.append(scalars[index].0)
                    index += 1
                }
                guard closed else {
                    throw TextQueryError(.unterminatedPhrase, "the phrase that starts here has no closing \"", offset: start, in: text)
                }
                lexemes.append(TextQueryLexeme(kind: .phrase(String(phrase)), offset: start, end: offsetAt(index)))
                continue
            }
            var word = String.UnicodeScalarView()
            while index < scalars.count {
                let next = scalars[index].0
                if next.properties.isWhitespace || next.value < 0x20 || "():*,\"".unicodeScalars.contains(next) { break }
                word.append(next)
                index += 1
            }
            let end = offsetAt(index)
            let kind: Kind = switch String(word) {
            case "AND": .and
            case "OR": .or
            case "NOT": .not
            case "NEAR" where index < scalars.count && scalars[index].0 == "(": .near
            default: .word(String(word))
            }
            lexemes.append(TextQueryLexeme(kind: kind, offset: start, end: end))
        }
        return lexemes
    }
}
