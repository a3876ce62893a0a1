import Testing
@testable import StrataText

/// Highlights and snippets: words as written in the text wrapped in the caller's markers, phrases
/// only where whole, neighbours joined, nothing under NOT, and the window with the most terms.
@Suite struct TextHighlighterTests {
    static func highlighter(_ query: String, fields: [String] = ["body"], tokenizer: TextTokenizer = TextTokenizer()) throws -> TextHighlighter {
        TextHighlighter(query: try TextQueryParser(fields: fields, tokenizer: tokenizer, typoTolerance: true).parse(query), tokenizer: tokenizer)
    }

    @Test func matchedWordsAreWrappedAsWritten() throws {
        #expect(try Self.highlighter("funke elan").highlight("Tobias FÜNKE met Élan.", field: 0, open: "[", close: "]")
                == "Tobias [FÜNKE] met [Élan].")
        #expect(try Self.highlighter("lmd*").highlight("LMDB and lmdb-rs", field: 0, open: "<b>", close: "</b>")
                == "<b>LMDB</b> and <b>lmdb</b>-rs")
        #expect(try Self.highlighter("recrods").highlight("records kept", field: 0, open: "*", close: "*") == "*records* kept")
        let english = TextTokenizer(stemming: .english, stopWords: .english)
        #expect(try Self.highlighter("running", tokenizer: english).highlight("He runs; she ran; they run.", field: 0, open: "_", close: "_")
                == "He _runs_; she ran; they _run_.")
    }

    @Test func phrasesAreMarkedWhereWholeAndAsOneSpan() throws {
        let highlighter = try Self.highlighter("\"fast store\" OR quick")
        #expect(highlighter.highlight("a fast store, a fast car, a quick store", field: 0, open: "[", close: "]")
                == "a [fast store], a fast car, a [quick] store")
        #expect(try Self.highlighter("東京").highlight("私は東京都に", field: 0, open: "[", close: "]") == "私は[東京]都に")
        #expect(try Self.highlighter("東京タワー").highlight("東京タワーだ", field: 0, open: "[", close: "]") == "[東京タワー]だ")
    }

    @Test func notFieldsAndNearDecideWhatIsMarked() throws {
        #expect(try Self.highlighter("lmdb NOT swift").highlight("lmdb swift", field: 0, open: "[", close: "]") == "[lmdb] swift")
        let scoped = try Self.highlighter("title:lmdb", fields: ["title", "body"])
        #expect(scoped.highlight("lmdb", field: 1, open: "[", close: "]") == "lmdb")
        #expect(scoped.highlight("lmdb", field: 0, open: "[", close: "]") == "[lmdb]")
        let near = try Self.highlighter("NEAR(lmdb swift, 1)")
        #expect(near.highlight("lmdb is swift", field: 0, open: "[", close: "]") == "[lmdb] is [swift]")
        #expect(near.highlight("lmdb is very swift", field: 0, open: "[", close: "]") == "lmdb is very swift")
    }

    @Test func aSnippetIsTheWindowWithTheMostTerms() throws {
        let text = "One two three lmdb four five six seven eight swift lmdb nine ten eleven"
        let highlighter = try Self.highlighter("lmdb swift")
        #expect(highlighter.snippet(text, field: 0, words: 3, open: "[", close: "]") == "…eight [swift lmdb]…")
        #expect(highlighter.snippet(text, field: 0, words: 100, open: "[", close: "]")
                == "One two three [lmdb] four five six seven eight [swift lmdb] nine ten eleven")
        #expect(try Self.highlighter("absent").snippet(text, field: 0, words: 2, open: "[", close: "]", ellipsis: "...") == "One two...")
        #expect(highlighter.snippet("", field: 0, words: 3, open: "[", close: "]") == "")
    }
}
