import Testing
import TestSupport
@testable import StrataText

/// The query grammar: each form's tree, precedence, tokenized words, limits, and typed errors with
/// their columns for malformed and hostile input (which never traps).
@Suite struct TextQueryParserTests {
    static let parser = TextQueryParser(fields: ["title", "body"], tokenizer: TextTokenizer())

    static func word(_ text: String, fields: UInt64? = nil, prefix: Bool = false, typos: Int = 0) -> TextQuery {
        .match(TextMatch(terms: [TextQueryTerm(text: text, isPrefix: prefix, typos: typos)], fields: fields))
    }

    /// The query with every match's query-text offset set to 0, to compare trees by their terms.
    static func stripped(_ query: TextQuery) -> TextQuery {
        func strip(_ match: TextMatch) -> TextMatch { TextMatch(terms: match.terms, fields: match.fields) }
        switch query {
        case .match(let match): return .match(strip(match))
        case .near(let matches, let distance): return .near(matches.map(strip), distance: distance)
        case .all(let queries): return .all(queries.map(stripped))
        case .any(let queries): return .any(queries.map(stripped))
        case .excluding(let a, let b): return .excluding(stripped(a), stripped(b))
        case .nothing: return .nothing
        }
    }

    static func parse(_ text: String, _ parser: TextQueryParser = parser) throws -> TextQuery { stripped(try parser.parse(text)) }

    static func error(_ text: String, _ parser: TextQueryParser = parser) -> TextQueryError? {
        do { _ = try parser.parse(text); return nil } catch { return error }
    }

    @Test func wordsSideBySideMustAllMatchAndOperatorsTakeFTS5sPrecedence() throws {
        #expect(try Self.parse("lmdb") == Self.word("lmdb"))
        #expect(try Self.parse("LMDB Swift") == .all([Self.word("lmdb"), Self.word("swift")]))
        #expect(try Self.parse("a AND b") == .all([Self.word("a"), Self.word("b")]))
        #expect(try Self.parse("a b NOT c OR d") == .any([.all([Self.word("a"), .excluding(Self.word("b"), Self.word("c"))]), Self.word("d")]))
        #expect(try Self.parse("(a OR b) c") == .all([.any([Self.word("a"), Self.word("b")]), Self.word("c")]))
        #expect(try Self.parse("a or b") == .all([Self.word("a"), Self.word("or"), Self.word("b")]))
        #expect(try Self.parse("a NOT b NOT c") == .excluding(.excluding(Self.word("a"), Self.word("b")), Self.word("c")))
    }

