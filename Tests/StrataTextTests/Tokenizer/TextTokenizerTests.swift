import StrataFormat
import Testing
import TestSupport
@testable import StrataText

/// Tokens of texts in each script and language the tokenizer has rules for, with their positions
/// and byte ranges; folding against the collation's; stop words, stemming and the query mode.
@Suite struct TextTokenizerTests {
    static let plain = TextTokenizer()
    static let english = TextTokenizer(stemming: .english, stopWords: .english)

    static func terms(_ text: String, _ tokenizer: TextTokenizer = plain, mode: TextTokenizer.Mode = .document) -> [String] {
        tokenizer.tokens(in: text, mode: mode).map(\.term)
    }

    /// Each token's byte range holds text that folds to the token's term (for texts without
    /// elisions, apostrophes or emoji, which the tokenizer normalizes further).
    static func checkRanges(_ text: String) {
        let utf8 = Array(text.utf8)
        for token in plain.tokens(in: text) {
            let source = String(decoding: utf8[token.byteRange], as: UTF8.self)
            #expect(token.term == Collation.fold(source, [.caseInsensitive, .diacriticInsensitive]), "\(token) of \(text)")
        }
    }

    @Test func englishWordsFoldStemAndDropStopWordsKeepingTheirPositions() {
        #expect(Self.terms("The quick brown fox's JUMPS") == ["the", "quick", "brown", "fox's", "jumps"])
        let tokens = Self.english.tokens(in: "The quick brown fox's JUMPS over the lazy dogs")
        #expect(tokens.map(\.term) == ["quick", "brown", "fox", "jump", "lazi", "dog"])
        #expect(tokens.map(\.position) == [1, 2, 3, 4, 7, 8])
        #expect(Self.terms("don’t don't", Self.plain) == ["don't", "don't"])
    }

    @Test func germanAndFrenchLettersFoldAsTheCollationFolds() {
        #expect(Self.terms("Größere Straßen führen nach Köln") == ["grossere", "strassen", "fuhren", "nach", "koln"])
        #expect(Self.terms("Fünke ÉLAN Ørsted") == ["funke", "elan", "ørsted"])
        #expect(Self.terms("L'élève a été très économe, qu’il dit") == ["eleve", "a", "ete", "tres", "econome", "il", "dit"])
        #expect(Self.terms("dell'arte") == ["arte"])
    }

    @Test func chineseBecomesOverlappingBigramsEndingWithTheLastCharacter() {
        let tokens = Self.plain.tokens(in: "我爱北京天安门")
        #expect(tokens.map(\.term) == ["我爱", "爱北", "北京", "京天", "天安", "安门", "门"])
        #expect(tokens.map(\.position) == Array(0..<7))
        #expect(tokens[2].byteRange == 6..<12)
        #expect(Self.terms("我爱北京天安门", mode: .query) == ["我爱", "爱北", "北京", "京天", "天安", "安门"])
        #expect(Self.terms("京", mode: .query) == ["京"])
    }

    @Test func japaneseKanjiKanaRunsAreOneRunAndOtherScriptsSeparateThem() {
        #expect(Self.terms("東京タワーに行きます") == ["東京", "京タ", "タワ", "ワー", "ーに", "に行", "行き", "きま", "ます", "す"])
        let tokens = Self.plain.tokens(in: "LMDB は速い database")
        #expect(tokens.map(\.term) == ["lmdb", "は速", "速い", "い", "database"])
        #expect(tokens.map(\.position) == [0, 1, 2, 3, 4])
    }

    @Test func emojiAndFlagsAreTokensWithoutVariationSelectors() {
        #expect(Self.terms("I ❤️ pizza 🍕 and 👍🏽, 🇩🇪!") == ["i", "❤", "pizza", "🍕", "and", "👍🏽", "🇩🇪"])
        #expect(Self.terms("❤") == Self.terms("❤️"))
        #expect(Self.terms("👨‍👩‍👧") == ["👨‍👩‍👧"])
    }