    @Test func phrasesPrefixesFieldsAndNear() throws {
        let phrase = TextMatch(terms: [TextQueryTerm(text: "exact", offset: 0), TextQueryTerm(text: "phrase", offset: 1)])
        #expect(try Self.parse("\"Exact Phrase\"") == .match(phrase))
        #expect(try Self.parse("lmd*") == Self.word("lmd", prefix: true))
        #expect(try Self.parse("title:lmdb") == Self.word("lmdb", fields: 1))
        #expect(try Self.parse("body:(a OR b)") == .any([Self.word("a", fields: 2), Self.word("b", fields: 2)]))
        #expect(try Self.parse("NEAR(a \"b c\", 5)") == .near([
            TextMatch(terms: [TextQueryTerm(text: "a")]),
            TextMatch(terms: [TextQueryTerm(text: "b", offset: 0), TextQueryTerm(text: "c", offset: 1)]),
        ], distance: 5))
        #expect(try Self.parse("NEAR(a b)") == .near([TextMatch(terms: [TextQueryTerm(text: "a")]),
                                                      TextMatch(terms: [TextQueryTerm(text: "b")])], distance: 10))
        #expect(try Self.parse("\"say \"\"hi\"\"\"") == .match(TextMatch(terms: [TextQueryTerm(text: "say"), TextQueryTerm(text: "hi", offset: 1)])))
        #expect(try Self.parse("\"full text\"*") == .match(TextMatch(terms: [TextQueryTerm(text: "full"), TextQueryTerm(text: "text", offset: 1, isPrefix: true)])))
    }

    @Test func wordsAreTokenizedByTheIndexsRules() throws {
        #expect(try Self.parse("Fünke") == Self.word("funke"))
        #expect(try Self.parse("full-text") == .match(TextMatch(terms: [TextQueryTerm(text: "full"), TextQueryTerm(text: "text", offset: 1)])))
        #expect(try Self.parse("東京") == Self.word("東京"))
        #expect(try Self.parse("東") == Self.word("東", prefix: true))
        #expect(try Self.parse("東京タワー") == .match(TextMatch(terms: ["東京", "京タ", "タワ", "ワー"].enumerated().map {
            TextQueryTerm(text: $1, offset: $0)
        })))
        let english = TextQueryParser(fields: ["body"], tokenizer: TextTokenizer(stemming: .english, stopWords: .english))
        #expect(try Self.parse("running shoes", english) == .all([Self.word("run"), Self.word("shoe")]))
        #expect(try Self.parse("runn*", english) == Self.word("runn", prefix: true))
        #expect(try Self.parse("the", english) == .nothing)
        #expect(try Self.parse("the lmdb", english) == Self.word("lmdb"))
        #expect(try Self.parse("\"lord of the rings\"", english) == .match(TextMatch(terms: [TextQueryTerm(text: "lord"), TextQueryTerm(text: "ring", offset: 3)])))
        #expect(try Self.parse("lmdb NOT the", english) == Self.word("lmdb"))
    }

    @Test func typoToleranceDependsOnTheWordsLength() throws {
        let tolerant = TextQueryParser(fields: ["body"], tokenizer: TextTokenizer(), typoTolerance: true)
        #expect(try Self.parse("lmdb", tolerant) == Self.word("lmdb"))
        #expect(try Self.parse("store", tolerant) == Self.word("store", typos: 1))
        #expect(try Self.parse("databases", tolerant) == Self.word("databases", typos: 2))
        #expect(try Self.parse("12345678", tolerant) == Self.word("12345678"))
        #expect(try Self.parse("\"store\"", tolerant) == Self.word("store"))
        #expect(try Self.parse("store*", tolerant) == Self.word("store", prefix: true))
    }

    @Test func malformedQueriesThrowTypedErrorsWithTheirColumn() {
        let cases: [(String, TextQueryError.Code, Int)] = [
            ("", .empty, 1), ("   ", .empty, 1), ("a OR", .missingOperand, 3), ("OR a", .missingOperand, 1),
            ("NOT a", .missingOperand, 1), ("a NOT", .missingOperand, 3), ("(a b", .unbalancedParenthesis, 1),
            ("a b)", .unbalancedParenthesis, 4), ("\"open phrase", .unterminatedPhrase, 1), ("()", .missingOperand, 1),
            ("a * b", .unexpected, 3), ("nope:x", .unknownField, 1), ("tïtle:x", .unknownField, 1), ("title:", .missingOperand, 1),
            ("title:(body:x)", .unexpected, 8), ("NEAR(a b, x)", .invalidNear, 9), ("NEAR(a b, 5000)", .invalidNear, 9),
            ("NEAR()", .invalidNear, 1), ("NEAR(a (b))", .invalidNear, 8), ("ü b,", .unexpected, 4), ("a AND AND b", .missingOperand, 3),
            ("é :b", .unexpected, 3),
        ]
        for (text, code, column) in cases {
            let error = Self.error(text)
            #expect(error?.code == code && error?.column == column, "\(text.debugDescription): \(String(describing: error))")
        }
    }

    @Test func limitsOnLengthDepthAndTermsAreTypedErrors() {
        #expect(Self.error(String(repeating: "a ", count: 3_000))?.code == .tooLong)
        #expect(Self.error(String(repeating: "(", count: 40) + "a" + String(repeating: ")", count: 40))?.code == .tooDeep)
        #expect(Self.error(String(repeating: "(", count: 10_000))?.code == .tooLong)
        #expect(Self.error((0..<80).map { "w\($0)" }.joined(separator: " "))?.code == .tooManyTerms)
        #expect(Self.error(String(repeating: "(", count: 30) + "a" + String(repeating: ")", count: 30)) == nil)
        let error = Self.error("abc def) x")
        #expect(error?.strataError().code == .invalidQuery)
        #expect(error?.strataError().message.contains("column 8") == true)
    }

    /// Random and hostile strings: every one parses or throws a `TextQueryError`, never traps, and a
    /// parsed query holds only terms the tokenizer makes.
    @Test func randomAndHostileStringsParseOrThrowTypedErrors() {
        var random = SeededGenerator(seed: 33)
        let pieces = ["a", "lmdb", "OR", "AND", "NOT", "NEAR", "NEAR(", "(", ")", "\"", "*", ":", ",", " ", "  ", "title", "body",
                      "title:", "5", "-", "é", "東京", "😀", "\u{0}", "\n", "\u{301}", "\u{FFFF}", "\"\"", "x*y", "::", ",5)"]
        var parsed = 0, failed = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            do {
                let query = try Self.parser.parse(text)
                parsed += 1
                for match in query.positiveMatches { #expect(!match.terms.isEmpty) }
            } catch {
                failed += 1
                #expect(error.column >= 1 && error.column <= text.count + 1, "\(text.debugDescription): \(error)")
                #expect(error.offset >= 0 && error.offset <= text.utf8.count)
            }
        }
        #expect(parsed > 1_000 && failed > 1_000)
        for length in [1, 100, 4_096] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? Self.parser.parse(String(decoding: bytes, as: UTF8.self))
        }
    }
}