    @Test func numbersAndIdentifiersStayWhole() {
        #expect(Self.terms("3.14 1,000 2024-01-05 -7") == ["3.14", "1,000", "2024", "01", "05", "7"])
        #expect(Self.terms("snake_case v1.2.3 camelCase foo.bar __init__") == ["snake_case", "v1.2.3", "camelcase", "foo.bar", "__init__"])
        #expect(Self.terms("connections_v2 1.5x", Self.english) == ["connections_v2", "1.5x"])
        #expect(Self.terms("full-text search") == ["full", "text", "search"])
    }

    @Test func thaiRunsAreOneWordAndHangulWordsAreWords() {
        let thai = "ภาษาไทย"
        #expect(Self.terms("\(thai) ดี") == [Collation.fold(thai, [.caseInsensitive, .diacriticInsensitive]), "ดี"])
        #expect(Self.terms("한국어 텍스트") == ["한국어", "텍스트"])
    }

    @Test func byteRangesPointAtTheWordsInTheText() {
        let text = "Größere 東京 snake_case ❤️ l'élève"
        let tokens = Self.plain.tokens(in: text)
        let utf8 = Array(text.utf8)
        #expect(tokens.map { String(decoding: utf8[$0.byteRange], as: UTF8.self) } == ["Größere", "東京", "京", "snake_case", "❤️", "l'élève"])
        for sample in ["", " ", "...", "a", "Ünïcödé wörds, 1.0 and 日本語テキスト!", "\u{301}abc", "a\u{301}\u{302}b"] {
            Self.checkRanges(sample)
        }
    }

    @Test func textWithoutWordsHasNoTokens() {
        for text in ["", "   ", "...", "-- !! ??", "\u{301}", "\n\r\n\t", "___"] { #expect(Self.terms(text).isEmpty, "\(text.debugDescription)") }
    }

    @Test func longWordsAreCutAtACharacterBoundary() {
        let long = String(repeating: "é", count: 100)
        let term = Self.terms(long)[0]
        #expect(term == String(repeating: "e", count: 100))
        let wide = String(repeating: "ж", count: 100)
        let cut = Self.terms(wide)[0]
        #expect(cut.utf8.count <= TextTokenizer.maximumTermLength && cut.utf8.count >= TextTokenizer.maximumTermLength - 1)
        #expect(cut == String(repeating: "ж", count: cut.count))
    }

    /// A string of letters with no word break inside folds to one term, the collation's folding of it.
    @Test func aRandomWordFoldsToWhatTheCollationFoldsItTo() {
        var random = SeededGenerator(seed: 29)
        let letters: [ClosedRange<UInt32>] = [0x41...0x5A, 0x61...0x7A, 0xC0...0xFF, 0x100...0x17F, 0x391...0x3C9,
                                              0x410...0x44F, 0x1E00...0x1EFF, 0x300...0x36F]
        for _ in 0..<3_000 {
            var word = ""
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let range = letters.randomElement(using: &random)!
                guard let scalar = Unicode.Scalar(UInt32.random(in: range, using: &random)),
                      WordBreakProperty.Scalar.of(scalar.value).property == .aLetter
                        || WordBreakProperty.Scalar.of(scalar.value).property == .extend else { continue }
                word.unicodeScalars.append(scalar)
            }
            let expected = Collation.fold(word, [.caseInsensitive, .diacriticInsensitive])
            let terms = Self.terms(word)
            guard word.unicodeScalars.contains(where: { WordBreakProperty.Scalar.of($0.value).property == .aLetter }) else { continue }
            if WordBreakProperty.Scalar.of(word.unicodeScalars.first!.value).property == .extend {
                continue    // a leading mark is a segment of its own
            }
            #expect(terms == [expected], "\(word.debugDescription)")
        }
    }

    @Test func theRulesVersionGoesWithTheUnicodeVersionOfTheTable() {
        // A table made from other Unicode data gives other tokens: increase TextTokenizer.rulesVersion
        // with it, and record the pair here.
        #expect(TextTokenizer.rulesVersion == 1 && WordBreakTable.unicodeVersion == "15.0.0")
    }
}
